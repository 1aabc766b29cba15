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
    """--max-bytes (or TENSORCLI_MAX_BYTES) becomes core's allocation limit as soon as it is parsed,
    before the command loads a tensor (services/limits.py)."""
    if value is not None:
        from tensorcli.services import limits   # stdlib only; here to keep this module typer-only
        limits.apply(limits.parse_size(value))
    return value


MaxBytesOpt = Annotated[Optional[str], typer.Option(
    "--max-bytes", metavar="SIZE", envvar="TENSORCLI_MAX_BYTES", callback=_apply_max_bytes, show_default=False,
    help="Refuse any single allocation above SIZE (e.g. 2GiB, 512MiB, 1000000). "
         "Default: half of physical memory.")]
FullDataOpt = Annotated[bool, typer.Option(
    "--full-data", help="With --json: every element, even above the summary threshold "
                        "(TENSORCLI_JSON_MAX_ELEMENTS, default 10000).")]
QuietOpt = Annotated[bool, typer.Option(
    "-q", "--quiet", help="No progress bars or notes on stderr (errors still print).")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show where each output element comes from.")]
AtOpt = Annotated[Optional[str], typer.Option(
    "--at", metavar="I,J", help="Explain one output element (implies --explain).")]
ProgramFileOpt = Annotated[Optional[str], typer.Option(
    "-f", "--file", metavar="FILE",
    help="Run the program in FILE (- for stdin) instead of EXPR: PyTorch code with def, class, with, for, "
         "print... run by tensorcli's whitelist interpreter, never by Python.")]
