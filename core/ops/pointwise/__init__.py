"""Elementwise ops with broadcasting and PyTorch's type promotion; each op's forward, backward and
registration live together in one of the small modules below. This package adds the aliases
(`subtract`, `clip`, `arctan2`, ...), their in-place twins, the augmented operators (`+=` is in
place, as in PyTorch) and `Tensor.where`, and re-exports what other op families import."""
from __future__ import annotations

from ...autograd.function import Op
from .. import registry
from . import (_common, addc, arithmetic, binary_math, clamp_where, comparison, fill_copy, logical_bitwise, power, special,
               unary)
from ._common import (_as_tensor, _binary, _broadcast_error, _float_result, _long, _operand, _out, quietly,
                      zeros_like_t)
from .arithmetic import (DivBackward1, MulBackward1, add, atan2, div, floor_divide, fmod, mul, remainder, rsub, sub)
from .clamp_where import clamp, clamp_max, clamp_min, lerp, where
from .comparison import (allclose, eq, equal, ge, gt, isclose, isfinite, isinf, isnan, le, lt, maximum, minimum, ne)
from .fill_copy import _to_dtype, clone, copy_, fill_, zero_
from .logical_bitwise import (bitwise_and, bitwise_not, bitwise_or, bitwise_xor, logical_and, logical_not,
                              logical_or, logical_xor)
from .power import float_power, pow, square
from .unary import (abs, acos, asin, atan, ceil, cos, cosh, erf, exp, exp2, expm1, floor, frac, log, log1p, log2,
                    log10, neg, reciprocal, relu, round, rsqrt, sigmoid, sign, sin, sinh, sqrt, tan, tanh, trunc)

from .special import (acosh, asinh, atanh, deg2rad, digamma, erfc, erfinv, i0, isneginf, isposinf, lgamma, logit,
                      nan_to_num, rad2deg, sgn, signbit, sinc)

from .binary_math import (bitwise_left_shift, bitwise_right_shift, copysign, fmax, fmin, gcd, heaviside, hypot, isin,
                          lcm, ldexp, logaddexp, logaddexp2, xlogy)

from .addc import addcdiv, addcmul
from . import special_ops, special_poly
from . import special_bessel_more  # noqa: F401  (registers on import)
from .special_ops import frexp, igamma, igammac, mvlgamma, nextafter, polygamma

_MODULES = (_common, addc, unary, arithmetic, comparison, logical_bitwise, clamp_where, power, fill_copy, special,
            binary_math, special_ops, special_poly)

_ALIASES = {"subtract": sub, "multiply": mul, "divide": div, "true_divide": div, "negative": neg,
            "absolute": abs, "clip": clamp, "arcsin": asin, "arccos": acos, "arctan": atan, "arctan2": atan2,
            "not_equal": ne, "less": lt, "less_equal": le, "greater": gt, "greater_equal": ge, "fix": trunc,
            "arccosh": acosh, "arcsinh": asinh, "arctanh": atanh}
subtract, multiply, divide, true_divide, negative, absolute, clip = sub, mul, div, div, neg, abs, clamp
arcsin, arccos, arctan, arctan2, fix = asin, acos, atan, atan2, trunc
arccosh, arcsinh, arctanh = acosh, asinh, atanh
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def _where_method(self, condition, other):
    """Tensor.where(condition, y) == torch.where(condition, self, y)."""
    return where(condition, self, other)


def _record_aliases():
    """core.<alias> and Tensor.<alias>_ (the target's in-place variant), as PyTorch names them."""
    for alias, target in _ALIASES.items():
        registry.FUNCTIONS.setdefault(alias, target)
        base = registry.METHODS.get(target.__name__ + "_")
        if base is not None and alias + "_" not in registry.METHODS:
            registry.method(alias + "_", base)
    # `t += x` is in place in PyTorch (views and aliases see the change)
    for dunder, method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                           ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_"),
                           ("__ipow__", "pow_")):
        registry.method(dunder, registry.METHODS[method])
    registry.method("where", _where_method)


def _mark_elementwise():
    """Every Op in this package is elementwise: keep the input's memory layout, as PyTorch does."""
    for mod in _MODULES:
        for obj in list(vars(mod).values()):
            if isinstance(obj, type) and issubclass(obj, Op) and obj.__module__.startswith(__name__):
                obj.contiguous_output = False


def _export_flat_namespace():
    """Every name of the former single-file pointwise.py stays importable from the package: other op
    families import helpers from it (`_out`, `_binary`, `where`, `_to_dtype`, ...)."""
    g = globals()
    for mod in _MODULES:
        for k, v in vars(mod).items():
            if not k.startswith("__"):
                g.setdefault(k, v)


_record_aliases()
_mark_elementwise()
_export_flat_namespace()
