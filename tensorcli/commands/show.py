"""`tensorcli show TENSOR`: shape, dtype, statistics and the values of one tensor."""
from __future__ import annotations

from typing import Annotated

import typer

from tensorcli.commands.options import (DebugOpt, DtypeOpt, FullDataOpt, JsonOpt, MaxBytesOpt, NoColorOpt, OutOpt,
                                        QuietOpt)

HELP = """Print a tensor with its shape, dtype, min/max/mean/std and NaN/Inf counts.

Examples:

  tensorcli show '[[1,2,3],[4,5,6]]'
  tensorcli show data.npz:weights --dtype float64
  tensorcli gather x.npy --dim 1 --index i.npy -o - | tensorcli show -
  tensorcli show '[[1,2],[3,4]]' -o x.npy        (convert JSON to .npy)

TENSOR: a JSON literal, a .npy/.npz[:key]/.json path, or - for stdin.
Statistics are over the finite values; std is PyTorch's (unbiased, correction=1).
"""


def register(app):
    @app.command("show", help=HELP, rich_help_panel="inspect")
    def show(tensor: Annotated[str, typer.Argument(metavar="TENSOR", show_default=False,
                                                   help="JSON literal, .npy/.npz[:key]/.json path, or -.")],
             dtype: DtypeOpt = None, out: OutOpt = None, json_: JsonOpt = False,
             full_data: FullDataOpt = False, max_bytes: MaxBytesOpt = None,
             debug: DebugOpt = False, no_color: NoColorOpt = False, quiet: QuietOpt = False):
        import sys
        from tensorcli import io, render
        from tensorcli.errors import CliError
        from tensorcli.services.show import stats
        if json_ and out == "-":
            raise CliError("--json", "cannot be combined with -o - (both write to stdout)")
        t = io.load_tensor(tensor, arg="TENSOR", dtype=dtype, stdin_used=[])
        from tensorcli.render.progress import progress_bar   # stdlib only; Rich once a bar shows
        with progress_bar("show", no_color=no_color) as update:
            s = stats(t, progress=update)
        if json_:
            from tensorcli.services import vocab
            with vocab.full_data(full_data):
                obj = {"stats": {k: io.json_scalar(v) for k, v in s.items()}, "result": vocab.result_json(t)}
            sys.stdout.write(io.dumps(vocab.envelope("show", obj)) + "\n")
            return
        if out is not None:
            io.save_result(t, out)
            if out == "-":
                return
        render.print_lines(render.stats_lines(t, s), no_color=no_color, file=sys.stdout if out is None else sys.stderr)
