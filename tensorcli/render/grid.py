"""--grid / --svg: the input(s) and the output as 2-D grids of cells (3-D and up: a row of 2-D
slices), each output cell with a label (A, B, ...) and a colour, each input cell listing the labels
of ALL the output cells that read it, each label in its reader's colour. A cell is read when the op
reads it, whatever its weight: a read with weight 0 (a matmul partner that is 0, a conv tap of 0)
is shown `A×0`, never as unread. Cells never read are dimmed ('·'). Without colour the labels keep
it readable. The SVG is self-contained (no web fonts), as wide as the picture, and titled with the
command, its arguments and the rule.
"""
from __future__ import annotations

import io
import re
import string
import sys

import numpy as np
from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from core import Tensor

from . import safe, use_color
from ..services.dependencies import label
from ..services.explain_kinds import g

PALETTE = ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green",
           "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan")
MAX_CELLS = 400


def _label(k):
    letters = string.ascii_uppercase
    return letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26]


def readers(ex):
    """({(operand, coords): [(output number, weight or None)]}, the output cells), from the explain rows
    (a movement row's `from` is {operand: coords}: picked, no weight; a dependency row's is a list of
    {"input", "index", "weight"}, zero weights included)."""
    reads, outs = {}, []
    for k, (row, _) in enumerate(ex.rows):
        out = tuple(row.get("out") or [])
        outs.append(out)
        src = row.get("from")
        if isinstance(src, dict):            # movement rows: {"input": [coords]}
            items = [(name, tuple(c), None) for name, c in src.items() if isinstance(c, list)]
        else:
            items = [(s["input"], tuple(s["index"]), s.get("weight")) for s in (src or [])]
        for name, coords, w in items:
            reads.setdefault((name, coords), []).append((k, w))
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
        t = Table(title=safe.text(f"{name}{suffix}"), show_header=False, show_lines=True, padding=(0, 1))
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
                cell = Text(f"{g(float(val))} ", style=style(ks[0][0]) if len(ks) == 1 else "")
                for i, (k, w) in enumerate(ks):
                    if i:
                        cell.append(",")
                    cell.append(_label(k) + ("×0" if w == 0 else ""), style=style(k))
                return cell
            parts += _grid(lab, np.asarray(t._data), in_cell, color)
    parts += _grid("out", res, out_cell, color)
    legend = Text("each input cell lists every output cell (A, B, ...) that reads it, in that cell's colour; "
                  "A×0: read with weight 0; '·' never read", style="dim")
    return Columns(parts, padding=(0, 3)), legend


def _output(result, ex):
    """The output the rows describe, as an array: the tensor, the `explain_output` of a multi-output
    op, or a Python scalar (equal, allclose) as a 0-d array."""
    if isinstance(result, (tuple, list)):
        result = result[ex.extra.get("explain_output", 0)]
    return np.asarray(result._data) if isinstance(result, Tensor) else np.asarray(result)


def svg_title(call, ex) -> tuple[str, str]:
    """(the command with its non-tensor arguments, 'rule: ...') for the SVG's title."""
    from ..spec import command_name
    args = " ".join(f"--{k.replace('_', '-')} {','.join(map(str, v)) if isinstance(v, list) else v}"
                    for k, v in call.scalars().items() if v is not None)
    cmd = f"tensorcli {command_name(call.info.name)}" + (f" {args}" if args else "")
    return cmd, f"rule: {ex.rule}" if ex.rule else ""


def _svg_format() -> str:
    """Rich's SVG template without its web fonts (@font-face urls): local monospace fonts only, so
    the file shows the same offline; a <title> for viewers and screen readers."""
    from rich._export_format import CONSOLE_SVG_FORMAT
    fmt = re.sub(r"\s*@font-face \{\{.*?\}\}", "", CONSOLE_SVG_FORMAT, flags=re.S)
    fmt = fmt.replace("font-family: Fira Code, monospace;",
                      'font-family: "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace;')
    fmt = fmt.replace("font-family: arial;", "font-family: sans-serif;")
    return fmt.replace('xmlns="http://www.w3.org/2000/svg">',
                       'xmlns="http://www.w3.org/2000/svg">\n    <title>{svg_title}</title>', 1)


def svg_text(call, result, ex) -> str:
    """The picture as a self-contained SVG: heading (command, rule), grids, legend; as wide as they are."""
    from xml.sax.saxutils import escape as xml_escape
    grids, legend = picture(call, result, ex, color=True)
    cmd, rule = svg_title(call, ex)
    heading = [safe.text(cmd, "bold")] + ([safe.text(rule, "bold cyan")] if rule else [])

    def draw(width):
        rec = Console(record=True, width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
        for h in heading:
            rec.print(h)
        rec.print(grids)
        rec.print(legend)
        return rec
    wide = draw(400).export_text(styles=False)
    content = max([len(line.rstrip()) for line in wide.splitlines()
                   if not line.startswith("each input cell")] + [len(cmd), len(rule), 40])
    rec = draw(min(content, 400))
    title = " ".join(filter(None, (cmd, rule)))
    return rec.export_svg(title=safe.clean(cmd), code_format=_svg_format().replace(
        "{svg_title}", xml_escape(safe.clean(title)).replace("{", "{{").replace("}", "}}")))


def over_cap(result) -> bool:
    """True when no output of `result` fits the grid: checked before the explanation is computed."""
    outs = result if isinstance(result, (tuple, list)) else (result,)
    sizes = [int(np.asarray(o._data).size) if isinstance(o, Tensor) else 1 for o in outs]
    return min(sizes, default=1) > MAX_CELLS


def print_grid(call, result, ex, *, no_color=False, file=None, svg=None):
    """Print the picture (Rich); with `svg`, also write it as a self-contained SVG file. ex None: the
    output is over the cap (over_cap), only the line saying so."""
    file = sys.stdout if file is None else file
    if ex is None or _output(result, ex).size > MAX_CELLS:
        file.write(f"--grid draws at most {MAX_CELLS} output cells\n")
        return
    color = use_color(no_color, file)
    grids, legend = picture(call, result, ex, color=color)
    c = Console(file=file, force_terminal=color or None, no_color=not color, width=None if color else 120)
    c.print(grids)
    c.print(legend)
    if svg is not None:
        with open(svg, "w", encoding="utf-8") as fh:
            fh.write(svg_text(call, result, ex))
