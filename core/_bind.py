"""The one place that attaches methods, properties, operators and in-place variants to Tensor.

Op modules record what Tensor should have in `ops.registry.METHODS` (through `register(methods=...,
inplace=...)`, `registry.method(...)` and `registry.add_inplace(...)`); `bind()` runs once, from
core/__init__, after every op module has been imported."""
from __future__ import annotations

from .ops import registry
from .tensor import Tensor


def bind():
    for name, value in registry.METHODS.items():
        if name not in Tensor.__dict__:   # TRANSITIONAL: modules that still attach directly keep theirs
            setattr(Tensor, name, value)
    registry.install_operator_guards()
