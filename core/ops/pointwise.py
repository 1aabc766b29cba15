"""Elementwise ops with broadcasting and PyTorch's type promotion; backward next to forward."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Size, Tensor
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
        raise _broadcast_error(x, y) from None


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
        if (isinstance(a, Tensor) and a._data.dtype == np.bool_) and (not isinstance(b, Tensor) or b._data.dtype == np.bool_):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
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


class MulBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*_tensors(a, b))
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.a_s = None if ctx.a_t else a
        ctx.b_s = None if ctx.b_t else b
        return _binary(a, b, np.multiply, quiet=False)

    @staticmethod
    def backward(ctx, g):
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else ctx.a_s
        b = saved.pop(0) if ctx.b_t else ctx.b_s
        ga = g * b if _g_for(ctx, 0) else None
        gb = g * a if _g_for(ctx, 1) else None
        return ga, gb

    @staticmethod
    def backward_np(ctx, g):
        saved = list(ctx.saved_tensors)
        a = saved.pop(0)._data if ctx.a_t else ctx.a_s
        b = saved.pop(0)._data if ctx.b_t else ctx.b_s
        return (g * b if _g_for(ctx, 0) else None), (g * a if _g_for(ctx, 1) else None)


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
        if not dt.is_floating_point:
            _check_int_div(b)
        if rounding_mode == "trunc":
            if dt.is_floating_point:
                return _binary(a, b, lambda x, y: np.trunc(x / y).astype(x.dtype if hasattr(x, "dtype") else dt.np), dt)
            return _binary(a, b, lambda x, y: (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(dt.np), dt)
        if rounding_mode == "floor":
            return _binary(a, b, _floor_div, dt)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")

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


class RemainderBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        dt = _dt.result_type(a, b)
        if not dt.is_floating_point:
            _check_int_div(b)
        ctx.save_for_backward(*_tensors(a, b))
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.b_s = None if ctx.b_t else b
        return _binary(a, b, np.remainder)

    @staticmethod
    def backward(ctx, g):
        saved = list(ctx.saved_tensors)
        a = saved.pop(0) if ctx.a_t else None
        b = saved.pop(0) if ctx.b_t else ctx.b_s
        gb = None
        if _g_for(ctx, 1):
            gb = -g * floor_divide(a, b)
        return g, gb


class FmodBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        dt = _dt.result_type(a, b)
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


class PowBackward0(_Binary):
    """pow(tensor, scalar): d/dx = e * x^(e-1) (zero when e == 0)."""

    @staticmethod
    def forward(ctx, a, e):
        ctx.save_for_backward(a)
        ctx.e = e
        dt = _dt.result_type(a, e)
        if not dt.is_floating_point and not isinstance(e, bool) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _binary(a, e, np.power, dt)

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
        return _binary(a, b, np.power, dt)

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        ga = g * b * a ** (b - 1) if _g_for(ctx, 0) else None
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
        return _binary(base, e, np.power)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        if ctx.base == 0:
            return None, g * 0
        return None, g * out * float(np.log(ctx.base))


def zeros_like_t(t):
    return Tensor._make(np.zeros_like(t._data))


# -- public binary functions -----------------------------------------------------------------

@register(category="pointwise", methods=("add", "__add__", "__radd__"), inplace="add_")
def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, broadcasting and promoting like PyTorch."""
    _check_operand(other, "add")
    if not isinstance(input, Tensor):
        input, other = other, input
    return _out(AddBackward0.apply(input, other, alpha), out)


@register(category="pointwise", methods=("sub", "subtract", "__sub__"), inplace="sub_")
def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other."""
    _check_operand(other, "sub")
    return _out(SubBackward0.apply(input, other, alpha), out)


subtract = sub
Tensor.subtract_ = Tensor.sub_


def _rsub(self, other):
    return SubBackward0.apply(other, self)


Tensor.__rsub__ = _rsub


@register(category="pointwise", methods=("mul", "multiply", "__mul__", "__rmul__"), inplace="mul_")
def mul(input, other, *, out=None):
    """input * other, elementwise with broadcasting."""
    _check_operand(other, "mul")
    return _out(MulBackward0.apply(input, other), out)


multiply = mul
Tensor.multiply_ = Tensor.mul_


@register(category="pointwise", methods=("div", "divide", "true_divide", "__truediv__"), inplace="div_")
def div(input, other, *, rounding_mode=None, out=None):
    """input / other: true division (int / int gives the default float) unless rounding_mode is 'trunc' or 'floor'."""
    _check_operand(other, "div")
    return _out(DivBackward0.apply(input, other, rounding_mode), out)


divide = true_divide = div
Tensor.divide_ = Tensor.true_divide_ = Tensor.div_


def _rtruediv(self, other):
    return DivBackward0.apply(other, self)


Tensor.__rtruediv__ = _rtruediv


@register(category="pointwise", methods=("floor_divide", "__floordiv__"), inplace="floor_divide_")
def floor_divide(input, other, *, out=None):
    """Division rounded toward negative infinity (PyTorch >= 1.13 semantics)."""
    return _out(DivBackward0.apply(input, other, "floor"), out)


Tensor.__rfloordiv__ = lambda self, other: DivBackward0.apply(other, self, "floor")


@register(category="pointwise", methods=("remainder", "__mod__"), inplace="remainder_")
def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of the divisor."""
    return _out(RemainderBackward0.apply(input, other), out)


Tensor.__rmod__ = lambda self, other: RemainderBackward0.apply(other, self)


@register(category="pointwise", methods=("fmod",), inplace="fmod_")
def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of the dividend."""
    return _out(FmodBackward0.apply(input, other), out)


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
            from .registry import _short
            raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type {_short(od)}")
    if out._data.shape != r.shape:
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


@register(category="logical", methods=("logical_not",))
def logical_not(input, *, out=None):
    """Elementwise not; returns a bool tensor."""
    return _out(Tensor._make(np.logical_not(input._data)), out)


def _bitwise(np_fn, name, sym):
    def fn(input, other, *, out=None):
        dt = _dt.result_type(input, other)
        if dt.is_floating_point:
            raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Float'")
        return _out(Tensor._make(np.asarray(_binary(input, other, np_fn, dt))), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {sym} of integer or bool tensors."
    return fn


bitwise_and = register(category="logical", methods=("bitwise_and", "__and__", "__rand__"), inplace="__iand__")(_bitwise(np.bitwise_and, "bitwise_and", "&"))
bitwise_or = register(category="logical", methods=("bitwise_or", "__or__", "__ror__"), inplace="__ior__")(_bitwise(np.bitwise_or, "bitwise_or", "|"))
bitwise_xor = register(category="logical", methods=("bitwise_xor", "__xor__", "__rxor__"), inplace="__ixor__")(_bitwise(np.bitwise_xor, "bitwise_xor", "^"))


@register(category="logical", methods=("bitwise_not", "__invert__"))
def bitwise_not(input, *, out=None):
    """~input for bool and integer tensors."""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _out(Tensor._make(np.invert(input._data)), out)


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

def _unary(name, np_fn, grad, *, save="input", float_only=True, methods=None, inplace=True, doc=""):
    """Define a unary op from a NumPy forward and a gradient formula grad(g, x, out)."""
    node_name = name[0].upper() + name[1:] + "Backward0"

    def forward(ctx, a):
        d = a._data
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

    cls = type(node_name, (Op,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                  "save_output": save == "output"})

    def fn(input, *, out=None):
        return _out(cls.apply(input), out)
    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name}."
    register(category="pointwise", methods=methods or (name,), inplace=(name + "_") if inplace else None)(fn)
    return fn, cls


def _sgn(t):
    return Tensor._make(np.sign(t._data))


neg, NegBackward0 = _unary("neg", np.negative, lambda g, a, o: -g, save=None, float_only=False,
                           methods=("neg", "negative", "__neg__"), doc="-input.")
negative = neg
Tensor.negative_ = Tensor.neg_
Tensor.__pos__ = lambda self: self
abs, AbsBackward0 = _unary("abs", np.abs, lambda g, a, o: g * _sgn(a), float_only=False,
                           methods=("abs", "absolute", "__abs__"), doc="|input|; gradient sign(input) (0 at 0).")
absolute = abs
exp, ExpBackward0 = _unary("exp", np.exp, lambda g, a, o: g * o, save="output", doc="e ** input.")
exp2, Exp2Backward0 = _unary("exp2", np.exp2, lambda g, a, o: g * o * float(np.log(2.0)), save="output")
expm1, Expm1Backward0 = _unary("expm1", np.expm1, lambda g, a, o: g * (o + 1), save="output")
log, LogBackward0 = _unary("log", np.log, lambda g, a, o: g / a, doc="Natural logarithm.")
log2, Log2Backward0 = _unary("log2", np.log2, lambda g, a, o: g / (a * float(np.log(2.0))))
log10, Log10Backward0 = _unary("log10", np.log10, lambda g, a, o: g / (a * float(np.log(10.0))))
log1p, Log1pBackward0 = _unary("log1p", np.log1p, lambda g, a, o: g / (a + 1))
sqrt, SqrtBackward0 = _unary("sqrt", np.sqrt, lambda g, a, o: g / (2 * o), save="output", doc="Square root.")
rsqrt, RsqrtBackward0 = _unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda g, a, o: -0.5 * g * o ** 3, save="output")
sin, SinBackward0 = _unary("sin", np.sin, lambda g, a, o: g * cos(a))
cos, CosBackward0 = _unary("cos", np.cos, lambda g, a, o: -g * sin(a))
tan, TanBackward0 = _unary("tan", np.tan, lambda g, a, o: g * (1 + o * o), save="output")
asin, AsinBackward0 = _unary("asin", np.arcsin, lambda g, a, o: g * rsqrt(1 - a * a), methods=("asin", "arcsin"))
acos, AcosBackward0 = _unary("acos", np.arccos, lambda g, a, o: -g * rsqrt(1 - a * a), methods=("acos", "arccos"))
atan, AtanBackward0 = _unary("atan", np.arctan, lambda g, a, o: g / (1 + a * a), methods=("atan", "arctan"))
sinh, SinhBackward0 = _unary("sinh", np.sinh, lambda g, a, o: g * cosh(a))
cosh, CoshBackward0 = _unary("cosh", np.cosh, lambda g, a, o: g * sinh(a))
tanh, TanhBackward0 = _unary("tanh", np.tanh, lambda g, a, o: g * (1 - o * o), save="output", doc="Hyperbolic tangent.")


def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype)


sigmoid, SigmoidBackward0 = _unary("sigmoid", _sigmoid_np, lambda g, a, o: g * o * (1 - o), save="output",
                                   doc="1 / (1 + exp(-input)).")
reciprocal, ReciprocalBackward0 = _unary("reciprocal", lambda x: 1 / x, lambda g, a, o: -g * o * o, save="output")
square, SquareBackward0 = _unary("square", np.square, lambda g, a, o: 2 * g * a, float_only=False)


def _relu_np(x):
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def _threshold_grad(g, a, o):
    return g * (o > 0).to(g.dtype)


relu, ReluBackward0 = _unary("relu", _relu_np, _threshold_grad, save="output", float_only=False,
                             doc="max(input, 0); gradient 0 at 0.")


def _zero_grad(g, a, o):
    return g * 0


sign, SignBackward0 = _unary("sign", np.sign, _zero_grad, save=None, float_only=False)
floor, FloorBackward0 = _unary("floor", np.floor, _zero_grad, save=None, float_only=False)
ceil, CeilBackward0 = _unary("ceil", np.ceil, _zero_grad, save=None, float_only=False)
trunc, TruncBackward0 = _unary("trunc", np.trunc, _zero_grad, save=None, float_only=False, methods=("trunc", "fix"))
frac, FracBackward0 = _unary("frac", lambda x: x - np.trunc(x), lambda g, a, o: g, save=None)


def _erf_np(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


erf, ErfBackward0 = _unary("erf", _erf_np, lambda g, a, o: g * (2 / float(np.sqrt(np.pi))) * exp(-a * a))


class RoundBackward0(Op):
    @staticmethod
    def forward(ctx, a, decimals=0):
        return np.round(a._data, decimals)

    @staticmethod
    def backward(ctx, g):
        return g * 0


@register(category="pointwise", methods=("round",), inplace="round_")
def round(input, *, decimals=0, out=None):
    """Round half to even, like PyTorch."""
    return _out(RoundBackward0.apply(input, decimals), out)


class ClampBackward1(Op):
    @staticmethod
    def forward(ctx, a, min=None, max=None):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = min, max
        dt = _dt.result_type(a, *(v for v in (min, max) if v is not None))
        d = a._data.astype(dt.np, copy=False)
        lo = min._data if isinstance(min, Tensor) else min
        hi = max._data if isinstance(max, Tensor) else max
        if lo is not None:
            d = np.maximum(d, lo) if isinstance(lo, np.ndarray) or not np.isnan(lo) else np.full_like(d, np.nan)
        if hi is not None:
            d = np.minimum(d, hi) if isinstance(hi, np.ndarray) or not np.isnan(hi) else np.full_like(d, np.nan)
        return np.asarray(d).astype(dt.np, copy=False)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        lo, hi = ctx.lo, ctx.hi
        mask = np.ones(a._data.shape, bool)
        if lo is not None:
            mask &= a._data >= (lo._data if isinstance(lo, Tensor) else lo)
        if hi is not None:
            mask &= a._data <= (hi._data if isinstance(hi, Tensor) else hi)
        return g * Tensor._make(mask.astype(g._data.dtype))


@register(category="pointwise", methods=("clamp", "clip"), inplace="clamp_")
def clamp(input, min=None, max=None, *, out=None):
    """Clamp into [min, max]; gradient passes where min <= input <= max."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return _out(ClampBackward1.apply(input, min, max), out)


clip = clamp
Tensor.clip_ = Tensor.clamp_


@register(category="pointwise", methods=("clamp_min",))
def clamp_min(input, min):
    return clamp(input, min=min)


@register(category="pointwise", methods=("clamp_max",))
def clamp_max(input, max):
    return clamp(input, max=max)


class WhereBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, cond, a, b):
        c = cond._data
        if c.dtype != np.bool_:
            if c.dtype == np.uint8:
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


def _long(dt):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "uint8": "Byte",
            "float16": "Half", "int16": "Short", "int8": "Char", "bool": "Bool"}[dt.name]


@register(category="pointwise", methods=("where",))
def where(condition, input=None, other=None, *, out=None):
    """where(cond, x, y) picks x where cond else y; where(cond) is nonzero(cond, as_tuple=True)."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np))
    return _out(WhereBackward0.apply(condition, input, other), out)


class LerpBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(*_tensors(a, b))
        ctx.w = w
        wv = w._data if isinstance(w, Tensor) else w
        return _binary(a, b, lambda x, y: x + wv * (y - x))

    @staticmethod
    def backward(ctx, g):
        w = ctx.w
        return g * (1 - w), g * w, None


@register(category="pointwise", methods=("lerp",))
def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return LerpBackward0.apply(input, end, weight)


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
        return a._data.copy()

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
    from .registry import check_inplace
    return fill_(self, 0)


class FillBackward0(Op):
    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return np.full(a._data.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0


class FillBackward1(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, value):
        return np.full(a._data.shape, value._data, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0, g.sum()


def fill_(self, value):
    """Fill with a scalar (or 0-d tensor) in place."""
    from .registry import check_inplace, rebase, snapshot, write_result
    check_inplace(self)
    from ..autograd.grad_mode import STATE
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    if STATE.grad_enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        r = (FillBackward1 if isinstance(value, Tensor) else FillBackward0).apply(snapshot(self), value)
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

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src._data.dtype
        return np.broadcast_to(src._data, a._data.shape).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 0, g


def copy_(self, src, non_blocking=False):
    """Copy src into self (broadcasting src, casting to self's dtype), in place."""
    from .registry import check_inplace, rebase, snapshot, write_result
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
