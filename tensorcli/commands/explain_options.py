"""The op commands' explain options beyond the shared --explain / --at / --max-rows
(commands/options.py): the backward as a mapping, and the picture."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

BackwardOpt = Annotated[bool, typer.Option(
    "--backward", help="Show the gradient as a mapping: grad_input[idx] = Σ grad_out[o]·weight, the grad_fn "
                       "torch records and the op computing the gradient.")]
GradOutputOpt = Annotated[Optional[str], typer.Option(
    "--grad-output", metavar="TENSOR", help="The gradient flowing into the output for --backward (default: ones).")]
GridOpt = Annotated[bool, typer.Option(
    "--grid", help="Draw the input(s) and the output as 2-D grids: each input cell coloured like the output "
                   "cells that read it.")]
SvgOpt = Annotated[Optional[str], typer.Option(
    "--svg", metavar="FILE", help="Write the --grid picture as SVG to FILE.")]
