"""Command modules plugged into the tensorcli app.

The contract for a module ``tensorcli/commands/<name>.py``:

* It is listed in ``COMMAND_MODULES`` below. ``tensorcli/app.py`` imports each listed module on
  every run (a module that does not exist yet is skipped: only the ImportError for the module
  itself is ignored, errors inside it propagate) and calls its ``register(app)``, which adds
  commands with ``@app.command(...)`` (pass ``rich_help_panel=`` to group them in ``--help``).
* A command is thin: parse its options, call a service (``tensorcli.services``: no Typer, no
  Rich), hand the result to ``tensorcli.render`` (every piece of Rich output) or ``--json``.
  Command modules never import each other.
* Importing it must be cheap, because it happens on every run, including the op commands that
  scripts call thousands of times: at module level import only typer, the standard library and
  the light tensorcli modules (``tensorcli.errors``, ``tensorcli.spec``, ``tensorcli.commands.options``).
  Import ``tensorcli.services.*``, ``tensorcli.io`` (NumPy), ``tensorcli.render`` (Rich) inside
  the command body; never torch. (tests/tensorcli/test_app.py checks that importing every module listed
  below pulls in none of rich, core, numpy, torch, pydantic.)
* Tensor arguments are read with ``tensorcli.io.load_tensor(spec, arg="--x", stdin_used=seen)``
  (one ``seen = []`` list per invocation, so at most one argument reads stdin) and results
  written with ``tensorcli.io.save_result(result, path)``; ``tensorcli.io.result_json`` and
  ``tensorcli.io.dumps`` give the ``--json`` encoding (NaN/Infinity as strings).
* Errors: raise ``tensorcli.errors.CliError(arg, message)`` for bad usage or bad input, and wrap
  calls into core in ``with tensorcli.errors.user_errors("<command>"):`` so PyTorch-style
  RuntimeError / IndexError / ValueError / TypeError become a CliError. The app prints one line
  on stderr and exits 2 (a traceback only with ``--debug``). Do not catch broad exceptions.
* Options shared by several commands are the aliases of ``tensorcli.commands.options`` (``JsonOpt``,
  ``OutOpt``, ``DebugOpt``, ``NoColorOpt``, ``DtypeOpt``, ``LetOpt``, ...), each defined once, e.g.::

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


def escape_markup(text: str) -> str:
    """Escape Rich markup in help text: typer renders help with Rich, where '[i]' means italics."""
    return re.sub(r"(\\*)(\[[a-zA-Z#/@][^[]*?])", r"\1\1\\\2", text)

_TOKEN = re.compile(r"""(?:'[^']*'|"[^"]*"|\S)+""")


def fold_example(command: str, width: int = 74, indent: str = "  ") -> str:
    """A shell command for --help, broken before an option (with a trailing backslash) so that no
    line is longer than `width` and Rich never wraps it in the middle of an argument."""
    groups = []
    for tok in _TOKEN.findall(command):
        option = tok.startswith("-") and tok != "-" and not tok.lstrip("-")[:1].isdigit()
        if groups and not option and tok != "|" and groups[-1][-1] != "|":
            groups[-1].append(tok)
        else:
            groups.append([tok])
    lines, cur = [], indent
    for g in groups:
        piece = " ".join(g)
        if cur.strip() and len(cur) + 1 + len(piece) > width - 2:
            lines.append(cur + " \\")
            cur = indent + "    " + piece
        else:
            cur = cur + (" " if cur.strip() else "") + piece
    lines.append(cur)
    return "\n".join(lines)


# Imported by tensorcli.app, in this order; a missing module is skipped (the op commands come
# from commands/op.py, which the app adds after these).
COMMAND_MODULES = ("ops", "show", "autograd", "memory", "check", "eval")
