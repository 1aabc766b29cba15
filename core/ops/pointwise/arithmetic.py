"""add, sub, rsub, mul, div, floor_divide, remainder, fmod, atan2 and their reflected operators,
with PyTorch's type promotion, alpha checks, rounding modes and integer-division errors."""
from __future__ import annotations

import functools

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import registry
from ..inplace import make_inplace
from ..registry import register
from ...autograd.grad_mode import STATE
from ...autograd.node import _NONES, FREED_MSG
from ._common import (_ERRSTATE, _IGNORE, _Binary, _binary, _check_operand, _g_for, _is_bool, _not_implemented_node,
                      _out, _tensor_first, _tensors, _wrap, quietly)
from .unary import reciprocal

_NO_SAVED2 = _NONES.setdefault(2, (None, None))

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

    a_t = b_t = True     # set per node when an operand is a number (kept in a_s / b_s)
    a_s = b_s = None

    @staticmethod
    def forward(ctx, a, b):
        ng = ctx.needs_input_grad
        if not ng:      # no graph: nothing to remember
            return _binary(a, b, np.multiply, quiet=False)
        tb = type(b)
        if (tb is float or tb is int) and type(a) is Tensor:
            # tensor * number: nothing saved (the shared tuple of Nones save_for_backward(None, None) stores)
            ctx.b_t = False
            ctx.b_s = b
            ctx._saved = _NO_SAVED2
            return _binary(a, b, np.multiply, quiet=False)
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.a_s = None if ctx.a_t else a
        ctx.b_s = None if ctx.b_t else b
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
        if not ctx.b_t and ctx.a_t and ctx.needs_input_grad[0]:
            if ctx._freed:      # what saved_tensors raises on a second backward
                raise RuntimeError(FREED_MSG)
            return g * ctx.b_s, None
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
            return (g.new_zeros(g.shape) if _g_for(ctx, 0) else None), (g.new_zeros(g.shape) if _g_for(ctx, 1) else None)
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else ctx.a_s
        b = saved.pop(0) if ctx.b_t else ctx.b_s
        ga = g / b if _g_for(ctx, 0) else None
        gb = -g * ((a / b) / b) if _g_for(ctx, 1) else None     # div_tensor_other_backward's order
        return ga, gb


class DivBackward2(DivBackward0):
    """div(a, b, rounding_mode=...): zero gradient for 'trunc'/'floor', true-division gradient for None."""


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


# -- public binary functions -----------------------------------------------------------------

_NO_KWARGS = {}


@register(category="pointwise", methods=("add", "__add__", "__radd__"), inplace="add_")
def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, broadcasting and promoting like PyTorch."""
    if type(other) is Tensor and type(input) is Tensor and out is None and type(alpha) is int and alpha == 1:
        # same-dtype tensors without a graph: AddBackward0.apply's result, without its frames
        d, e = input._data, other._data
        if d.dtype == e.dtype and not (STATE.grad_enabled and (input._requires_grad or other._requires_grad)):
            tok = _ERRSTATE.set(_IGNORE)    # quietly(), inlined on this hot path: torch never warns on inf/nan
            try:
                return _wrap(np.add(d, e))
            except ValueError:
                pass    # a broadcasting error: the general path words it as PyTorch does
            finally:
                _ERRSTATE.reset(tok)
    if type(other) is not Tensor:
        to = type(other)
        if ((to is float or to is int) and type(input) is Tensor and input._requires_grad and out is None
                and STATE.grad_enabled and type(alpha) is int and alpha == 1):
            # x + 1 on a graph: the node Op.apply would record for (x,), without its scan of the arguments
            return AddBackward0._record((input,), (input, other, alpha), _NO_KWARGS)
        _check_operand(other, "add")
        if not isinstance(input, Tensor):
            input, other = other, input
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(alpha, "add", input, other)
    r = AddBackward0.apply(input, other, alpha)
    return r if out is None else _out(r, out)


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
    if type(other) is Tensor and type(input) is Tensor and out is None and type(alpha) is int and alpha == 1:
        # same-dtype (not bool) tensors without a graph: SubBackward0.apply's result, without its frames
        d, e = input._data, other._data
        if (d.dtype == e.dtype and d.dtype.kind != "b"
                and not (STATE.grad_enabled and (input._requires_grad or other._requires_grad))):
            tok = _ERRSTATE.set(_IGNORE)    # quietly(), inlined on this hot path: torch never warns on inf/nan
            try:
                return _wrap(np.subtract(d, e))
            except ValueError:
                pass    # a broadcasting error: the general path words it as PyTorch does
            finally:
                _ERRSTATE.reset(tok)
    if type(other) is not Tensor:
        _check_operand(other, "sub")
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(alpha, "sub", input, other)
    r = SubBackward0.apply(input, other, alpha)
    return r if out is None else _out(r, out)


def _fast_inplace(ufunc, generic):
    """`t.add_(other)` / `sub_` / `mul_` straight into t's buffer in the case the generic variant would
    also write with the ufunc (no graph to record, a same-shape same-dtype float tensor or a Python
    number, a writeable non-inference tensor); every other call goes to the generic variant."""
    @functools.wraps(generic)
    def method(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and not self._inference:
            other = args[0]
            d = self._data
            to = type(other)
            if to is Tensor:
                o = other._data
                if (o.shape == d.shape and o.dtype == d.dtype and d.dtype.kind == "f" and d.flags.writeable
                        and not (STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                                         or self._base is not None))):
                    quietly(ufunc, d, o, out=d)
                    self._vc[0] += 1
                    return self
            elif ((to is float or to is int) and d.dtype.kind == "f" and d.flags.writeable
                    and not (STATE.grad_enabled and (self._requires_grad or self._base is not None))):
                quietly(ufunc, d, other, out=d)
                self._vc[0] += 1
                return self
        return generic(self, *args, **kwargs)
    return method


def _rsub(self, other):
    """Tensor.__rsub__(other) = other - self; a Tensor other gets its gradient (RsubBackward0), as in PyTorch."""
    return (RsubBackward0 if isinstance(other, Tensor) else RsubBackward1).apply(self, other)


registry.method("__rsub__", _rsub)


@register(category="pointwise")
def rsub(input, other, *, alpha=1):
    """other - alpha * input (sub with the operands swapped)."""
    _tensor_first("rsub", input, other)
    _check_operand(other, "rsub")
    if isinstance(other, Tensor):
        return RsubBackward0.apply(input, other, alpha)
    return RsubBackward1.apply(input, other, alpha)


@register(category="pointwise", methods=("mul", "multiply", "__mul__", "__rmul__"), inplace="mul_")
def mul(input, other, *, out=None):
    """input * other, elementwise with broadcasting."""
    if type(input) is Tensor and out is None:
        # without a graph, the operands _binary passes to np.multiply unchanged: MulBackward0.apply's result
        d, to = input._data, type(other)
        if to is Tensor:
            if (other._data.dtype == d.dtype
                    and not (STATE.grad_enabled and (input._requires_grad or other._requires_grad))):
                tok = _ERRSTATE.set(_IGNORE)    # quietly(), inlined on this hot path: torch never warns on inf/nan
                try:
                    return _wrap(np.multiply(d, other._data))
                except ValueError:
                    pass    # a broadcasting error: the general path words it as PyTorch does
                finally:
                    _ERRSTATE.reset(tok)
        elif (to is float or to is int) and d.dtype.kind == "f" and not (STATE.grad_enabled and input._requires_grad):
            tok = _ERRSTATE.set(_IGNORE)
            try:
                return _wrap(np.multiply(d, other))
            finally:
                _ERRSTATE.reset(tok)
    if type(other) is not Tensor:
        _check_operand(other, "mul")
    r = MulBackward0.apply(input, other)
    return r if out is None else _out(r, out)


for _op, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply)):
    registry.add_inplace(_op, _op + "_", _fast_inplace(_ufunc, registry.METHODS[_op + "_"]))


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


registry.method("__rtruediv__", _rtruediv)

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


_FLOOR_DIVIDE_INPLACE = make_inplace(lambda self, other: _floor_divide_impl(self, other, _FloorDivideNI_),
                                     "floor_divide_")


def _rfloordiv(self, other):
    dt = _floor_divide(other, self)
    return _FloorDivideNI.apply(lambda a, b: _binary(a, b, _floor_div, dt), other, self)


registry.method("__rfloordiv__", _rfloordiv)


@register(category="pointwise", methods=("remainder", "__mod__"), inplace="remainder_")
def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of the divisor."""
    _tensor_first("remainder", input, other, scalar_self=True)
    _check_operand(other, "remainder")
    if not isinstance(input, Tensor):
        return _out(_rmod(other, input), out)
    return _out((RemainderBackward1 if isinstance(other, Tensor) else RemainderBackward0).apply(input, other), out)


def _rmod(self, other):
    """Tensor.__rmod__(other) = remainder(other, self): differentiable in both when other is a Tensor;
    remainder(Scalar, Tensor) has no derivative in PyTorch."""
    if isinstance(other, Tensor):
        return remainder(other, self)
    dt = _dt.result_type(other, self)
    _no_bool(dt, "remainder_cpu")
    if not dt.is_floating_point:
        _check_int_div(self)
    return _RemainderNI.apply(lambda a, b: _binary(a, b, _py_remainder, dt), other, self)


registry.method("__rmod__", _rmod)


@register(category="pointwise", methods=("fmod",), inplace="fmod_")
def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of the dividend."""
    _tensor_first("fmod", input, other)
    _check_operand(other, "fmod")
    return _out((FmodBackward1 if isinstance(other, Tensor) else FmodBackward0).apply(input, other), out)



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
        rec = (a * a + b * b).reciprocal()
        rec = rec.masked_fill(rec.isinf(), 0)     # PyTorch: 0 at (0, 0), not NaN
        return (g * b * rec if _g_for(ctx, 0) else None), (g * -a * rec if _g_for(ctx, 1) else None)


@register(category="pointwise", methods=("atan2", "arctan2"), inplace="atan2_")
def atan2(input, other, *, out=None):
    """Elementwise arctangent of input / other, using both signs to pick the quadrant."""
    _tensor_first("atan2", input, other)
    if not isinstance(other, Tensor):
        raise TypeError(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(Atan2Backward0.apply(input, other), out)



class MulBackward1(_Binary):
    """mul(Tensor, Scalar), the overload ATen's composite ops (trapezoid, ...) call."""

    @staticmethod
    def forward(ctx, a, s):
        ctx.s = s
        return _binary(a, s, np.multiply)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.s, None


class DivBackward1(_Binary):
    """div(Tensor, Scalar), the overload ATen's composite ops call (true division)."""

    @staticmethod
    def forward(ctx, a, s):
        ctx.s = s
        dt = _dt.result_type(a, s)
        return _binary(a, s, np.true_divide, dt if dt.is_floating_point else _dt.get_default_dtype())

    @staticmethod
    def backward(ctx, g):
        return g / ctx.s, None
