"""Views for people: the result header + tensor, explain tables, `show` statistics.

Plain text (no Rich import) when colour is off, which is the usual case in scripts and pipes;
Rich only when writing to a terminal with colour allowed. Colour is off with --no-color,
NO_COLOR, _TYPER_FORCE_DISABLE_TERMINAL, or when the stream is not a terminal; FORCE_COLOR
turns it on for non-terminals.
"""
from __future__ import annotations

import os
import sys


def use_color(no_color: bool = False, stream=None) -> bool:
    if no_color or os.environ.get("NO_COLOR") or os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def console(no_color: bool = False, *, stderr: bool = False):
    """A Rich Console for commands that render with Rich (colour rules as above, 80 columns off-terminal)."""
    from rich.console import Console
    stream = sys.stderr if stderr else sys.stdout
    color = use_color(no_color, stream)
    return Console(file=stream, no_color=not color, force_terminal=color or None,
                   highlight=color, soft_wrap=False, width=None if color else 80,
                   color_system="auto" if color else None)


def _emit(text: str, *, color: bool, file, style_lines=None):
    if not color:
        file.write(text if text.endswith("\n") else text + "\n")
        return
    from rich.console import Console
    from rich.text import Text
    c = Console(file=file, force_terminal=True, highlight=True, soft_wrap=True)
    for i, line in enumerate(text.rstrip("\n").split("\n")):
        style = (style_lines or {}).get(i)
        c.print(Text(line, style=style) if style else line, markup=False, highlight=style is None)


def shape_str(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def result_text(result, title: str) -> str:
    """'title -> int64 [2, 2]' then the PyTorch-style repr (core summarises large tensors)."""
    from core import Tensor
    if isinstance(result, Tensor):
        return f"{title} -> {result.dtype.name} {shape_str(result.shape)}\n{result!r}"
    if isinstance(result, (tuple, list)):
        fields = getattr(result, "_fields", None)
        lines = [f"{title} -> {len(result)} tensors"]
        for i, r in enumerate(result):
            name = fields[i] if fields else f"[{i}]"
            if isinstance(r, Tensor):
                lines.append(f"{name}: {r.dtype.name} {shape_str(r.shape)}")
                lines.append(repr(r))
            else:
                lines.append(f"{name}: {r!r}")
        return "\n".join(lines)
    return f"{title} -> {result!r}"


def print_result(result, title: str, *, no_color: bool = False, file=None):
    file = sys.stdout if file is None else file
    text = result_text(result, title)
    _emit(text, color=use_color(no_color, file), file=file, style_lines={0: "bold cyan"})


def print_lines(lines, *, no_color: bool = False, file=None, title_style="bold"):
    file = sys.stdout if file is None else file
    _emit("\n".join(lines), color=use_color(no_color, file), file=file, style_lines={0: title_style})


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
