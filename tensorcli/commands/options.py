"""The options shared by tensorcli's commands: each defined once, with one help text.

Commands annotate their parameters with these aliases (``json_: JsonOpt = False``); the op
commands generated from the registry (commands/op.py) use the same ones.
"""
from __future__ import annotations

from typing import Annotated, List, Optional

import typer

JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print one JSON object on stdout (NaN/Infinity encoded as strings).")]
OutOpt = Annotated[Optional[str], typer.Option(
    "-o", "--out", metavar="PATH",
    help="Save the result: .npy, .npz or .json by extension; '-' writes .npy bytes to stdout.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show the Python traceback on errors.")]
NoColorOpt = Annotated[bool, typer.Option(
    "--no-color", help="No colours (also when NO_COLOR is set or output is not a terminal).")]
DtypeOpt = Annotated[Optional[str], typer.Option(
    "--dtype", metavar="DTYPE",
    help="Cast the input tensors (INPUT, TENSOR, --let, --input) to this dtype first (float32, int64, bool, ...).")]
MaxRowsOpt = Annotated[int, typer.Option(
    "--max-rows", metavar="N", help="Show at most N rows of a table (0: all).")]
LetOpt = Annotated[Optional[List[str]], typer.Option(
    "--let", metavar="NAME=TENSOR",
    help="Bind NAME to a tensor: JSON literal, .json/.npy/.npz[:key] file, or - for stdin. Repeatable.")]
RequiresGradOpt = Annotated[Optional[List[str]], typer.Option(
    "--requires-grad", metavar="NAMES",
    help="Comma-separated --let names to mark requires_grad=True (floating point tensors only).")]


def _apply_max_bytes(value):
    """--max-bytes (or TENSORCLI_MAX_BYTES, else the default) becomes the command's memory budget as
    soon as it is parsed, before the command loads a tensor: core's allocation limit and the
    process's data limit (services/limits.py, services/budget.py)."""
    from tensorcli.services import budget, limits   # stdlib only; here to keep this module typer-only
    nbytes = limits.parse_size(value) if value is not None else limits.effective(None)
    limits.apply(nbytes)
    budget.install(nbytes)
    return value


MaxBytesOpt = Annotated[Optional[str], typer.Option(
    "--max-bytes", metavar="SIZE", envvar="TENSORCLI_MAX_BYTES", callback=_apply_max_bytes, show_default=False,
    help="Memory the command may allocate in all (e.g. 2GiB, 512MiB, 1000000): tensors, temporaries "
         "and Python objects of every op, expression and model; memory-mapped input files do not count. "
         "Past it the command stops with exit 2. Default: half of physical memory.")]


def _start_timeout(value):
    """--timeout starts the command's time budget when parsed (services/budget.py)."""
    from tensorcli.services import budget
    budget.start_timer(budget.parse_timeout(value))
    return value


TimeoutOpt = Annotated[Optional[str], typer.Option(
    "--timeout", metavar="SECONDS", envvar="TENSORCLI_TIMEOUT", callback=_start_timeout, show_default=False,
    help="Stop after SECONDS of wall-clock time with exit 2 ('timed out after N s'). Default: no limit.")]
FullDataOpt = Annotated[bool, typer.Option(
    "--full-data", help="With --json: every element, even above the summary threshold "
                        "(TENSORCLI_JSON_MAX_ELEMENTS, default 10000).")]
def _apply_quiet(value):
    """-q / --quiet: no progress bars, notes or warnings for the rest of the run (read as
    TENSORCLI_QUIET; the app restores the variable and the warning filters when the command ends)."""
    if value:
        import os
        import warnings
        os.environ["TENSORCLI_QUIET"] = "1"
        warnings.simplefilter("ignore")   # PyTorch's warnings are notes too (the app restores the filters)
    return value


QuietOpt = Annotated[bool, typer.Option(
    "-q", "--quiet", callback=_apply_quiet,
    help="No progress bars, notes or warnings on stderr (errors still print).")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show where each output element comes from.")]
AtOpt = Annotated[Optional[str], typer.Option(
    "--at", metavar="I,J", help="Explain one output element (implies --explain).")]
ProgramFileOpt = Annotated[Optional[str], typer.Option(
    "-f", "--file", metavar="FILE",
    help="Run the program in FILE (- for stdin) instead of EXPR: PyTorch code with def, class, with, for, "
         "print... run by tensorcli's whitelist interpreter, never by Python.")]
