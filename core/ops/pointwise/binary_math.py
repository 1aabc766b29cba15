"""Binary elementwise functions PyTorch has beyond the arithmetic operators: hypot, logaddexp(2), copysign,
heaviside, fmax/fmin (NaN-ignoring), gcd/lcm, ldexp, xlogy, bitwise shifts, and isin. Each mirrors
PyTorch's dtype rules (which kernels reject integers, bools or floats), promotion and gradients."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import registry
from . import _glibc_logf
from ..registry import register
from ._common import _Binary, _binary, _g_for, _long, _not_implemented_node, _out, _tensor_first, quietly
from .comparison import isnan
from .power import pow
from .unary import exp, log


class _MathBinary(_Binary):
    """f(a, b) with PyTorch's promotion. Subclasses set `np_fn`, the rejected dtype kinds
    (`reject`: kind letters 'b'/'i'/'f' -> kernel name), `float_out` and `grad(ctx, g, a, b, out)`."""
    np_fn = None
    kernel = ""
    reject = ""
    float_out = False
    save_output = False

    @classmethod
    def _dtype(cls, a, b):
        dt = _dt.result_type(a, b)
        kind = "b" if dt is _dt.bool_ else ("f" if dt.is_floating_point else "i")
        if kind in cls.reject:
            raise NotImplementedError(f"\"{cls.kernel}\" not implemented for '{_long(dt)}'")
        if cls.float_out and kind != "f":
            dt = _dt.get_default_dtype()
        return dt

    @classmethod
    def forward(cls, ctx, a, b):
        dt = cls._dtype(a, b)
        ctx.a_t, ctx.b_t = isinstance(a, Tensor), isinstance(b, Tensor)
        ctx.a_s = None if ctx.a_t else a
        ctx.b_s = None if ctx.b_t else b
        if ctx.needs_input_grad:
            ctx.save_for_backward(a if ctx.a_t else None, b if ctx.b_t else None)
        return _binary(a, b, cls.np_fn, dt)

    @classmethod
    def backward(cls, ctx, g):
        sa, sb = ctx.saved_tensors[:2]
        a = sa if ctx.a_t else ctx.a_s
        b = sb if ctx.b_t else ctx.b_s
        out = ctx.saved_tensors[2] if cls.save_output else None
        return cls.grad(ctx, g, a, b, out)


def _define(name, node, np_fn, grad=None, *, reject="", kernel=None, float_out=False, save_output=False,
            tensor_other=True, doc="", methods=None, inplace=True, public=True, **extras):
    """Register torch.<name>(input, other) computed by `np_fn`; `grad` None means not differentiable
    (integer results) and 'NotImplemented' a node that raises on backward, as PyTorch's."""
    cls = type(node, (_MathBinary,), {"np_fn": staticmethod(np_fn), "kernel": kernel or f"{name}_cpu",
                                      "reject": reject, "float_out": float_out, "save_output": save_output,
                                      "grad": staticmethod(grad or (lambda ctx, g, a, b, out: (None, None)))})

    def fn(input, other, *, out=None):
        _tensor_first(name, input, other)
        if tensor_other and not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
        return _out(cls.apply(input, other), out)
    fn.__name__, fn.__doc__ = name, doc
    if public:
        register(category="pointwise", methods=methods or (name,), inplace=(name + "_") if inplace else None,
                 **extras)(fn)
    return fn, cls


# -- float-only: hypot, logaddexp, logaddexp2 ---------------------------------------------------------------

hypot, HypotBackward0 = _define(
    "hypot", "HypotBackward0", np.hypot, reject="bi", save_output=True,
    grad=lambda ctx, g, a, b, out: (g * a / out if _g_for(ctx, 0) else None, g * b / out if _g_for(ctx, 1) else None),
    doc="sqrt(input ** 2 + other ** 2) without overflow.")
logaddexp, LogaddexpBackward0 = _define(
    "logaddexp", "LogaddexpBackward0", np.logaddexp, reject="bi", inplace=False,
    grad=lambda ctx, g, a, b, out: (g / (1 + exp(b - a)) if _g_for(ctx, 0) else None,
                                    g / (1 + exp(a - b)) if _g_for(ctx, 1) else None),
    doc="log(exp(input) + exp(other)), computed stably.")
logaddexp2, Logaddexp2Backward0 = _define(
    "logaddexp2", "Logaddexp2Backward0", np.logaddexp2, reject="bi", inplace=False,
    grad=lambda ctx, g, a, b, out: (g / (1 + pow(2.0, b - a)) if _g_for(ctx, 0) else None,
                                    g / (1 + pow(2.0, a - b)) if _g_for(ctx, 1) else None),
    doc="log2(2 ** input + 2 ** other), computed stably.")


# -- copysign, fmax, fmin, heaviside -----------------------------------------------------------------------

def _copysign_grad(ctx, g, a, b, out):
    ga = None
    if _g_for(ctx, 0):
        ga = g * (out / a).masked_fill(a == 0, 0)
    return ga, (g.new_zeros(g.shape) if _g_for(ctx, 1) else None)


_, CopysignBackward0 = _define("copysign", "CopysignBackward0", np.copysign, _copysign_grad, float_out=True,
                               save_output=True, public=False)
CopysignBackward1 = type("CopysignBackward1", (CopysignBackward0,), {})


@register(category="pointwise", methods=("copysign",), inplace="copysign_")
def copysign(input, other, *, out=None):
    """|input| with the sign of other (a tensor or a number); integer inputs give the default float."""
    _tensor_first("copysign", input, other)
    node = CopysignBackward0 if isinstance(other, Tensor) else CopysignBackward1
    return _out(node.apply(input, other), out)


def _fmax_grad(ctx, g, a, b, out):
    take_a = (a >= b).logical_or(isnan(b))
    return (g.masked_fill(take_a.logical_not(), 0) if _g_for(ctx, 0) else None,
            g.masked_fill(take_a, 0) if _g_for(ctx, 1) else None)


def _fmin_grad(ctx, g, a, b, out):
    take_a = (a <= b).logical_or(isnan(b))
    return (g.masked_fill(take_a.logical_not(), 0) if _g_for(ctx, 0) else None,
            g.masked_fill(take_a, 0) if _g_for(ctx, 1) else None)


fmax, FmaxBackward0 = _define("fmax", "FmaxBackward0", np.fmax, _fmax_grad, inplace=False,
                              doc="Elementwise maximum that ignores NaN (NaN only where both are NaN).")
fmin, FminBackward0 = _define("fmin", "FminBackward0", np.fmin, _fmin_grad, inplace=False,
                              doc="Elementwise minimum that ignores NaN (NaN only where both are NaN).")

_HeavisideNI = _not_implemented_node("heaviside")


def _heaviside_np(x, v):
    return np.where(x == 0, v, x > 0).astype(np.result_type(x, v), copy=False)


@register(category="pointwise", methods=("heaviside",), inplace="heaviside_")
def heaviside(input, values, *, out=None):
    """0 where input < 0, values where input == 0, 1 where input > 0 (NaN gives 0); no derivative."""
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return _out(_HeavisideNI.apply(lambda a, b: _binary(a, b, _heaviside_np), input, values), out)


# -- integer-only: gcd, lcm, shifts ------------------------------------------------------------------------

gcd, _Gcd = _define("gcd", "GcdBackward0", np.gcd, reject="bf", doc="Greatest common divisor (integers).")
lcm, _Lcm = _define("lcm", "LcmBackward0", np.lcm, reject="bf", doc="Least common multiple (integers).")


def _lshift(x, s):
    bits = np.asarray(x).dtype.itemsize * 8
    ok = (s >= 0) & (s < bits)
    return np.where(ok, np.left_shift(x, np.where(ok, s, 0)), 0).astype(np.asarray(x).dtype, copy=False)


def _rshift(x, s):
    """PyTorch: a shift outside [0, bits) shifts by bits - 1 (0 or -1 for signed types)."""
    bits = np.asarray(x).dtype.itemsize * 8
    ok = (s >= 0) & (s < bits)
    return np.right_shift(x, np.where(ok, s, bits - 1)).astype(np.asarray(x).dtype, copy=False)


def _shift(name, kernel, np_fn, sym):
    node = kernel[0].upper() + kernel[1:].replace("_cpu", "") + "Backward0"   # never recorded: integer results
    cls = type(node, (_MathBinary,), {"np_fn": staticmethod(np_fn), "kernel": kernel, "reject": "bf"})

    def fn(input, other, *, out=None):
        _tensor_first(name, input, other, scalar_self=True)
        if not isinstance(input, Tensor):
            input, other = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np)), other
        return _out(cls.apply(input, other), out)
    fn.__name__, fn.__doc__ = name, f"input {sym} other for integer tensors (out-of-range shifts as PyTorch)."
    return fn


bitwise_left_shift = register(category="logical", methods=("bitwise_left_shift", "__lshift__"),
                              inplace="bitwise_left_shift_")(_shift("bitwise_left_shift", "lshift_cpu", _lshift, "<<"))
bitwise_right_shift = register(category="logical", methods=("bitwise_right_shift", "__rshift__"),
                               inplace="bitwise_right_shift_")(_shift("bitwise_right_shift", "rshift_cpu", _rshift,
                                                                      ">>"))
registry.method("__ilshift__", registry.METHODS["bitwise_left_shift_"])
registry.method("__irshift__", registry.METHODS["bitwise_right_shift_"])
registry.method("__rlshift__", lambda self, other: bitwise_left_shift(other, self))
registry.method("__rrshift__", lambda self, other: bitwise_right_shift(other, self))


# -- ldexp, xlogy ---------------------------------------------------------------------------------------------

def _ldexp_grad(ctx, g, a, b, out):
    p = pow(2.0, b)
    return (g * p if _g_for(ctx, 0) else None), (g * a * p * float(np.log(2.0)) if _g_for(ctx, 1) else None)


ldexp, LdexpBackward0 = _define("ldexp", "LdexpBackward0", lambda x, e: x * np.exp2(e), _ldexp_grad, float_out=True,
                                doc="input * 2 ** other (the result is floating point).")


def _xlogy_np(x, y):
    """xlogy_kernel: x * std::log(y) (glibc's logf for float32: pointwise/_glibc_logf.py), 0 where x == 0 unless y is NaN."""
    zero = (x == 0) & ~np.isnan(y)
    some = zero.any()
    yy = np.where(zero, 1, y) if some else np.asarray(y)
    ly = _glibc_logf.logf(yy) if yy.dtype == np.float32 else np.log(yy)
    r = x * ly
    return (np.where(zero, 0, r) if some else r).astype(np.result_type(x, y), copy=False)


def _xlogy_grad(ctx, g, a, b, out):
    """As PyTorch 2.13 computes it: d/dx = log(y), except 0 where x == 0 and y <= 0; d/dy = x / y."""
    ga = gb = None
    if _g_for(ctx, 0):
        # derivatives.yaml: at::xlogy(grad, other), masked
        ga = xlogy(g, b) if isinstance(b, Tensor) else \
            g * Tensor._make(np.asarray(_log_scalar(b), dtype=g._data.dtype))
        ga = ga.masked_fill((a == 0).logical_and(b <= 0 if isinstance(b, Tensor) else
                                                     Tensor._make(np.asarray(b <= 0))), 0)
    if _g_for(ctx, 1):
        gb = g * a / b
    return ga, gb


_, XlogyBackward0 = _define("xlogy", "XlogyBackward0", _xlogy_np, _xlogy_grad, float_out=True, public=False)
XlogyBackward1 = type("XlogyBackward1", (XlogyBackward0,), {})
XlogyBackward2 = type("XlogyBackward2", (XlogyBackward0,), {})


@register(category="pointwise", methods=("xlogy",), inplace="xlogy_")
def xlogy(input, other, *, out=None):
    """input * log(other), and 0 where input == 0 (unless other is NaN); either side may be a number."""
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError("xlogy() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(other).__name__})")
        return _out(XlogyBackward1.apply(input, other), out)
    node = XlogyBackward0 if isinstance(other, Tensor) else XlogyBackward2
    return _out(node.apply(input, other), out)


def _log_scalar(v):
    return float(quietly(np.log, np.float64(v)))


# -- isin -------------------------------------------------------------------------------------------------------

@register(category="comparison")
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (either may be a number)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    dt = _dt.result_type(elements, test_elements).np
    r = quietly(np.isin, e.astype(dt, copy=False), t.astype(dt, copy=False).reshape(-1))
    return Tensor._make(np.asarray(np.logical_not(r) if invert else r))
