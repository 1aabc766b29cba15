"""Command modules plugged into the tensorcli app.

The contract for a module ``tensorcli/commands/<name>.py``:

* It is listed in ``COMMAND_MODULES`` below. ``tensorcli/app.py`` imports each listed module on
  every run (a module that does not exist yet is skipped: only the ImportError for the module
  itself is ignored, errors inside it propagate) and calls its ``register(app)``, which adds
  commands with ``@app.command(...)`` (pass ``rich_help_panel=`` to group them in ``--help``).
* Importing it must be cheap, because it happens on every run, including the op commands that
  scripts call thousands of times: at module level import only typer, the standard library and
  the light tensorcli modules (``tensorcli.errors``, this package). Import ``core``, NumPy,
  ``tensorcli.io``, ``tensorcli.render`` (Rich), ``tensorcli.expr`` etc. inside the command
  body; never torch. (tests/test_cli.py checks that importing every module listed below pulls
  in none of rich, core, numpy, torch, pydantic.)
* Tensor arguments are read with ``tensorcli.io.load_tensor(spec, arg="--x", stdin_used=seen)``
  (one ``seen = []`` list per invocation, so at most one argument reads stdin) and results
  written with ``tensorcli.io.save_result(result, path)``; ``tensorcli.io.result_json`` and
  ``tensorcli.io.dumps`` give the ``--json`` encoding (NaN/Infinity as strings).
* Errors: raise ``tensorcli.errors.CliError(arg, message)`` for bad usage or bad input, and wrap
  calls into core in ``with tensorcli.errors.user_errors("<command>"):`` so PyTorch-style
  RuntimeError / IndexError / ValueError / TypeError become a CliError. The app prints one line
  on stderr and exits 2 (a traceback only with ``--debug``). Do not catch broad exceptions.
* Options shared by all commands use the aliases below (``JsonOpt``, ``OutOpt``, ``DebugOpt``,
  ``NoColorOpt``, ``DtypeOpt``, ``MaxRowsOpt``) so that spellings and help texts agree, e.g.::

      def register(app):
          @app.command(rich_help_panel="autograd")
          def grad(expr: str, json_: JsonOpt = False, debug: DebugOpt = False,
                   no_color: NoColorOpt = False):
              from tensorcli import io, render   # heavy imports inside the body
              ...

  ``--debug`` is read by the app from the command line itself; a command only needs to accept it.
  Help text is rendered by Rich: pass it through ``escape_markup`` when it contains brackets
  (``out[i][j]`` would otherwise lose ``[i]`` as an italics tag).
  For people-facing output use ``tensorcli.render.console(no_color)`` (stderr=True when stdout
  carries data); colour is off with --no-color, NO_COLOR, or when the stream is not a terminal.
"""
from __future__ import annotations

import re
from typing import Annotated, Optional

import typer


def escape_markup(text: str) -> str:
    """Escape Rich markup in help text: typer renders help with Rich, where '[i]' means italics."""
    return re.sub(r"(\\*)(\[[a-zA-Z#/@][^[]*?])", r"\1\1\\\2", text)

# Imported by tensorcli.app, in this order; a missing module is skipped.
COMMAND_MODULES = ("ops", "show", "autograd", "memory", "check")

JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print one JSON object on stdout (NaN/Infinity encoded as strings).")]
OutOpt = Annotated[Optional[str], typer.Option(
    "-o", "--out", metavar="PATH",
    help="Save the result: .npy, .npz or .json by extension; '-' writes .npy bytes to stdout.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show the Python traceback on errors.")]
NoColorOpt = Annotated[bool, typer.Option(
    "--no-color", help="No colours (also when NO_COLOR is set or output is not a terminal).")]
DtypeOpt = Annotated[Optional[str], typer.Option(
    "--dtype", metavar="DTYPE", help="Cast INPUT to this dtype first (float32, int64, bool, ...).")]
MaxRowsOpt = Annotated[int, typer.Option(
    "--max-rows", metavar="N", help="Show at most N rows of a table (0: all).")]
