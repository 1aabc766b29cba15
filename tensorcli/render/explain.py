"""The --explain table of an op command: header, rule, one aligned row per output element, notes."""
from __future__ import annotations

from ..services.text import table_lines


def explain_lines(ex, max_rows=40) -> list[str]:
    """Text lines of an Explanation (services/explain.py), at most `max_rows` rows (0: all)."""
    out = [ex.header, f"rule: {ex.rule}" if ex.rule else
           "rule: (no formula registered; rows come from running the op)"]
    rows = ex.rows if not max_rows else ex.rows[:max_rows]
    out += table_lines([r[1] for r in rows], sep=" ")
    if not ex.total:
        out.append("(nothing to show: no elements)")
    left = ex.total - len(rows)
    if left > 0:
        out.append(f"... {left} more row{'s' if left != 1 else ''} left out (--max-rows 0 shows all)")
    out += ex.notes
    return out
