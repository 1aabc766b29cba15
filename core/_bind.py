"""The one place that attaches methods, properties, operators and in-place variants to Tensor.

Op modules record what Tensor should have in `ops.registry.METHODS` (through `register(methods=...,
inplace=...)`, `registry.method(...)` and `registry.add_inplace(...)`); `bind()` runs once, from
core/__init__, after every op module has been imported."""
from __future__ import annotations

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
        if name not in Tensor.__dict__:   # TRANSITIONAL: modules that still attach directly keep theirs
            setattr(Tensor, name, value)
    registry.install_operator_guards()
    for name in INPLACE_FUNCTIONS:
        fn = getattr(Tensor, name, None)
        if fn is not None:
            registry.FUNCTIONS.setdefault(name, fn)
