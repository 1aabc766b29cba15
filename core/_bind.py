"""The one place that attaches methods, properties, operators and in-place variants to Tensor.

Op modules record what Tensor should have in `ops.registry.METHODS` (through `register(methods=...,
inplace=...)`, `registry.method(...)` and `registry.add_inplace(...)`); `bind()` runs once, from
core/__init__, after every op module has been imported."""
from __future__ import annotations

import numpy as np

from .ops import registry
from .tensor import Tensor


# torch exposes these in-place methods as functions too (`torch.sin_(x)`, `torch.zero_(x)`).
INPLACE_FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ asin_ asinh_ atan_ "
    "atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ "
    "fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ "
    "negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ "
    "trunc_ xlogy_ zero_").split()


def bind():
    """Attach every recorded attribute (a lazy unit's are placeholders: registry.LazyAttribute)
    and register the hook that attaches a lazy family's real attributes once it is imported."""
    for name, value in registry.METHODS.items():
        setattr(Tensor, name, value)
    _install_operator_guards()
    for name in INPLACE_FUNCTIONS:
        fn = registry.METHODS[name] if name in registry.METHODS else getattr(Tensor, name, None)
        if isinstance(fn, registry.LazyAttribute):
            fn = registry.lazy_function(fn.module, name, registry.METHODS)
        if fn is not None:
            registry.FUNCTIONS.setdefault(name, fn)
    registry.ON_LOAD.append(bind_family)


_BOUND_FAMILIES = set()


def bind_family(module):
    """After a lazy unit's import (core/ops/families.py): its real methods replace their placeholders
    on Tensor, and torch.<name>_ aliases of its in-place methods become the real functions."""
    if module in _BOUND_FAMILIES:
        return
    done = True
    for name, owner in registry.LAZY.items():
        value = registry.METHODS.get(name)
        if owner != module or value is None:
            continue
        if registry.is_placeholder(value):   # not registered yet (the family is still importing)
            done = False
            continue
        setattr(Tensor, name, _guarded(name, value) if name in _OPERATORS else value)
        if name in INPLACE_FUNCTIONS and registry.is_placeholder(registry.FUNCTIONS.get(name)):
            registry.FUNCTIONS[name] = value
    if done:
        _BOUND_FAMILIES.add(module)


# -- Python operators ----------------------------------------------------------------------------

BINARY_DUNDERS = ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
                  "mod", "rmod", "pow", "rpow", "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rshift",
                  "eq", "ne", "lt", "le", "gt", "ge")
_OPERATORS = frozenset(f"__{name}__" for name in BINARY_DUNDERS)


def _install_operator_guards():
    """Tensor's binary operators return NotImplemented for operands that are neither tensors nor
    numbers (None, str, list, ...), as torch's do: Python then gives `==` -> False and
    `+` -> "TypeError: unsupported operand type(s) for +: 'Tensor' and 'NoneType'"."""
    for name in BINARY_DUNDERS:
        attr = f"__{name}__"
        fn = Tensor.__dict__.get(attr)
        if fn is None or getattr(fn, "_operator_guard", False):
            continue
        setattr(Tensor, attr, _guarded(attr, fn))


_OPERAND_TYPES = (Tensor, int, float, bool, np.number, np.bool_, np.ndarray)


def _guarded(attr, fn):
    """The operator `attr` running `fn` behind the operand check; a lazy unit's placeholder becomes a
    stub that imports the unit (bind_family guards the real function once it is imported)."""
    if isinstance(fn, registry.LazyAttribute):
        fn = registry.lazy_function(fn.module, attr, registry.METHODS)
    operand_types = _OPERAND_TYPES

    def method(self, other, _fn=fn):
        if not isinstance(other, operand_types):
            return NotImplemented
        return _fn(self, other)
    method._operator_guard = True
    method.__name__ = attr
    method.__qualname__ = "_install_operator_guards.<locals>.method"   # as when bound eagerly
    method.__doc__ = getattr(fn, "__doc__", None)
    return method
