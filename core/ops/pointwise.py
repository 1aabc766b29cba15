"""Elementwise ops with broadcasting and PyTorch's type promotion; backward next to forward."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from .registry import register

_F = _dt._FROM_NP


def _broadcast_error(a, b):
    sa, sb = list(np.shape(a)), list(np.shape(b))
    n = max(len(sa), len(sb))
    pa, pb = [1] * (n - len(sa)) + sa, [1] * (n - len(sb)) + sb
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                                f"at non-singleton dimension {i}")
    return RuntimeError(f"shapes {sa} and {sb} cannot be broadcast")


def _operand(x, npdt):
    """NumPy operand of dtype npdt from a Tensor or a Python number."""
    if isinstance(x, Tensor):
        d = x._data
        return d if d.dtype == npdt else d.astype(npdt)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x).astype(npdt)
    try:
        return npdt.type(x)
    except (OverflowError, ValueError, TypeError):
        if isinstance(x, (list, tuple)):
            raise TypeError(f"unsupported operand type: {type(x).__name__}") from None
        return np.array(x).astype(npdt)


def _check_operand(x, opname):
    if not isinstance(x, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{opname}(): argument 'other' (position 2) must be Tensor, not {type(x).__name__}")


def _binary(a, b, fn, dt=None, quiet=True):
    """fn(a, b) on NumPy operands promoted to PyTorch's result dtype; broadcasting errors in PyTorch's words."""
    if dt is None:
        # fast paths: same-dtype tensors, or a float tensor with a Python number
        if type(a) is Tensor:
            ad = a._data
            tb = type(b)
            if tb is Tensor and b._data.dtype == ad.dtype:
                return _call(fn, ad, b._data, quiet)
            if (tb is float or tb is int) and ad.dtype.kind == "f":
                return _call(fn, ad, b, quiet)
        dt = _dt.result_type(a, b)
    x, y = _operand(a, dt.np), _operand(b, dt.np)
    return _call(fn, x, y, quiet)


def _call(fn, x, y, quiet):
    try:
        if quiet:
            with np.errstate(all="ignore"):
                return fn(x, y)
        return fn(x, y)
    except ValueError:
        try:
            np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            raise _broadcast_error(x, y) from None
        raise


def _as_tensor(x, like=None):
    if isinstance(x, Tensor):
        return x
    dt = like.dtype if like is not None else _dt.scalar_dtype(x)
    return Tensor._make(np.asarray(x, dtype=dt.np))


def _tensors(*xs):
    return [x for x in xs if isinstance(x, Tensor)]


def _float_result(a):
    """Dtype for ops that always compute in floating point (exp, sqrt, true division)."""
    d = a._data.dtype
    return d if d.kind == "f" else _dt.get_default_dtype().np


class _Binary(Op):
    grads_per_arg = True


def _g_for(ctx, i):
    n = ctx.needs_input_grad
    return n[i] if i < len(n) else False


class AddBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        if alpha != 1:
            return _binary(a, b, lambda x, y: x + y * alpha)
        return _binary(a, b, np.add, quiet=False)

    @staticmethod
    def backward(ctx, g):
        return g, (g * ctx.alpha if ctx.alpha != 1 else g)

    @staticmethod
    def backward_np(ctx, g):
        return g, (g * ctx.alpha if ctx.alpha != 1 else g)


class SubBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _check_sub(a, b)
        ctx.alpha = alpha
        if alpha != 1:
            return _binary(a, b, lambda x, y: x - y * alpha)
        return _binary(a, b, np.subtract, quiet=False)

    @staticmethod
    def backward(ctx, g):
        return g, -g * ctx.alpha if ctx.alpha != 1 else -g

    @staticmethod
    def backward_np(ctx, g):
        return g, -g * ctx.alpha if ctx.alpha != 1 else -g


def _is_bool(x):
    return x._data.dtype == np.bool_ if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _check_sub(a, b):
    """PyTorch's sub_check: no bool operand (Python bools count) in subtraction."""
    ba, bb = _is_bool(a), _is_bool(b)
    if ba and bb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if ba or bb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


class RsubBackward1(_Binary):
    """scalar - alpha * tensor (PyTorch's rsub with a Scalar other)."""

    @staticmethod
    def forward(ctx, a, other, alpha=1):
        _check_sub(a, other)
        ctx.alpha = alpha
        if alpha != 1:
            return _binary(other, a, lambda x, y: x - y * alpha)
        return _binary(other, a, np.subtract, quiet=False)

    @staticmethod
    def backward(ctx, g):
        return (-g * ctx.alpha if ctx.alpha != 1 else -g), None


class RsubBackward0(RsubBackward1):
    """rsub(tensor, tensor): other - alpha * input."""

    @staticmethod
    def backward(ctx, g):
        return (-g * ctx.alpha if ctx.alpha != 1 else -g), g


class MulBackward0(_Binary):
    """Saves each operand only if the other one needs a gradient (as PyTorch does)."""

    @staticmethod
    def forward(ctx, a, b):
        ng = ctx.needs_input_grad
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.a_s = None if ctx.a_t else a
        ctx.b_s = None if ctx.b_t else b
        if ng:
            ctx.save_for_backward(a if ctx.a_t and ng[1] else None, b if ctx.b_t and ng[0] else None)
        return _binary(a, b, np.multiply, quiet=False)

    @staticmethod
    def _operands(ctx):
        sa, sb = ctx.saved_tensors
        return (sa if ctx.a_t else ctx.a_s), (sb if ctx.b_t else ctx.b_s)

    @staticmethod
    def backward(ctx, g):
        a, b = MulBackward0._operands(ctx)
        ga = g * b if _g_for(ctx, 0) else None
        gb = g * a if _g_for(ctx, 1) else None
        return ga, gb

    @staticmethod
    def backward_np(ctx, g):
        a, b = MulBackward0._operands(ctx)
        ga = g * (b._data if isinstance(b, Tensor) else b) if _g_for(ctx, 0) else None
        gb = g * (a._data if isinstance(a, Tensor) else a) if _g_for(ctx, 1) else None
        return ga, gb


class DivBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        ctx.save_for_backward(*_tensors(a, b))
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.a_s = None if ctx.a_t else a
        ctx.b_s = None if ctx.b_t else b
        ctx.rounding_mode = rounding_mode
        dt = _dt.result_type(a, b)
        if rounding_mode is None:
            if not dt.is_floating_point:
                dt = _dt.get_default_dtype()
            return _binary(a, b, np.true_divide, dt)
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        if dt is _dt.bool_:
            raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
        if not dt.is_floating_point:
            _check_int_div(b)
        if rounding_mode == "trunc":
            if dt.is_floating_point:
                return _binary(a, b, lambda x, y: np.trunc(x / y).astype(x.dtype if hasattr(x, "dtype") else dt.np), dt)
            return _binary(a, b, lambda x, y: (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dt.np), dt)
        if rounding_mode == "floor":
            return _binary(a, b, _floor_div, dt)

    @staticmethod
    def backward(ctx, g):
        if ctx.rounding_mode is not None:
            return (g * 0 if _g_for(ctx, 0) else None), (g * 0 if _g_for(ctx, 1) else None)
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else ctx.a_s
        b = saved.pop(0) if ctx.b_t else ctx.b_s
        ga = g / b if _g_for(ctx, 0) else None
        gb = -g * a / (b * b) if _g_for(ctx, 1) else None
        return ga, gb


class DivBackward2(DivBackward0):
    """div(a, b, rounding_mode=...): zero gradient for 'trunc'/'floor', true-division gradient for None."""


def _not_implemented_node(opname):
    """A node standing for an op PyTorch has no derivative for: named like PyTorch's, raising on backward."""

    class NotImplementedBackward(_Binary):
        @staticmethod
        def forward(ctx, fn, *args):
            return fn(*args)

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError(f"derivative for aten::{opname} is not implemented")

        def name(self):
            return "torch::autograd::NotImplemented"

    NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"
    return NotImplementedBackward


def _floor_div(x, y):
    if np.asarray(x).dtype.kind == "f":
        r = np.floor_divide(x, y)
        # NumPy's floor_divide gives nan for x/0; PyTorch gives +-inf like floor(x / y).
        return np.where(np.asarray(y) == 0, np.floor(np.true_divide(x, y)), r).astype(np.asarray(x).dtype)
    return np.floor_divide(x, y)


def _check_int_div(b):
    if isinstance(b, Tensor):
        if (b._data == 0).any():
            raise RuntimeError("ZeroDivisionError")
    elif b == 0:
        raise RuntimeError("ZeroDivisionError")


def _no_bool(dt, kernel):
    if dt is _dt.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _py_remainder(x, y):
    """Python-style modulus as PyTorch computes it (fmod, then shift by y when the signs differ):
    a zero result keeps the dividend's sign, where NumPy's remainder gives the divisor's."""
    r = np.remainder(x, y)
    if r.dtype.kind == "f":
        r = np.where(r == 0, np.copysign(np.zeros((), r.dtype), x), r).astype(r.dtype, copy=False)
    return r


class RemainderBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        dt = _dt.result_type(a, b)
        _no_bool(dt, "remainder_cpu")
        if not dt.is_floating_point:
            _check_int_div(b)
        ctx.save_for_backward(*_tensors(a, b))
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.b_s = None if ctx.b_t else b
        return _binary(a, b, _py_remainder)

    @staticmethod
    def backward(ctx, g):
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else None
        b = saved.pop(0) if ctx.b_t else ctx.b_s
        gb = None
        if _g_for(ctx, 1):
            gb = -g * div(a, b, rounding_mode="floor")
        return g, gb


class RemainderBackward1(RemainderBackward0):
    pass


class FmodBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        dt = _dt.result_type(a, b)
        _no_bool(dt, "fmod_cpu")
        if not dt.is_floating_point:
            _check_int_div(b)
        ctx.save_for_backward(*_tensors(a, b))
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        return _binary(a, b, np.fmod)

    @staticmethod
    def backward(ctx, g):
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else None
        b = saved.pop(0) if ctx.b_t else None
        gb = -g * div(a, b, rounding_mode="trunc") if _g_for(ctx, 1) else None
        return g, gb


class FmodBackward1(FmodBackward0):
    pass


class PowBackward0(_Binary):
    """pow(tensor, scalar): d/dx = e * x^(e-1) (zero when e == 0)."""

    @staticmethod
    def forward(ctx, a, e):
        ctx.save_for_backward(a)
        ctx.e = e
        dt = _dt.result_type(a, e)
        if not dt.is_floating_point and not isinstance(e, bool) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _binary(a, e, _int_pow if not dt.is_floating_point else np.power, dt)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        e = ctx.e
        if e == 0:
            return g * 0, None
        return g * e * a ** (e - 1), None

    @staticmethod
    def backward_np(ctx, g):
        a = ctx.saved_tensors[0]._data
        e = ctx.e
        if e == 0:
            return g * 0, None
        with np.errstate(all="ignore"):
            return g * e * (a if e == 2 else a ** (e - 1)), None


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


def zeros_like_t(t):
    return Tensor._make(np.zeros_like(t._data))


# -- public binary functions -----------------------------------------------------------------

@register(category="pointwise", methods=("add", "__add__", "__radd__"), inplace="add_")
def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, broadcasting and promoting like PyTorch."""
    _check_operand(other, "add")
    if not isinstance(input, Tensor):
        input, other = other, input
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(alpha, "add", input, other)
    return _out(AddBackward0.apply(input, other, alpha), out)


def _check_alpha(alpha, fn, a, b):
    """PyTorch's alpha_check: a Number; no float alpha for integral results, bool alpha only for bool."""
    if not isinstance(alpha, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{fn}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    dt = _dt.result_type(a, b)
    if isinstance(alpha, (bool, np.bool_)):
        if dt is not _dt.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, np.floating)) and not dt.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


@register(category="pointwise", methods=("sub", "subtract", "__sub__"), inplace="sub_")
def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other (no bool operands, as in PyTorch)."""
    _check_operand(other, "sub")
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(alpha, "sub", input, other)
    return _out(SubBackward0.apply(input, other, alpha), out)


def _rsub(self, other):
    return RsubBackward1.apply(self, other)


Tensor.__rsub__ = _rsub


@register(category="pointwise")
def rsub(input, other, *, alpha=1):
    """other - alpha * input (sub with the operands swapped)."""
    _check_operand(other, "rsub")
    if isinstance(other, Tensor):
        return RsubBackward0.apply(input, other, alpha)
    return RsubBackward1.apply(input, other, alpha)


@register(category="pointwise", methods=("mul", "multiply", "__mul__", "__rmul__"), inplace="mul_")
def mul(input, other, *, out=None):
    """input * other, elementwise with broadcasting."""
    _check_operand(other, "mul")
    return _out(MulBackward0.apply(input, other), out)


class _NoMode:
    """Default of div's rounding_mode: PyTorch records DivBackward2 whenever rounding_mode is passed
    (even None), DivBackward0 otherwise, so 'not given' must be told apart from None."""

    def __repr__(self):
        return "None"


_NO_MODE = _NoMode()


@register(category="pointwise", methods=("div", "divide", "true_divide", "__truediv__"), inplace="div_")
def div(input, other, *, rounding_mode=_NO_MODE, out=None):
    """input / other: true division (int / int gives the default float) unless rounding_mode is 'trunc' or 'floor'."""
    _check_operand(other, "div")
    if rounding_mode is _NO_MODE:
        return _out(DivBackward0.apply(input, other, None), out)
    return _out(DivBackward2.apply(input, other, rounding_mode), out)


def _rtruediv(self, other):
    # PyTorch: other / self == self.reciprocal() * other (so the node is MulBackward0)
    return mul(reciprocal(self), other)


Tensor.__rtruediv__ = _rtruediv

_FloorDivideNI = _not_implemented_node("floor_divide")
_FloorDivideNI_ = _not_implemented_node("floor_divide_")
_RemainderNI = _not_implemented_node("remainder")


def _floor_divide(input, other):
    dt = _dt.result_type(input, other)
    _no_bool(dt, "div_floor_cpu")
    if not dt.is_floating_point:
        _check_int_div(other)
    return dt


def _floor_divide_impl(input, other, node):
    _check_operand(other, "floor_divide")
    dt = _floor_divide(input, other)
    return node.apply(lambda a, b: _binary(a, b, _floor_div, dt), input, other)


def _floor_divide_(self, other):
    """In-place floor_divide (its node names aten::floor_divide_ in the backward error, as PyTorch does)."""
    return _FLOOR_DIVIDE_INPLACE(self, other)


@register(category="pointwise", methods=("floor_divide", "__floordiv__"), inplace=("floor_divide_", _floor_divide_))
def floor_divide(input, other, *, out=None):
    """Division rounded toward negative infinity; PyTorch defines no derivative for it."""
    return _out(_floor_divide_impl(input, other, _FloorDivideNI), out)


def _make_floor_divide_inplace():
    from .inplace import make_inplace
    return make_inplace(lambda self, other: _floor_divide_impl(self, other, _FloorDivideNI_), "floor_divide_")


_FLOOR_DIVIDE_INPLACE = _make_floor_divide_inplace()


def _rfloordiv(self, other):
    dt = _floor_divide(other, self)
    return _FloorDivideNI.apply(lambda a, b: _binary(a, b, _floor_div, dt), other, self)


Tensor.__rfloordiv__ = _rfloordiv


@register(category="pointwise", methods=("remainder", "__mod__"), inplace="remainder_")
def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of the divisor."""
    _check_operand(other, "remainder")
    if not isinstance(input, Tensor):
        return _out(_rmod(other, input), out)
    return _out((RemainderBackward1 if isinstance(other, Tensor) else RemainderBackward0).apply(input, other), out)


def _rmod(self, other):
    dt = _dt.result_type(other, self)
    _no_bool(dt, "remainder_cpu")
    if not dt.is_floating_point:
        _check_int_div(self)
    return _RemainderNI.apply(lambda a, b: _binary(a, b, _py_remainder, dt), other, self)


Tensor.__rmod__ = _rmod


@register(category="pointwise", methods=("fmod",), inplace="fmod_")
def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of the dividend."""
    _check_operand(other, "fmod")
    return _out((FmodBackward1 if isinstance(other, Tensor) else FmodBackward0).apply(input, other), out)


@register(category="pointwise", methods=("pow", "__pow__"), inplace="pow_")
def pow(input, exponent, *, out=None):
    """input ** exponent; either side may be a Python number."""
    if not isinstance(input, Tensor):
        return _out(PowBackward2.apply(input, exponent), out)
    if isinstance(exponent, Tensor):
        return _out(PowBackward1.apply(input, exponent), out)
    _check_operand(exponent, "pow")
    return _out(PowBackward0.apply(input, exponent), out)


Tensor.__rpow__ = lambda self, other: PowBackward2.apply(other, self)


def float_power(input, exponent):
    a = input.double() if isinstance(input, Tensor) else float(input)
    e = exponent.double() if isinstance(exponent, Tensor) else float(exponent)
    return pow(a, e)


register(category="pointwise", methods=("float_power",))(float_power)


class MaximumBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(a, b, np.maximum)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * ((a > b).to(g.dtype) + (a == b).to(g.dtype) * 0.5)
        gb = g * ((b > a).to(g.dtype) + (a == b).to(g.dtype) * 0.5)
        return ga, gb


class MinimumBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(a, b, np.minimum)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * ((a < b).to(g.dtype) + (a == b).to(g.dtype) * 0.5)
        gb = g * ((b < a).to(g.dtype) + (a == b).to(g.dtype) * 0.5)
        return ga, gb


@register(category="pointwise", methods=("maximum",))
def maximum(input, other, *, out=None):
    """Elementwise max of two tensors (NaN propagates; ties split the gradient)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"maximum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(MaximumBackward0.apply(input, other), out)


@register(category="pointwise", methods=("minimum",))
def minimum(input, other, *, out=None):
    """Elementwise min of two tensors."""
    if not isinstance(other, Tensor):
        raise TypeError(f"minimum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(MinimumBackward0.apply(input, other), out)


def _out(result, out):
    """Implement `out=`: copy into `out` (resizing like PyTorch) and return that same object."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if out._requires_grad and (result._requires_grad or out.grad_fn is None):
        from ..autograd.grad_mode import STATE
        if STATE.grad_enabled:
            raise RuntimeError(f"{_opname(result)}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
    if result._requires_grad:
        from ..autograd.grad_mode import STATE
        if STATE.grad_enabled:
            raise RuntimeError(f"{_opname(result)}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
    r = result._data
    if out._data.dtype != r.dtype:
        rd, od = _F[r.dtype], _F[out._data.dtype]
        if not _dt.can_cast(rd, od):
            from ..dtypes import scalar_name as _short
            raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type {_short(od)}")
    if out._data.shape != r.shape:
        if out._data.size:
            import warnings
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output shape {list(r.shape)}. "
                          "This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                          "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                          "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._data = np.empty(r.shape, dtype=out._data.dtype)
    np.copyto(out._data, r, casting="unsafe")
    out._vc[0] += 1
    return out


def _opname(result):
    fn = result.grad_fn
    return fn.name().rstrip("0123456789").replace("Backward", "").lower() if fn is not None else "op"


# -- comparisons and logic (never differentiable) -----------------------------------------------

def _compare(np_fn, name):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = Tensor._make(np.asarray(input))
        _check_operand(other, name)
        dt = _dt.result_type(input, other)
        return _out(Tensor._make(np.asarray(_binary(input, other, np_fn, dt))), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} comparison; returns a bool tensor."
    return fn


eq = register(category="comparison", methods=("eq", "__eq__"), inplace="eq_")(_compare(np.equal, "eq"))
ne = register(category="comparison", methods=("ne", "not_equal", "__ne__"), inplace="ne_")(_compare(np.not_equal, "ne"))
lt = register(category="comparison", methods=("lt", "less", "__lt__"), inplace="lt_")(_compare(np.less, "lt"))
le = register(category="comparison", methods=("le", "less_equal", "__le__"), inplace="le_")(_compare(np.less_equal, "le"))
gt = register(category="comparison", methods=("gt", "greater", "__gt__"), inplace="gt_")(_compare(np.greater, "gt"))
ge = register(category="comparison", methods=("ge", "greater_equal", "__ge__"), inplace="ge_")(_compare(np.greater_equal, "ge"))
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def _logical(np_fn, name):
    def fn(input, other, *, out=None):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        x = input._data if isinstance(input, Tensor) else np.asarray(input)
        y = other._data if isinstance(other, Tensor) else np.asarray(other)
        try:
            return _out(Tensor._make(np.asarray(np_fn(x, y))), out)
        except ValueError:
            raise _broadcast_error(x, y) from None
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}, treating nonzero as True; returns a bool tensor."
    return fn


logical_and = register(category="logical", methods=("logical_and",))(_logical(np.logical_and, "logical_and"))
logical_or = register(category="logical", methods=("logical_or",))(_logical(np.logical_or, "logical_or"))
logical_xor = register(category="logical", methods=("logical_xor",))(_logical(np.logical_xor, "logical_xor"))


@register(category="logical", methods=("logical_not",), inplace="logical_not_")
def logical_not(input, *, out=None):
    """Elementwise not; returns a bool tensor."""
    return _out(Tensor._make(np.logical_not(input._data)), out)


def _bitwise(np_fn, name, sym):
    def fn(input, other, *, out=None):
        _check_operand(other, name)
        dt = _dt.result_type(input, other)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_long(dt)}'")
        return _out(Tensor._make(np.asarray(_binary(input, other, np_fn, dt))), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {sym} of integer or bool tensors."
    return fn


bitwise_and = register(category="logical", methods=("bitwise_and", "__and__", "__rand__"), inplace="__iand__")(_bitwise(np.bitwise_and, "bitwise_and", "&"))
bitwise_or = register(category="logical", methods=("bitwise_or", "__or__", "__ror__"), inplace="__ior__")(_bitwise(np.bitwise_or, "bitwise_or", "|"))
bitwise_xor = register(category="logical", methods=("bitwise_xor", "__xor__", "__rxor__"), inplace="__ixor__")(_bitwise(np.bitwise_xor, "bitwise_xor", "^"))


@register(category="logical", methods=("bitwise_not",), inplace="bitwise_not_")
def bitwise_not(input, *, out=None):
    """~input for bool and integer tensors."""
    if input._data.dtype.kind == "f":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_long(input.dtype)}'")
    return _out(Tensor._make(np.invert(input._data)), out)


def _invert(self):
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


Tensor.__invert__ = _invert


@register(category="logical", methods=("isnan",))
def isnan(input):
    """True where input is NaN."""
    return Tensor._make(np.isnan(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


@register(category="logical", methods=("isinf",))
def isinf(input):
    """True where input is +-inf."""
    return Tensor._make(np.isinf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


@register(category="logical", methods=("isfinite",))
def isfinite(input):
    """True where input is finite."""
    return Tensor._make(np.isfinite(input._data) if input._data.dtype.kind == "f" else np.ones(input._data.shape, bool))


@register(category="comparison", methods=("equal",))
def equal(input, other):
    """True if both tensors have the same size and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


@register(category="comparison", methods=("allclose",))
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |input - other| <= atol + rtol * |other| everywhere."""
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


@register(category="comparison", methods=("isclose",))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise closeness as a bool tensor."""
    o = other._data if isinstance(other, Tensor) else other
    return Tensor._make(np.isclose(input._data, o, rtol=rtol, atol=atol, equal_nan=equal_nan))


# -- unary ops ----------------------------------------------------------------------------------

def _unary(name, np_fn, grad, *, save="input", float_only=True, methods=None, inplace=True, doc="", node=None,
           no_bool=None, no_int=None, grad_np=None):
    """Define a unary op from a NumPy forward and a gradient formula grad(g, x, out).
    `no_bool` / `no_int`: PyTorch kernel name (-> NotImplementedError "... not implemented for 'Long'")
    or an exception instance, for dtypes PyTorch rejects. `grad_np`: the same formula on NumPy
    arrays (True when `grad` itself only uses arithmetic), used when no gradient graph is wanted."""
    node_name = node or name[0].upper() + name[1:] + "Backward0"

    def forward(ctx, a):
        d = a._data
        if no_bool is not None and d.dtype == np.bool_:
            raise _kernel_error(no_bool, a.dtype)
        if no_int is not None and d.dtype.kind in "iu":
            raise _kernel_error(no_int, a.dtype)
        if float_only and d.dtype.kind != "f":
            d = d.astype(_dt.get_default_dtype().np)
        if save == "input":
            ctx.save_for_backward(a)
        with np.errstate(all="ignore"):
            r = np_fn(d)
        return r if type(r) is np.ndarray else np.asarray(r, dtype=d.dtype)

    def backward(ctx, g):
        if save == "input":
            (a,) = ctx.saved_tensors
            return grad(g, a, None)
        if save == "output":
            (out,) = ctx.saved_tensors
            return grad(g, None, out)
        return grad(g, None, None)

    attrs = {"forward": staticmethod(forward), "backward": staticmethod(backward), "save_output": save == "output"}
    if grad_np is not None:
        gnp = grad if grad_np is True else grad_np

        def backward_np(ctx, g):
            saved = ctx.saved_tensors
            a = saved[0]._data if save == "input" else None
            o = saved[0]._data if save == "output" else None
            with np.errstate(all="ignore"):
                return gnp(g, a, o)
        attrs["backward_np"] = staticmethod(backward_np)
    cls = type(node_name, (Op,), attrs)

    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return _out(cls.apply(input), out)
    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name}."
    register(category="pointwise", methods=methods or (name,), inplace=(name + "_") if inplace else None)(fn)
    return fn, cls


def _kernel_error(spec, dt):
    if isinstance(spec, BaseException):
        return spec
    return NotImplementedError(f"\"{spec}\" not implemented for '{_long(dt)}'")


def _sgn(t):
    return Tensor._make(np.sign(t._data))


neg, NegBackward0 = _unary("neg", np.negative, lambda g, a, o: -g, save=None, float_only=False, grad_np=True,
                           methods=("neg", "negative", "__neg__"), doc="-input.",
                           no_bool=RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                                                "are trying to invert a mask, use the `~` or `logical_not()` operator "
                                                "instead."))
negative = neg
Tensor.negative_ = Tensor.neg_
Tensor.__pos__ = lambda self: self
abs, AbsBackward0 = _unary("abs", np.abs, lambda g, a, o: g * _sgn(a), float_only=False,
                           grad_np=lambda g, a, o: g * np.sign(a).astype(g.dtype),
                           methods=("abs", "absolute", "__abs__"), doc="|input|; gradient sign(input) (0 at 0).",
                           no_bool="abs_cpu")
absolute = abs
exp, ExpBackward0 = _unary("exp", np.exp, lambda g, a, o: g * o, save="output", doc="e ** input.", grad_np=True)
exp2, Exp2Backward0 = _unary("exp2", np.exp2, lambda g, a, o: g * o * float(np.log(2.0)), save="output")
expm1, Expm1Backward0 = _unary("expm1", np.expm1, lambda g, a, o: g * (o + 1), save="output")
log, LogBackward0 = _unary("log", np.log, lambda g, a, o: g / a, doc="Natural logarithm.", grad_np=True)
log2, Log2Backward0 = _unary("log2", np.log2, lambda g, a, o: g / (a * float(np.log(2.0))))
log10, Log10Backward0 = _unary("log10", np.log10, lambda g, a, o: g / (a * float(np.log(10.0))))
log1p, Log1pBackward0 = _unary("log1p", np.log1p, lambda g, a, o: g / (a + 1), node="Log1PBackward0")
sqrt, SqrtBackward0 = _unary("sqrt", np.sqrt, lambda g, a, o: g / (2 * o), save="output", doc="Square root.",
                             grad_np=True)
rsqrt, RsqrtBackward0 = _unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda g, a, o: -0.5 * g * o ** 3, save="output")
sin, SinBackward0 = _unary("sin", np.sin, lambda g, a, o: g * cos(a), grad_np=lambda g, a, o: g * np.cos(a))
cos, CosBackward0 = _unary("cos", np.cos, lambda g, a, o: -g * sin(a), grad_np=lambda g, a, o: -g * np.sin(a))
tan, TanBackward0 = _unary("tan", np.tan, lambda g, a, o: g * (1 + o * o), save="output")
asin, AsinBackward0 = _unary("asin", np.arcsin, lambda g, a, o: g * rsqrt(1 - a * a), methods=("asin", "arcsin"))
acos, AcosBackward0 = _unary("acos", np.arccos, lambda g, a, o: -g * rsqrt(1 - a * a), methods=("acos", "arccos"))
atan, AtanBackward0 = _unary("atan", np.arctan, lambda g, a, o: g / (1 + a * a), methods=("atan", "arctan"))
sinh, SinhBackward0 = _unary("sinh", np.sinh, lambda g, a, o: g * cosh(a))
cosh, CoshBackward0 = _unary("cosh", np.cosh, lambda g, a, o: g * sinh(a))
tanh, TanhBackward0 = _unary("tanh", np.tanh, lambda g, a, o: g * (1 - o * o), save="output", doc="Hyperbolic tangent.",
                             grad_np=True)


def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype)


sigmoid, SigmoidBackward0 = _unary("sigmoid", _sigmoid_np, lambda g, a, o: g * o * (1 - o), save="output",
                                   doc="1 / (1 + exp(-input)).", grad_np=True)
reciprocal, ReciprocalBackward0 = _unary("reciprocal", lambda x: 1 / x, lambda g, a, o: -g * o * o, save="output")


@register(category="pointwise", methods=("square",), inplace="square_")
def square(input, *, out=None):
    """input ** 2 (PyTorch computes it as pow(input, 2): bool gives int64, the node is PowBackward0)."""
    return _out(pow(input, 2), out)



def _relu_np(x):
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def _threshold_grad(g, a, o):
    return g * (o > 0).to(g.dtype)


relu, ReluBackward0 = _unary("relu", _relu_np, _threshold_grad, save="output", float_only=False,
                             doc="max(input, 0); gradient 0 at 0.",
                             no_bool=RuntimeError("Boolean inputs not supported for relu"),
                             grad_np=lambda g, a, o: g * (o > 0))


def _zero_grad(g, a, o):
    return g * 0


def _sign_np(x):
    if x.dtype == np.bool_:
        return x.copy()
    r = np.sign(x)
    if x.dtype.kind == "f":
        r = np.where(np.isnan(x), 0, r).astype(x.dtype)   # PyTorch: (0 < x) - (x < 0), so sign(nan) == 0
    return r


sign, SignBackward0 = _unary("sign", _sign_np, _zero_grad, save=None, float_only=False)
floor, FloorBackward0 = _unary("floor", np.floor, _zero_grad, save=None, float_only=False, no_bool="floor_vml_cpu")
ceil, CeilBackward0 = _unary("ceil", np.ceil, _zero_grad, save=None, float_only=False, no_bool="ceil_vml_cpu")
trunc, TruncBackward0 = _unary("trunc", np.trunc, _zero_grad, save=None, float_only=False, methods=("trunc", "fix"),
                               no_bool="trunc_vml_cpu")
frac, FracBackward0 = _unary("frac", lambda x: x - np.trunc(x), lambda g, a, o: g, save=None, no_bool="frac_cpu",
                             no_int="frac_cpu")


def _erf_np(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


erf, ErfBackward0 = _unary("erf", _erf_np, lambda g, a, o: g * (2 / float(np.sqrt(np.pi))) * exp(-a * a))


class RoundBackward0(Op):
    @staticmethod
    def forward(ctx, a, decimals=0):
        d = a._data
        if decimals == 0:
            if d.dtype == np.bool_:
                raise _kernel_error("round_vml_cpu", a.dtype)
            return np.round(d)
        if d.dtype.kind != "f":
            raise _kernel_error("round_cpu", a.dtype)
        # PyTorch: decimals > 0 -> nearbyint(x * 10^d) / 10^d; decimals < 0 -> nearbyint(x / 10^-d) * 10^-d
        with np.errstate(all="ignore"):
            if decimals > 0:
                p = d.dtype.type(10.0 ** decimals)
                return (np.round(d * p) / p).astype(d.dtype)
            p = d.dtype.type(10.0 ** -decimals)
            return (np.round(d / p) * p).astype(d.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0


class RoundBackward1(RoundBackward0):
    pass


@register(category="pointwise", methods=("round",), inplace="round_")
def round(input, *, decimals=None, out=None):
    """Round half to even, like PyTorch (decimals: round to that many decimal places)."""
    if decimals is None:
        return _out(RoundBackward0.apply(input, 0), out)
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    return _out(RoundBackward1.apply(input, int(decimals)), out)


class ClampBackward1(Op):
    """clamp with scalar bounds: the gradient passes where min <= input <= max (NaN inputs get 0)."""

    @staticmethod
    def forward(ctx, a, min=None, max=None):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = min, max
        dt = _dt.result_type(a, *(v for v in (min, max) if v is not None))
        return _clamp_np(a._data.astype(dt.np, copy=False), min, max, dt)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * Tensor._make(_clamp_mask(a._data, ctx.lo, ctx.hi).astype(g._data.dtype))


class ClampMinBackward0(ClampBackward1):
    pass


class ClampMaxBackward0(ClampBackward1):
    pass


def _bound(v):
    return v._data if isinstance(v, Tensor) else v


def _clamp_np(d, lo, hi, dt):
    lo, hi = _bound(lo), _bound(hi)
    with np.errstate(invalid="ignore"):
        if lo is not None:
            d = np.where(np.isnan(lo), lo, np.maximum(d, lo)) if np.asarray(lo).dtype.kind == "f" \
                else np.maximum(d, lo)
        if hi is not None:
            d = np.where(np.isnan(hi), hi, np.minimum(d, hi)) if np.asarray(hi).dtype.kind == "f" \
                else np.minimum(d, hi)
    return np.asarray(d).astype(dt.np, copy=False)


def _clamp_mask(a, lo, hi):
    lo, hi = _bound(lo), _bound(hi)
    mask = np.ones(a.shape, bool)
    if lo is not None:
        mask = mask & (a >= lo)
    if hi is not None:
        mask = mask & (a <= hi)
    return mask


class ClampBackward0(Op):
    """clamp with tensor bounds: gradients also flow to min (where input < min < max) and
    max (where input > max, or everywhere max < min)."""
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, lo, hi):
        ctx.save_for_backward(a, lo, hi)
        dt = _dt.result_type(*(v for v in (a, lo, hi) if v is not None))
        shapes = [v._data.shape for v in (a, lo, hi) if v is not None]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise _broadcast_error(np.empty(shapes[0]), np.empty(np.broadcast_shapes(*shapes[1:]))
                                   if len(shapes) > 2 else np.empty(shapes[1])) from None
        return _clamp_np(a._data.astype(dt.np, copy=False), lo, hi, dt)

    @staticmethod
    def backward(ctx, g):
        a, lo, hi = ctx.saved_tensors
        d = a._data
        fd = g._data.dtype
        ga = g * Tensor._make(_clamp_mask(d, lo, hi).astype(fd))
        glo = ghi = None
        if lo is not None and hi is not None:
            glo = g * Tensor._make(((d < lo._data) & (lo._data < hi._data)).astype(fd))
            ghi = g * Tensor._make(((d > hi._data) | (hi._data < lo._data)).astype(fd))
        elif lo is not None:
            glo = g * Tensor._make((d < lo._data).astype(fd))
        else:
            ghi = g * Tensor._make((d > hi._data).astype(fd))
        return ga, glo, ghi


class ClampMinBackward1(ClampBackward0):
    pass


class ClampMaxBackward1(ClampBackward0):
    pass


def _check_bound(v, fn, pos, name):
    if v is not None and not isinstance(v, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Number, not {type(v).__name__}")


@register(category="pointwise", methods=("clamp", "clip"), inplace="clamp_")
def clamp(input, min=None, max=None, *, out=None):
    """Clamp into [min, max]; gradient passes where min <= input <= max."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_bound(min, "clamp", 2, "min")
    _check_bound(max, "clamp", 3, "max")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if (min is not None and not isinstance(min, Tensor)) or (max is not None and not isinstance(max, Tensor)):
            raise TypeError("clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{type(min).__name__}, {type(max).__name__}), but expected one of:\n"
                            " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        return _out(ClampBackward0.apply(input, min, max), out)
    return _out(ClampBackward1.apply(input, min, max), out)


@register(category="pointwise", methods=("clamp_min",), inplace="clamp_min_")
def clamp_min(input, min, *, out=None):
    """max(input, min) elementwise."""
    if isinstance(min, Tensor):
        return _out(ClampMinBackward1.apply(input, min, None), out)
    _check_bound(min, "clamp_min", 2, "min")
    return _out(ClampMinBackward0.apply(input, min, None), out)


@register(category="pointwise", methods=("clamp_max",), inplace="clamp_max_")
def clamp_max(input, max, *, out=None):
    """min(input, max) elementwise."""
    if isinstance(max, Tensor):
        return _out(ClampMaxBackward1.apply(input, None, max), out)
    _check_bound(max, "clamp_max", 2, "max")
    return _out(ClampMaxBackward0.apply(input, None, max), out)


class WhereBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, cond, a, b):
        c = cond._data
        if c.dtype != np.bool_:
            if c.dtype == np.uint8:
                import warnings
                warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be "
                              "removed in a future version of PyTorch. Use a boolean condition instead.",
                              UserWarning, stacklevel=4)
                c = c.astype(bool)
            else:
                raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                   f"{_long(cond.dtype)}")
        ctx.cond = c
        dt = _dt.result_type(a, b)
        x, y = _operand(a, dt.np), _operand(b, dt.np)
        try:
            np.broadcast_shapes(c.shape, np.shape(x), np.shape(y))
        except ValueError:
            shp = [np.shape(x), np.shape(y)]
            raise _broadcast_error(c, x if np.broadcast_shapes(*shp) is None else np.empty(np.broadcast_shapes(*shp))) from None
        return np.asarray(np.where(c, x, y), dtype=dt.np)

    @staticmethod
    def backward(ctx, g):
        c = Tensor._make(ctx.cond)
        z = zeros_like_t(g)
        return None, where(c, g, z), where(c, z, g)


_long = _dt.scalar_name


@register(category="pointwise")
def where(condition, input=None, other=None, *, out=None):
    """where(cond, x, y) picks x where cond else y; where(cond) is nonzero(cond, as_tuple=True)."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, "
                        f"{type(input if other is None else other).__name__}), but expected one of:\n"
                        " * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out)\n"
                        " * (Tensor condition, Tensor input, Number other)\n"
                        " * (Tensor condition, Number input, Tensor other)\n"
                        " * (Tensor condition, Number input, Number other)\n")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np))
    return _out(WhereBackward0.apply(condition, input, other), out)


class LerpBackward0(Op):
    """lerp with a scalar weight."""
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(*_tensors(a, b, w))
        ctx.w = None if isinstance(w, Tensor) else w
        if a._data.dtype.kind != "f":
            raise NotImplementedError(f"\"lerp_kernel_{'tensor' if isinstance(w, Tensor) else 'scalar'}\" "
                                      f"not implemented for '{_long(a.dtype)}'")
        for name, t in (("end", b), ("weight", w)):
            if isinstance(t, Tensor) and t._data.dtype != a._data.dtype:
                from .linalg import _CPP
                raise RuntimeError(f"expected dtype {_CPP[a.dtype.name]} for `{name}` but got dtype "
                                   f"{_CPP[t.dtype.name]}")
        x, y = a._data, b._data
        wv = w._data if isinstance(w, Tensor) else x.dtype.type(w)
        try:
            np.broadcast_shapes(x.shape, y.shape, np.shape(wv))
        except ValueError:
            other = y if np.shape(wv) == () else np.empty(np.broadcast_shapes(y.shape, np.shape(wv)))
            raise _broadcast_error(x, other) from None
        # PyTorch's lerp: from whichever end is nearer, for accuracy
        with np.errstate(all="ignore"):
            return np.asarray(np.where(np.abs(wv) < 0.5, x + wv * (y - x), y - (y - x) * (1 - wv)), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        if ctx.w is not None:
            w = ctx.w
            return g * (1 - w), g * w, None
        a, b, w = saved
        return g * (1 - w), g * w, g * (b - a)


class LerpBackward1(LerpBackward0):
    """lerp with a tensor weight (the weight gets a gradient too)."""


@register(category="pointwise", methods=("lerp",), inplace="lerp_")
def lerp(input, end, weight, *, out=None):
    """input + weight * (end - input)."""
    if not isinstance(weight, (Tensor, int, float, np.number)) or isinstance(weight, bool):
        raise TypeError(f"lerp(): argument 'weight' must be Tensor or Number, not {type(weight).__name__}")
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {_dt.cpp_name(input.dtype)} for `{name}` but got dtype "
                               f"{_dt.cpp_name(t.dtype)}")
    if isinstance(weight, Tensor):
        return _out(LerpBackward1.apply(input, end, weight), out)
    return _out(LerpBackward0.apply(input, end, weight), out)


class Atan2Backward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        dt = _dt.result_type(a, b)
        if not dt.is_floating_point:
            dt = _dt.get_default_dtype()
        return _binary(a, b, np.arctan2, dt)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        r = a * a + b * b
        return (g * b / r if _g_for(ctx, 0) else None), (g * -a / r if _g_for(ctx, 1) else None)


@register(category="pointwise", methods=("atan2", "arctan2"), inplace="atan2_")
def atan2(input, other, *, out=None):
    """Elementwise arctangent of input / other, using both signs to pick the quadrant."""
    if not isinstance(other, Tensor):
        raise TypeError(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(Atan2Backward0.apply(input, other), out)


# -- casting ----------------------------------------------------------------------------------------

class ToCopyBackward0(Op):
    @staticmethod
    def forward(ctx, a, dt):
        return a._data.astype(dt.np)

    @staticmethod
    def backward(ctx, g):
        return g


def _to_dtype(t, dt):
    """Differentiable dtype conversion (the backward casts the gradient back)."""
    r = ToCopyBackward0.apply(t, dt)
    if not dt.is_floating_point and r._requires_grad:
        r._requires_grad = False
        r.grad_fn = None
    return r


class CloneBackward0(Op):
    @staticmethod
    def forward(ctx, a):
        return a._data.copy(order="K")   # preserve_format: a dense input keeps its strides

    @staticmethod
    def backward(ctx, g):
        return g


@register(category="pointwise", methods=("clone",))
def clone(input, *, memory_format=None):
    """A copy that stays in the graph (gradient flows back unchanged)."""
    return CloneBackward0.apply(input)


# -- in-place helpers that are not derived from an out-of-place op ---------------------------------

def zero_(self):
    """Fill with zeros in place."""
    return fill_(self, 0, _zero=True)


class FillBackward2(Op):
    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return np.full(a._data.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0


class ZeroBackward0(FillBackward2):
    pass


class FillBackward3(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, value):
        return np.full(a._data.shape, value._data, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0, g.sum()


def fill_(self, value, *, _zero=False):
    """Fill with a scalar (or 0-d tensor) in place."""
    from .inplace import check_inplace, rebase, snapshot, write_result
    check_inplace(self)
    from ..autograd.grad_mode import STATE
    if not isinstance(value, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got ({type(value).__name__}), "
                        "but expected one of:\n * (Tensor value)\n * (Number value)\n")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    if STATE.grad_enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        node = FillBackward3 if isinstance(value, Tensor) else (ZeroBackward0 if _zero else FillBackward2)
        r = node.apply(snapshot(self), value)
        write_result(self, r, "fill_")
        rebase(self, r)
        return self
    v = value._data if isinstance(value, Tensor) else value
    self._data[...] = v
    if not self._inference:
        self._vc[0] += 1
    return self


class CopyBackwards(Op):
    grads_per_arg = True

    def name(self):
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src._data.dtype
        return np.broadcast_to(src._data, a._data.shape).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0, g


def copy_(self, src, non_blocking=False):
    """Copy src into self (broadcasting src, casting to self's dtype), in place."""
    from .inplace import check_inplace, rebase, snapshot
    from ..autograd.grad_mode import STATE
    check_inplace(self)
    if not isinstance(src, Tensor):
        src = Tensor._make(np.asarray(src))
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must match "
                           f"the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
                           f"non-singleton dimension {max(self._data.ndim - 1, 0)}") from None
    if STATE.grad_enabled and (self._requires_grad or src._requires_grad):
        r = CopyBackwards.apply(snapshot(self), src)
        np.copyto(self._data, r._data)
        self._vc[0] += 1
        rebase(self, r)
        return self
    np.copyto(self._data, src._data, casting="unsafe")
    if not self._inference:
        self._vc[0] += 1
    return self


Tensor.zero_ = zero_
Tensor.fill_ = fill_
Tensor.copy_ = copy_


# -- aliases, in-place operators, methods whose self is not the first argument ---------------------

def _where_method(self, condition, other):
    """Tensor.where(condition, y) == torch.where(condition, self, y)."""
    return where(condition, self, other)


Tensor.where = _where_method

_ALIASES = {"subtract": sub, "multiply": mul, "divide": div, "true_divide": div, "negative": neg,
            "absolute": abs, "clip": clamp, "arcsin": asin, "arccos": acos, "arctan": atan, "arctan2": atan2,
            "not_equal": ne, "less": lt, "less_equal": le, "greater": gt, "greater_equal": ge, "fix": trunc}


def _scalar_clamp_inplace(method):
    import functools
    from .linalg import _CPP

    @functools.wraps(method)
    def clamp_inplace(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except RuntimeError as e:
            msg = str(e)
            if "can't be cast to the desired output type" in msg and \
                    not any(isinstance(v, Tensor) for v in (*args, *kwargs.values())):
                raise RuntimeError(msg.rsplit(" ", 1)[0] + " " + _CPP[self.dtype.name]) from None
            raise
    return clamp_inplace


def _install_aliases():
    from .registry import FUNCTIONS
    from .inplace import make_inplace
    for alias, target in _ALIASES.items():
        FUNCTIONS.setdefault(alias, target)
        globals()[alias] = target
        base = getattr(Tensor, target.__name__ + "_", None)
        if base is not None and not hasattr(Tensor, alias + "_"):
            setattr(Tensor, alias + "_", base)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"):
        setattr(Tensor, name + "_", make_inplace(globals()[name], name + "_"))
    # clamp with Number bounds checks the in-place cast in C++ type names ("long int"), unlike other ops
    for name in ("clamp_", "clip_", "clamp_min_", "clamp_max_"):
        setattr(Tensor, name, _scalar_clamp_inplace(getattr(Tensor, name)))
    # `t += x` is in place in PyTorch (views and aliases see the change)
    for dunder, method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                           ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_"),
                           ("__ipow__", "pow_")):
        setattr(Tensor, dunder, getattr(Tensor, method))


_install_aliases()


def _mark_elementwise():
    """Every Op in this module is elementwise: keep the input's memory layout, as PyTorch does."""
    for obj in list(globals().values()):
        if isinstance(obj, type) and issubclass(obj, Op) and obj.__module__ == __name__:
            obj.contiguous_output = False


_mark_elementwise()
