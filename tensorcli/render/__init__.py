"""Every piece of output for people (Rich lives here and only here): the result header + tensor,
explain tables, `show` statistics, the autograd / memory / check views (submodules).

Plain text (no Rich import) when colour is off, which is the usual case in scripts and pipes;
Rich only when writing to a terminal with colour allowed. Colour is off with --no-color,
NO_COLOR, _TYPER_FORCE_DISABLE_TERMINAL, or when the stream is not a terminal; FORCE_COLOR
turns it on for non-terminals.
"""
from __future__ import annotations

import os
import sys

from ..services.text import fmt_value, shape_str, table_lines  # noqa: F401 - part of render's API


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
    """Plain lines piped; on a terminal the same lines, line k styled `style_lines[k]`, the others
    highlighted as Rich highlights reprs. Control characters shown escaped both ways (render/safe.py)."""
    from . import safe
    text = safe.clean(text, lines=True)
    if not color:
        file.write(text if text.endswith("\n") else text + "\n")
        return
    from rich.console import Console
    c = Console(file=file, force_terminal=True, highlight=False, soft_wrap=True)
    for i, line in enumerate(text.rstrip("\n").split("\n")):
        style = (style_lines or {}).get(i)
        c.print(safe.text(line, style, lines=True, highlight=style is None))


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


def stats_lines(t, s) -> list[str]:
    """`tensorcli show`: header, min/max/mean/std (of finite values), NaN/Inf counts, the tensor."""
    lines = [f"tensor {t.dtype.name} {shape_str(t.shape)} ({s['numel']} elements)"]
    if s["min"] is not None:
        label = " (finite values)" if s["nan"] or s["inf"] else ""
        lines.append(f"min {fmt_value(s['min'])}  max {fmt_value(s['max'])}  "
                     f"mean {s['mean']:.6g}  std {s['std']:.6g}{label}")
    if t.dtype.is_floating_point:
        lines.append(f"nan {s['nan']}  inf {s['inf']}")
    lines.append(repr(t))
    return lines
