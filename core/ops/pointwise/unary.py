"""Unary elementwise ops (neg, abs, exp/log families, trig, sqrt, sigmoid, relu, sign, floor/ceil/trunc,
frac, erf, round) from one factory: NumPy forward, gradient formula in core ops, optional NumPy twin."""
from __future__ import annotations

import math

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from .. import registry
from ..registry import register
from ._common import _ERRSTATE, _IGNORE, _kernel_error, _out, quietly


def _unary(name, np_fn, grad, *, save="input", float_only=True, methods=None, inplace=True, doc="", node=None,
           no_bool=None, no_int=None, grad_np=None, **extras):
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
        r = quietly(np_fn, d)
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
            return quietly(gnp, g, a, o)
        attrs["backward_np"] = staticmethod(backward_np)
    cls = type(node_name, (Op,), attrs)

    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        r = cls.apply(input)
        return r if out is None else _out(r, out)
    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name}."
    register(category="pointwise", methods=(name,) if methods is None else methods,
             inplace=(name + "_") if inplace else None, **extras)(fn)
    return fn, cls


def _sign0(x):
    """sign with NaN -> 0, as PyTorch's abs backward (sgn(nan) gives a zero gradient)."""
    s = np.sign(x)
    return np.where(np.isnan(s), s.dtype.type(0), s) if s.dtype.kind == "f" else s


def _sgn(t):
    return Tensor._make(_sign0(t._data))


neg, NegBackward0 = _unary("neg", np.negative, lambda g, a, o: -g, save=None, float_only=False, grad_np=True,
                           methods=("neg", "negative", "__neg__"), doc="-input.",
                           no_bool=RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                                                "are trying to invert a mask, use the `~` or `logical_not()` operator "
                                                "instead."))
negative = neg
registry.method("negative_", registry.METHODS["neg_"])
registry.method("__pos__", lambda self: self)
abs, AbsBackward0 = _unary("abs", np.abs, lambda g, a, o: g * _sgn(a), float_only=False,
                           grad_np=lambda g, a, o: g * _sign0(a).astype(g.dtype),
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


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
# 1 as a 0-d array of each float dtype: a strong operand of the same dtype computes what the Python int 1 (a weak
# scalar cast to that dtype) computes, without converting the int on every call (~0.25 us each, issue #15)
_ONE = {np.dtype(t): np.ones((), t) for t in (np.float16, np.float32, np.float64)}
_ONE32, _ONE64 = _ONE[_F32], _ONE[_F64]
_neg, _exp, _add, _div = np.negative, np.exp, np.add, np.divide   # module globals: no `np.` lookup a call


def _sigmoid_np(x, one=1):
    """1 / (1 + exp(-x)), the same operations in one buffer (overflow of exp(-x) is silenced by the caller)."""
    if not x.ndim:
        return (1 / (1 + np.exp(-x))).astype(x.dtype)
    e = np.negative(x)
    np.exp(e, out=e)
    np.add(e, one, out=e)
    return np.divide(one, e, out=e)


class SigmoidBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a):
        d = a._data
        if d.dtype.kind != "f":
            d = d.astype(_dt.get_default_dtype().np)
        r = quietly(_sigmoid_np, d, _ONE.get(d.dtype, 1))
        return r if type(r) is np.ndarray else np.asarray(r, dtype=d.dtype)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out * (1 - out)

    @staticmethod
    def backward_np(ctx, g):
        o = ctx.saved_tensors[0]._data
        return quietly(_sigmoid_grad_np, g, o)


def _sigmoid_grad_np(g, o):
    return g * o * (1 - o)


@register(category="pointwise", methods=("sigmoid",), inplace="sigmoid_")
def sigmoid(input, *, out=None):
    """1 / (1 + exp(-input))."""
    if type(input) is Tensor and out is None and not (input._requires_grad and STATE.grad_enabled):
        x = input._data    # no graph to record: the forward's operations with no Op.apply, ctx or checks
        dt = x.dtype
        if (dt is _F32 or dt is _F64) and x.ndim and x.flags.c_contiguous and _ERRSTATE is not None:
            one = _ONE32 if dt is _F32 else _ONE64
            token = _ERRSTATE.set(_IGNORE)
            try:    # out= passed by position: ~30 ns less a call than the keyword
                e = _neg(x)
                _exp(e, e)
                _add(e, one, e)
                _div(one, e, e)
            finally:
                _ERRSTATE.reset(token)
            return Tensor._make(e)
    if not isinstance(input, Tensor):
        raise TypeError(f"sigmoid(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    r = SigmoidBackward0.apply(input)
    return r if out is None else _out(r, out)


reciprocal, ReciprocalBackward0 = _unary("reciprocal", lambda x: 1 / x, lambda g, a, o: -g * (o * o), save="output")


def _relu_np(x):
    """max(x, 0) keeping x on a tie (-0.0 stays -0.0, as torch's clamp_min): NumPy keeps the second operand."""
    return np.maximum(x.dtype.type(0), x).astype(x.dtype, copy=False)


def _threshold_grad(g, a, o):
    """PyTorch's threshold_backward: 0 where out <= 0, so NaN passes the gradient through."""
    return g.masked_fill(o <= 0, 0)


relu, ReluBackward0 = _unary("relu", _relu_np, _threshold_grad, save="output", float_only=False,
                             doc="max(input, 0); gradient 0 at 0.",
                             no_bool=RuntimeError("Boolean inputs not supported for relu"),
                             grad_np=lambda g, a, o: np.where(o <= 0, g.dtype.type(0), g))


def _zero_grad(g, a, o):
    return g.new_zeros(g.shape)       # zeros_like(grad): +0 even where grad is negative, inf or NaN


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
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


erf, ErfBackward0 = _unary("erf", _erf_np, lambda g, a, o: g * (2 / float(np.sqrt(np.pi))) * exp(-a * a))


def _round_decimals(d, decimals):
    """PyTorch: decimals > 0 -> nearbyint(x * 10^d) / 10^d; decimals < 0 -> nearbyint(x / 10^-d) * 10^-d."""
    if decimals > 0:
        p = d.dtype.type(10.0 ** decimals)
        return (np.round(d * p) / p).astype(d.dtype)
    p = d.dtype.type(10.0 ** -decimals)
    return (np.round(d / p) * p).astype(d.dtype)


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
        return quietly(_round_decimals, d, decimals)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape)


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

