"""The op listing of `tensorcli ops`: every registry entry with a command, its meaning and formula."""
from __future__ import annotations

from core.ops.registry import OPS

from ..spec import command_name, rule_text


def listing(*, ndim=2, dim=1, category=None, include_all=False) -> list[dict]:
    """Rows (command, op, category, kind, summary, rule for ndim/dim, and for an op without a command
    its registration's `cli_reason`) sorted by category and op."""
    rows = []
    for name, info in OPS.items():
        if not (info.cli or include_all):
            continue
        if category and info.category != category:
            continue
        reason = None if info.cli else info.extras.get("cli_reason") or "no command registered (no cli_reason given)"
        summary = info.summary if info.cli else f"{info.summary} [no command: {reason}]"
        rows.append({"command": command_name(name) if info.cli else None, "op": name,
                     "category": info.category, "kind": info.kind, "summary": summary,
                     "rule": rule_text(info, ndim, dim), "cli_reason": reason})
    rows.sort(key=lambda r: (r["category"], r["op"]))
    return rows
