"""Plain-text formatting shared by services (explain rows) and render: numbers as PyTorch prints
them, shapes, aligned columns. No Rich."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_KEEP_TAB = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _show(m) -> str:
    c = m.group(0)
    if c in _NAMED:
        return _NAMED[c]
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def printable(s, *, lines: bool = False) -> str:
    """`s` with every control character shown as an escape (`\\x1b`, `\\r`, `\\t`), so data cannot
    move the cursor or restyle a terminal; with `lines`, newlines and tabs are kept (several lines).
    The one escaping of data for people (render/safe.py, errors.py use it)."""
    s = str(s)
    if lines:
        return _CONTROL_KEEP_TAB.sub(_show, s)
    return _CONTROL.sub(_show, s.replace("\n", "\\n"))


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
