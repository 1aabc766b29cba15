"""The op listing of `tensorcli ops`: every registry entry with a command, its meaning and formula."""
from __future__ import annotations

from core.ops.registry import OPS

from ..spec import command_name, rule_text


def listing(*, ndim=2, dim=1, category=None, include_all=False) -> list[dict]:
    """Rows (command, op, category, kind, summary, rule for ndim/dim) sorted by category and op."""
    rows = []
    for name, info in OPS.items():
        if not (info.cli or include_all):
            continue
        if category and info.category != category:
            continue
        rows.append({"command": command_name(name) if info.cli else None, "op": name,
                     "category": info.category, "kind": info.kind, "summary": info.summary,
                     "rule": rule_text(info, ndim, dim)})
    rows.sort(key=lambda r: (r["category"], r["op"]))
    return rows
