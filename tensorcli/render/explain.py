"""The --explain / --backward / --dim all views.

Piped, they are aligned plain text. On a terminal they are the same lines, coloured (the title bold,
the rule, each row's `out[...]`), and a line wider than the terminal is broken at spaces with a
hanging indent (render/safe.py), never inside a formula's word: a formula reads on a terminal exactly
as it reads piped. All data goes through render/safe.py (Rich never sees `out[i][j]` as markup)."""
from __future__ import annotations

import re
import sys

from ..services.text import table_lines
from . import safe, use_color


def _left(n_left, what="row"):
    return f"... {n_left} more {what}{'s' if n_left != 1 else ''} left out (--max-rows 0 shows all)"


def explain_lines(ex, max_rows=40) -> list[str]:
    """Text lines of an Explanation (services/explain.py), at most `max_rows` rows (0: all)."""
    out = [ex.header, f"rule: {ex.rule}" if ex.rule else
           "rule: (no formula registered; rows come from running the op)"]
    rows = ex.rows if not max_rows else ex.rows[:max_rows]
    if ex.columns:
        out += table_lines([[r[1][1], r[1][2] if r[1][2].startswith("reads") else "reads: " + r[1][2]]
                            for r in rows], sep="  ")   # the rule names out[...]
    else:
        out += table_lines([r[1] for r in rows], sep=" ")
    if not ex.total:
        out.append("(nothing to show: no elements)")
    left = ex.total - len(rows)
    if left > 0:
        out.append(_left(left))
    out += ex.notes
    return [safe.clean(line) for line in out]


_LHS = re.compile(r"^((?:out|src|grad_\w+)(?:\[-?\d+\])*)")
_READS = re.compile(r"\s(reads(?: \([^)]*\))?: .*)$")


def _styled(line: str, role: str):
    """One line as Rich Text: the title bold, the rule line bold cyan ('rule:' dim), a row's left-hand
    side cyan and its 'reads:' column green, notes dim."""
    t = safe.text(line)
    if role == "title":
        t.stylize("bold")
    elif role == "rule":
        t.stylize("dim", 0, 5)
        t.stylize("bold cyan", 5)
    elif role == "row":
        m = _LHS.match(line)
        if m:
            t.stylize("cyan", 0, m.end())
        m = _READS.search(line)
        if m:
            t.stylize("green", m.start(1))
    elif role == "note":
        t.stylize("dim")
    return t


def print_styled(lines, roles, *, file) -> None:
    """Print plain `lines` on a terminal: each one styled by its role and, when wider than the
    terminal, broken at spaces with a hanging indent (the continuation keeps the role's style)."""
    from rich.console import Console   # Rich only on a terminal
    c = Console(file=file, force_terminal=True, highlight=False, soft_wrap=True)
    width = c.width
    for line, role in zip(lines, roles):
        pieces = safe.wrap_line(line, width)
        if len(pieces) == 1:
            c.print(_styled(line, role))
            continue
        # style the whole line, then cut the styled Text at the pieces' offsets
        whole = _styled(line, role)
        pos = 0
        for k, piece in enumerate(pieces):
            body = piece[len(safe.INDENT):] if k else piece
            start = line.index(body, pos) if body else pos
            part = whole[start:start + len(body)]
            pos = start + len(body)
            if k:
                part = safe.text(safe.INDENT) + part
            c.print(part)


def _roles(lines, n_rows, head=2):
    return ["title", "rule"][:head] + ["row"] * n_rows + ["note"] * (len(lines) - head - n_rows)


def print_explanation(ex, *, max_rows=40, no_color=False, file=None):
    file = sys.stdout if file is None else file
    lines = explain_lines(ex, max_rows=max_rows)
    if not use_color(no_color, file):
        file.write("\n".join(lines) + "\n")
        return
    n_rows = len(ex.rows if not max_rows else ex.rows[:max_rows])
    print_styled(lines, _roles(lines, n_rows), file=file)


def backward_lines(bw, max_rows=40) -> list[str]:
    ops = ", ".join(bw["grad_ops"])
    if bw["grad_fn"] is None:
        head = "backward: the result is the input itself (no grad_fn): the gradient passes through unchanged"
    elif not ops:
        head = (f"backward: torch records grad_fn={bw['grad_fn']}; the gradient records no node under "
                "create_graph=True (it is grad_out itself, or a constant)")
    else:
        head = (f"backward: torch records grad_fn={bw['grad_fn']}; the gradient is computed by {ops} "
                f"({', '.join(bw['grad_computed_by'])} under create_graph=True)")
    out = [head]
    rows = bw["rows"] if not max_rows else bw["rows"][:max_rows]
    out += table_lines([[line[1]] for _, line in rows])
    if bw["total"] > len(rows):
        out.append(_left(bw["total"] - len(rows)))
    return [safe.clean(line) for line in out]


def print_backward(bw, *, max_rows=40, no_color=False, file=None):
    file = sys.stdout if file is None else file
    lines = backward_lines(bw, max_rows)
    if not use_color(no_color, file):
        file.write("\n".join(lines) + "\n")
        return
    n_rows = len(bw["rows"] if not max_rows else bw["rows"][:max_rows])
    print_styled(lines, _roles(lines, n_rows, head=1), file=file)


def dims_lines(columns) -> list[str]:
    """--dim all as text: one column per dim (its result and rules, or its error), side by side."""
    height = max(len(lines) for _, lines in columns) + 1
    cols = [[f"dim={dim}"] + lines + [""] * (height - 1 - len(lines)) for dim, lines in columns]
    return [safe.clean(line) for line in table_lines([list(r) for r in zip(*cols)], sep=" | ")]


def print_dims(columns, *, no_color=False, file=None):
    """--dim all: the dims side by side when they fit (always when piped); on a terminal too narrow
    for that, one dim under the other, so that no formula is cut."""
    file = sys.stdout if file is None else file
    lines = dims_lines(columns)
    if not use_color(no_color, file):
        file.write("\n".join(lines) + "\n")
        return
    from rich.console import Console   # Rich only on a terminal
    width = Console(file=file, force_terminal=True).width
    if max(len(line) for line in lines) <= width:
        print_styled(lines, ["title"] + ["plain"] * (len(lines) - 1), file=file)
        return
    out, roles = [], []
    for dim, col in columns:
        if out:
            out.append("")
            roles.append("plain")
        out += [safe.clean(f"dim={dim}")] + [safe.clean(line) for line in col]
        roles += ["title"] + ["rule" if line.startswith("rule: ") else "row" if _LHS.match(line) else "plain"
                             for line in col]
    print_styled(out, roles, file=file)
