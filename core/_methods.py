"""The table of Tensor attributes defined outside tensor.py: name -> function, property or descriptor.

Modules at every level (autograd, the op families, factories, printing) record their Tensor methods
here instead of setting attributes on Tensor; `core/_bind.py` attaches the whole table once, from
core/__init__, after every module has been imported. This module imports nothing, so any module may
use it without an import cycle."""
from __future__ import annotations

METHODS: dict[str, object] = {}


def method(name, value=None):
    """Record `Tensor.<name> = value` for the binding step (usable as a decorator: `@method("t_")`)."""
    if value is None:
        return lambda v: method(name, v)
    METHODS[name] = value
    return value
