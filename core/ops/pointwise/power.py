"""pow (tensor ** scalar, tensor ** tensor, scalar ** tensor), float_power and square, with PyTorch's
integer rules (no negative integer exponents of integer tensors) and its gradients (0 * log(0) = 0)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import registry
from ..inplace import make_inplace
from ..registry import register
from ._common import (_Binary, _binary, _check_operand, _g_for, _is_bool, _out, _tensor_first, _tensors,
                      quietly, zeros_like_t)
from .clamp_where import where
from .logical_bitwise import logical_and
from .unary import log

class PowBackward0(_Binary):
    """pow(tensor, scalar): d/dx = e * x^(e-1) (zero when e == 0)."""

    @staticmethod
    def forward(ctx, a, e):
        ctx.save_for_backward(a)
        ctx.e = e
        dt = _dt.result_type(a, e)
        if not dt.is_floating_point and not isinstance(e, bool) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if dt is _dt.float32 or dt is _dt.float64:
            return _binary(a, e, _float_pow, dt)
        return _binary(a, e, _int_pow if not dt.is_floating_point else np.power, dt)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        e = ctx.e
        if e == 0:
            return g.new_zeros(g.shape), None
        return g * (a ** (e - 1) * e), None     # ATen's pow_backward: grad * (exp * self.pow(exp - 1))

    @staticmethod
    def backward_np(ctx, g):
        a = ctx.saved_tensors[0]._data
        e = ctx.e
        if e == 0:
            return np.zeros_like(g), None
        return quietly(_pow_grad_np, g, e, a), None


def _float_pow(x, e):
    """ATen's float/double pow(tensor, scalar) kernels: sqrt, 1 / sqrt, reciprocal for 0.5, -0.5, -1 and
    x*x, x*x*x, 1 / (x*x) for 2, 3, -2 (each product rounded, as torch's), powf otherwise."""
    if e == 2:
        return x * x
    if e == 3:
        return x * x * x
    if e == 0.5:
        return np.sqrt(x)
    if e == -0.5:
        return np.reciprocal(np.sqrt(x))
    if e == -1:
        return np.reciprocal(x)
    if e == -2:
        return np.reciprocal(x * x)
    return np.power(x, e)


def _pow_grad_np(g, e, a):
    """grad * (exp * self.pow(exp - 1)), rounded in that order (ATen's pow_backward), pow by ATen's kernels."""
    if a.dtype == np.float32 or a.dtype == np.float64:
        return g * (_float_pow(a, e - 1) * a.dtype.type(e))
    return g * (a ** (e - 1) * e)


class PowBackward1(_Binary):
    """pow(tensor, tensor): d/da = b a^(b-1); d/db = out log(a) (0 where a == 0 and b >= 0)."""
    save_output = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*_tensors(a, b))
        dt = _dt.result_type(a, b)
        if _is_bool(a) and _is_bool(b):
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return _binary(a, b, _int_pow if not dt.is_floating_point else np.power, dt)

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        ga = where(b == 0, zeros_like_t(g), g * b * a ** (b - 1)) if _g_for(ctx, 0) else None
        gb = None
        if _g_for(ctx, 1):
            mask = logical_and(a == 0, b >= 0)
            gb = where(mask, zeros_like_t(g), g * out * log(a))
        return ga, gb


class PowBackward2(_Binary):
    """pow(scalar, tensor): d/de = out * log(base)."""
    save_output = True

    @staticmethod
    def forward(ctx, base, e):
        ctx.base = base
        dt = _dt.result_type(base, e)
        return _binary(base, e, _int_pow if not dt.is_floating_point else np.power, dt)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        if ctx.base == 0:
            # PyTorch: 0 where exponent >= 0, else grad * out * log(0) (= -inf * grad)
            with np.errstate(all="ignore"):
                return None, where(out <= 1, zeros_like_t(g), g * out * float("-inf"))
        return None, g * out * float(np.log(ctx.base))


def _int_pow(x, y):
    """Integer power with PyTorch's rule for negative exponents: 1 ** n = 1, (-1) ** n = +-1, else 0."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype == np.bool_:
        return np.logical_or(x, np.logical_not(y))
    neg = y < 0
    r = np.power(x, np.where(neg, 0, y))
    if neg.any():
        odd = (y % 2) != 0
        r = np.where(neg, np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)), r).astype(r.dtype)
    return r


@register(category="pointwise", methods=("pow", "__pow__"), inplace="pow_")
def pow(input, exponent, *, out=None):
    """input ** exponent; either side may be a Python number."""
    _tensor_first("pow", input, exponent, scalar_self=True)
    if not isinstance(input, Tensor):
        return _out(PowBackward2.apply(input, exponent), out)
    if isinstance(exponent, Tensor):
        return _out(PowBackward1.apply(input, exponent), out)
    _check_operand(exponent, "pow")
    return _out(PowBackward0.apply(input, exponent), out)


def _rpow(self, other):
    """Tensor.__rpow__(other) = pow(other, self): a Tensor base is differentiable too (PowBackward1)."""
    return PowBackward1.apply(other, self) if isinstance(other, Tensor) else PowBackward2.apply(other, self)


registry.method("__rpow__", _rpow)


def float_power(input, exponent):
    """input ** exponent in float64."""
    _tensor_first("float_power", input, exponent, scalar_self=True)
    a = input.double() if isinstance(input, Tensor) else float(input)
    e = exponent.double() if isinstance(exponent, Tensor) else float(exponent)
    return pow(a, e)


def float_power_(self, exponent):
    """In-place float_power: self must already be float64 (torch's error otherwise)."""
    if self.dtype is not _dt.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dt.scalar_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    return _FLOAT_POWER_INPLACE(self, exponent)


register(category="pointwise", methods=("float_power",), inplace=("float_power_", float_power_),
         summary="input ** exponent computed in float64 (both operands promoted to double).")(float_power)
_FLOAT_POWER_INPLACE = make_inplace(float_power, "float_power_")


@register(category="pointwise", methods=("square",), inplace="square_")
def square(input, *, out=None):
    """input ** 2 (PyTorch computes it as pow(input, 2): bool gives int64, the node is PowBackward0)."""
    return _out(pow(input, 2), out)


