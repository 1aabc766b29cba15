"""`tensorcli show TENSOR`: shape, dtype, statistics and the values of one tensor."""
from __future__ import annotations

from typing import Annotated

import typer

from . import DebugOpt, DtypeOpt, JsonOpt, NoColorOpt, OutOpt

HELP = """Print a tensor with its shape, dtype, min/max/mean/std and NaN/Inf counts.

Examples:

  tensorcli show '[[1,2,3],[4,5,6]]'
  tensorcli show data.npz:weights --dtype float64
  tensorcli gather x.npy --dim 1 --index i.npy -o - | tensorcli show -
  tensorcli show '[[1,2],[3,4]]' -o x.npy        (convert JSON to .npy)

TENSOR: a JSON literal, a .npy/.npz[:key]/.json path, or - for stdin.
Statistics are over the finite values; std is PyTorch's (unbiased, correction=1).
"""


def stats(t) -> dict:
    """min/max/mean/std over finite values (std unbiased, like torch.std), NaN/Inf counts."""
    import numpy as np
    a = np.asarray(t._data)
    out = {"shape": list(a.shape), "dtype": t.dtype.name, "numel": int(a.size),
           "nan": 0, "inf": 0, "min": None, "max": None, "mean": None, "std": None}
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        inf = np.isinf(a)
        out["nan"], out["inf"] = int(nan.sum()), int(inf.sum())
        a = a[~(nan | inf)]
    if a.size == 0:
        return out
    if a.dtype == np.bool_:
        out["min"], out["max"] = bool(a.min()), bool(a.max())
    else:
        out["min"], out["max"] = a.min().item(), a.max().item()
    f = a.astype(np.float64)
    out["mean"] = float(f.mean())
    out["std"] = float(f.std(ddof=1)) if f.size > 1 else float("nan")
    return out


def register(app):
    @app.command("show", help=HELP, rich_help_panel="inspect")
    def show(tensor: Annotated[str, typer.Argument(metavar="TENSOR", show_default=False,
                                                   help="JSON literal, .npy/.npz[:key]/.json path, or -.")],
             dtype: DtypeOpt = None, out: OutOpt = None, json_: JsonOpt = False,
             debug: DebugOpt = False, no_color: NoColorOpt = False):
        import sys
        from tensorcli import io, render
        from tensorcli.errors import CliError
        if json_ and out == "-":
            raise CliError("--json", "cannot be combined with -o - (both write to stdout)")
        t = io.load_tensor(tensor, arg="TENSOR", dtype=dtype, stdin_used=[])
        s = stats(t)
        if json_:
            obj = {"op": "show", "stats": {k: io.json_scalar(v) for k, v in s.items()},
                   "result": io.result_json(t)}
            sys.stdout.write(io.dumps(obj) + "\n")
            return
        if out is not None:
            io.save_result(t, out)
            if out == "-":
                return
        lines = [f"tensor {t.dtype.name} {render.shape_str(t.shape)} ({s['numel']} elements)"]
        if s["min"] is not None:
            label = " (finite values)" if s["nan"] or s["inf"] else ""
            lines.append(f"min {render.fmt_value(s['min'])}  max {render.fmt_value(s['max'])}  "
                         f"mean {s['mean']:.6g}  std {s['std']:.6g}{label}")
        if t.dtype.is_floating_point:
            lines.append(f"nan {s['nan']}  inf {s['inf']}")
        lines.append(repr(t))
        render.print_lines(lines, no_color=no_color, file=sys.stdout if out is None else sys.stderr)
