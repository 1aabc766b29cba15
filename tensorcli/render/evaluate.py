"""`tensorcli eval`'s output for people: a header line like the op commands' (``EXPR -> float32 [2, 2]``)
then the value as PyTorch prints it (core's repr for tensors, Python's repr for the rest)."""
from __future__ import annotations

import sys

from . import _emit, use_color
from ..services.text import shape_str


def eval_text(source: str, result, kind: str, names=None) -> str:
    """Header + value. ``names``: the tensors' names for a tuple result (services.evaluate.item_names)."""
    title = " ".join(source.split())
    if kind == "tensor":
        return f"{title} -> {result.dtype.name} {shape_str(result.shape)}\n{result!r}"
    if kind == "tensors":
        lines = [f"{title} -> {len(result)} tensors"]
        for name, t in zip(names, result):
            lines += [f"{name}: {t.dtype.name} {shape_str(t.shape)}", repr(t)]
        return "\n".join(lines)
    label = "torch.Size" if kind == "size" else type(result).__name__
    return f"{title} -> {label}\n{result!r}"


def print_eval(source: str, result, kind: str, names=None, *, no_color: bool = False, file=None):
    file = sys.stdout if file is None else file
    _emit(eval_text(source, result, kind, names), color=use_color(no_color, file), file=file,
          style_lines={0: "bold cyan"})
