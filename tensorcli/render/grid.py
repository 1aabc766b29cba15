"""--grid / --svg: the input(s) and the output as 2-D grids of cells (3-D and up: a row of 2-D
slices), each output cell with a label (A, B, ...) and a colour, each input cell coloured like the
output cell(s) that read it and listing their labels; cells never read are dimmed ('·'), cells read
by several output cells are marked '*'. Without colour the labels keep it readable."""
from __future__ import annotations

import io
import string
import sys

import numpy as np
from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from core import Tensor

from . import use_color
from ..services.dependencies import label
from ..services.explain_kinds import g

PALETTE = ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green",
           "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan")
MAX_CELLS = 400


def _label(k):
    letters = string.ascii_uppercase
    return letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26]


def readers(ex):
    """{(operand, coords): [output flat number]} and the output cells, from the explain rows."""
    reads, outs = {}, []
    for k, (row, _) in enumerate(ex.rows):
        out = tuple(row.get("out") or [])
        outs.append(out)
        src = row.get("from")
        if isinstance(src, dict):            # movement rows: {"input": [coords]}
            items = [(name, tuple(c)) for name, c in src.items() if isinstance(c, list)]
        else:
            items = [(s["input"], tuple(s["index"])) for s in (src or [])]
        for item in items:
            reads.setdefault(item, []).append(k)
    return reads, outs


def _slices(arr):
    """[(title suffix, 2-D array)]: 0-D/1-D as one row, 3-D and up as 2-D slices over leading dims."""
    a = np.asarray(arr)
    if a.ndim <= 2:
        return [("", a.reshape(1, -1) if a.ndim < 2 else a)]
    lead = a.shape[:-2]
    return [("[" + "][".join(map(str, i)) + "]", a[i]) for i in np.ndindex(*lead)]


def _coords(arr_ndim, lead, r, c):
    if arr_ndim == 0:
        return ()
    if arr_ndim == 1:
        return (c,)
    return tuple(lead) + (r, c)


def _grid(name, arr, cell_text, color):
    a = np.asarray(arr)
    tables = []
    for k, (suffix, sl) in enumerate(_slices(a)):
        lead = list(np.ndindex(*a.shape[:-2]))[k] if a.ndim > 2 else ()
        t = Table(title=f"{name}{suffix}", show_header=False, show_lines=True, padding=(0, 1))
        for _ in range(sl.shape[1]):
            t.add_column(justify="center")
        for r in range(sl.shape[0]):
            t.add_row(*[cell_text(_coords(a.ndim, lead, r, c), sl[r, c], color) for c in range(sl.shape[1])])
        tables.append(t)
    return tables


def picture(call, result, ex, color=True):
    """The grids (Rich renderables) for one explained call: the inputs first, then the output."""
    reads, outs = readers(ex)
    out_label = {o: k for k, o in enumerate(outs)}
    res = _output(result, ex)

    def style(k):
        return PALETTE[k % len(PALETTE)] if color else None

    def out_cell(coords, v, color):
        k = out_label.get(tuple(coords))
        if k is None:
            return Text(g(float(v)))
        return Text(f"{_label(k)}:{g(float(v))}", style=style(k))

    parts = []
    for name, v in call.values.items():
        tensors = [(label(call, name), v)] if isinstance(v, Tensor) else (
            [(label(call, name, i), t) for i, t in enumerate(v)]
            if isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor) else [])
        for lab, t in tensors:
            if not any(key[0] == lab for key in reads):
                continue

            def in_cell(coords, val, color, lab=lab):
                ks = reads.get((lab, tuple(coords)), [])
                if not ks:
                    return Text(f"{g(float(val))} ·", style="dim")
                mark = "*" if len(ks) > 1 else ""
                names = ",".join(_label(k) for k in ks[:3]) + ("…" if len(ks) > 3 else "")
                return Text(f"{g(float(val))} {names}{mark}", style=style(ks[0]))
            parts += _grid(lab, np.asarray(t._data), in_cell, color)
    parts += _grid("out", res, out_cell, color)
    legend = Text("each input cell lists the output cells (A, B, ...) that read it; '·' never read; "
                  "'*' read by several", style="dim")
    return Columns(parts, padding=(0, 3)), legend


def _output(result, ex):
    """The output the rows describe, as an array: the tensor, the `explain_output` of a multi-output
    op, or a Python scalar (equal, allclose) as a 0-d array."""
    if isinstance(result, (tuple, list)):
        result = result[ex.extra.get("explain_output", 0)]
    return np.asarray(result._data) if isinstance(result, Tensor) else np.asarray(result)


def over_cap(result) -> bool:
    """True when no output of `result` fits the grid: checked before the explanation is computed."""
    outs = result if isinstance(result, (tuple, list)) else (result,)
    sizes = [int(np.asarray(o._data).size) if isinstance(o, Tensor) else 1 for o in outs]
    return min(sizes, default=1) > MAX_CELLS


def print_grid(call, result, ex, *, no_color=False, file=None, svg=None):
    """Print the picture (Rich); with `svg`, also write it as SVG (Rich's export). ex None: the
    output is over the cap (over_cap), only the line saying so."""
    file = sys.stdout if file is None else file
    if ex is None or _output(result, ex).size > MAX_CELLS:
        file.write(f"--grid draws at most {MAX_CELLS} output cells\n")
        return
    color = use_color(no_color, file)
    grids, legend = picture(call, result, ex, color=color or svg is not None)
    c = Console(file=file, force_terminal=color or None, no_color=not color, width=None if color else 120)
    c.print(grids)
    c.print(legend)
    if svg is not None:
        rec = Console(record=True, width=120, file=io.StringIO(), force_terminal=True)
        rec.print(grids)
        rec.print(legend)
        rec.save_svg(svg, title=f"tensorcli {call.info.name}")
