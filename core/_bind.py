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
    for name, value in registry.METHODS.items():
        setattr(Tensor, name, value)
    _install_operator_guards()
    for name in INPLACE_FUNCTIONS:
        fn = getattr(Tensor, name, None)
        if fn is not None:
            registry.FUNCTIONS.setdefault(name, fn)


# -- Python operators ----------------------------------------------------------------------------

_BINARY_DUNDERS = ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
                   "mod", "rmod", "pow", "rpow", "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rshift",
                   "eq", "ne", "lt", "le", "gt", "ge")


def _install_operator_guards():
    """Tensor's binary operators return NotImplemented for operands that are neither tensors nor
    numbers (None, str, list, ...), as torch's do: Python then gives `==` -> False and
    `+` -> "TypeError: unsupported operand type(s) for +: 'Tensor' and 'NoneType'"."""
    operand_types = (Tensor, int, float, bool, np.number, np.bool_, np.ndarray)
    for name in _BINARY_DUNDERS:
        attr = f"__{name}__"
        fn = Tensor.__dict__.get(attr)
        if fn is None or getattr(fn, "_operator_guard", False):
            continue

        def method(self, other, _fn=fn):
            if not isinstance(other, operand_types):
                return NotImplemented
            return _fn(self, other)
        method._operator_guard = True
        method.__name__ = attr
        method.__doc__ = getattr(fn, "__doc__", None)
        setattr(Tensor, attr, method)
