"""The --explain / --backward / --dim all views: a Rich table on a terminal (output position | rule
with concrete indices | inputs read, with weights | value), aligned plain text otherwise."""
from __future__ import annotations

import sys

from ..services.text import table_lines
from . import use_color

HEADERS = ("out", "rule", "inputs read", "value")


def _left(n_left, what="row"):
    return f"... {n_left} more {what}{'s' if n_left != 1 else ''} left out (--max-rows 0 shows all)"


def explain_lines(ex, max_rows=40) -> list[str]:
    """Text lines of an Explanation (services/explain.py), at most `max_rows` rows (0: all)."""
    out = [ex.header, f"rule: {ex.rule}" if ex.rule else
           "rule: (no formula registered; rows come from running the op)"]
    rows = ex.rows if not max_rows else ex.rows[:max_rows]
    if ex.columns:
        out += table_lines([[r[1][1], "reads: " + r[1][2]] for r in rows], sep="  ")   # the rule names out[...]
    else:
        out += table_lines([r[1] for r in rows], sep=" ")
    if not ex.total:
        out.append("(nothing to show: no elements)")
    left = ex.total - len(rows)
    if left > 0:
        out.append(_left(left))
    out += ex.notes
    return out


def _row_cells(ex, line, row):
    if ex.columns:
        return line
    pos = row.get("out", row.get("src"))
    pos = "".join(f"[{c}]" for c in pos) if isinstance(pos, list) else ""
    src = row.get("from")
    reads = ", ".join(f"{k}{''.join(f'[{c}]' for c in v)}" for k, v in src.items()
                      if isinstance(v, list)) if isinstance(src, dict) else ""
    value = row.get("value")
    return [("out" if "out" in row else "src") + pos, " ".join(line), reads, "" if value is None else str(value)]


def explain_table(ex, max_rows=40, title=None):
    """A Rich Table of an Explanation (or of --backward rows when `ex` is a dict from services)."""
    from rich.table import Table  # Rich only when drawing on a terminal
    t = Table(title=title or ex.header, caption=f"rule: {ex.rule}" if ex.rule else None, show_lines=False)
    for h, style in zip(HEADERS, ("cyan", "", "green", "bold")):
        t.add_column(h, style=style or None, overflow="fold")
    rows = ex.rows if not max_rows else ex.rows[:max_rows]
    for row, line in rows:
        t.add_row(*_row_cells(ex, line, row))
    return t, ex.total - len(rows)


def print_explanation(ex, *, max_rows=40, no_color=False, file=None):
    file = sys.stdout if file is None else file
    if not use_color(no_color, file):
        file.write("\n".join(explain_lines(ex, max_rows=max_rows)) + "\n")
        return
    from rich.console import Console   # Rich only on a terminal
    c = Console(file=file, force_terminal=True)
    t, left = explain_table(ex, max_rows)
    c.print(t)
    for note in ([_left(left)] if left > 0 else []) + list(ex.notes):
        c.print(note, markup=False, highlight=False)


def backward_lines(bw, max_rows=40) -> list[str]:
    ops = ", ".join(bw["grad_ops"]) or "(no node: a leaf copy)"
    if bw["grad_fn"] is None:
        head = "backward: the result is the input itself (no grad_fn): the gradient passes through unchanged"
    else:
        head = (f"backward: torch records grad_fn={bw['grad_fn']}; the gradient is computed by {ops} "
                f"({', '.join(bw['grad_computed_by'])})")
    out = [head]
    rows = bw["rows"] if not max_rows else bw["rows"][:max_rows]
    out += table_lines([[line[1]] for _, line in rows])
    if bw["total"] > len(rows):
        out.append(_left(bw["total"] - len(rows)))
    return out


def print_backward(bw, *, max_rows=40, no_color=False, file=None):
    file = sys.stdout if file is None else file
    lines = backward_lines(bw, max_rows)
    if not use_color(no_color, file):
        file.write("\n".join(lines) + "\n")
        return
    from rich.console import Console   # Rich only on a terminal
    from rich.table import Table
    t = Table(title=lines[0])
    for h, style in zip(("gradient of", "rule", "grad_out read (weight)", "value"), ("cyan", "", "green", "bold")):
        t.add_column(h, style=style or None, overflow="fold")
    rows = bw["rows"] if not max_rows else bw["rows"][:max_rows]
    for _, line in rows:
        t.add_row(*line)
    c = Console(file=file, force_terminal=True)
    c.print(t)
    if bw["total"] > len(rows):
        c.print(_left(bw["total"] - len(rows)), markup=False, highlight=False)


def print_dims(columns, *, no_color=False, file=None):
    """--dim all: one column per dim (its result and rules, or its error), side by side."""
    file = sys.stdout if file is None else file
    if not use_color(no_color, file):
        height = max(len(lines) for _, lines in columns) + 1
        cols = [[f"dim={dim}"] + lines + [""] * (height - 1 - len(lines)) for dim, lines in columns]
        file.write("\n".join(table_lines([list(r) for r in zip(*cols)], sep=" | ")) + "\n")
        return
    from rich.console import Console   # Rich only on a terminal
    from rich.table import Table
    t = Table(show_lines=False)
    for dim, _ in columns:
        t.add_column(f"dim={dim}", overflow="fold")
    t.add_row(*["\n".join(lines) for _, lines in columns])
    Console(file=file, force_terminal=True).print(t)
