"""The op listing of `tensorcli ops`: every registry entry with a command, its meaning and formula."""
from __future__ import annotations

from .. import opspec
from ..spec import command_name, rule_text

# The default listing (2-D formulas with dim=1) is precomputed in tensorcli/commands/op_table.py
# (LISTING), so that `tensorcli ops` does not import core.
DEFAULT_NDIM, DEFAULT_DIM = 2, 1


def all_rows(ndim=DEFAULT_NDIM, dim=DEFAULT_DIM) -> list[dict]:
    """Rows (command, op, category, kind, summary, rule for ndim/dim, and for an op without a command
    its opspec entry's reason) of every registry entry, sorted by category and op."""
    from core.ops.registry import OPS   # imports core (~16 ms): only when no precomputed listing applies
    rows = []
    for name, info in list(OPS.items()):   # (a lazy entry read below imports its family: OPS may grow)
        e, cli = opspec.entry(name), opspec.is_command(name)
        reason = None if cli else getattr(e, "reason", None) or "no command (no reason in tensorcli/opspec/)"
        summary = info.summary if cli else f"{info.summary} [no command: {reason}]"
        rows.append({"command": command_name(name) if cli else None, "op": name,
                     "category": info.category, "kind": info.kind, "summary": summary,
                     "rule": rule_text(info, ndim, dim), "cli_reason": reason})
    rows.sort(key=lambda r: (r["category"], r["op"]))
    return rows


def listing(*, ndim=DEFAULT_NDIM, dim=DEFAULT_DIM, category=None, include_all=False, precomputed=None) -> list[dict]:
    """The rows `tensorcli ops` shows: ops with a command (every op with `include_all`), of one category
    if given. `precomputed`: all_rows() for the default ndim/dim, read from the generated table."""
    use = precomputed is not None and (ndim, dim) == (DEFAULT_NDIM, DEFAULT_DIM)
    rows = precomputed if use else all_rows(ndim, dim)
    return [r for r in rows
            if (r["command"] is not None or include_all) and (not category or r["category"] == category)]
