"""Plain-text formatting shared by services (explain rows) and render: numbers as PyTorch prints
them, shapes, aligned columns. No Rich."""
from __future__ import annotations


def shape_str(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def table_lines(rows, *, sep="  ") -> list[str]:
    """Left-aligned columns; rows are lists of strings (ragged rows allowed)."""
    if not rows:
        return []
    n = max(len(r) for r in rows)
    widths = [max((len(r[i]) for r in rows if i < len(r)), default=0) for i in range(n)]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)]
        out.append(sep.join(cells).rstrip())
    return out


def fmt_value(v) -> str:
    """A Python number as PyTorch prints single elements (3, 2.5000 -> 2.5, True, nan, inf)."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        if v == int(v) and abs(v) < 1e16:
            return f"{int(v)}."
        return f"{v:.6g}"
    return str(v)
