"""Special and inverse-hyperbolic unary functions PyTorch has (acosh, asinh, atanh, erfc, erfinv, lgamma,
digamma, sinc, logit, i0, deg2rad, rad2deg, sgn), the sign/infinity tests (signbit, isposinf, isneginf)
and nan_to_num. Integer and bool inputs compute in the default float dtype, as in PyTorch; kernels are
NumPy (plus `math` for the gamma family, computed in float64 and cast back)."""
from __future__ import annotations

import math

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor
from ..registry import register
from ._common import _out, quietly
from .unary import _sign_np, _unary, _zero_grad, exp, rsqrt, sin, cos

_SQRT_PI = math.sqrt(math.pi)


def _from_np(fn):
    """A NumPy kernel applied to a tensor's data, as a new (non-differentiable) tensor."""
    return lambda t: Tensor._make(np.asarray(quietly(fn, t._data), dtype=t._data.dtype))


# -- inverse hyperbolic, erfc, erfinv ----------------------------------------------------------------

acosh, AcoshBackward0 = _unary("acosh", np.arccosh, lambda g, a, o: g * rsqrt(a * a - 1),
                               methods=("acosh", "arccosh"), doc="Inverse hyperbolic cosine.")
asinh, AsinhBackward0 = _unary("asinh", np.arcsinh, lambda g, a, o: g * rsqrt(a * a + 1),
                               methods=("asinh", "arcsinh"), doc="Inverse hyperbolic sine.")
atanh, AtanhBackward0 = _unary("atanh", np.arctanh, lambda g, a, o: g / (1 - a * a),
                               methods=("atanh", "arctanh"), doc="Inverse hyperbolic tangent.")
arccosh, arcsinh, arctanh = acosh, asinh, atanh


def _vectorize(f):
    """A float64 elementwise kernel from a scalar `math` function, cast back to the input's dtype."""
    vf = np.vectorize(f, otypes=[np.float64])
    return lambda x: vf(x).astype(x.dtype) if x.size else x.copy()


erfc, ErfcBackward0 = _unary("erfc", _vectorize(math.erfc),
                             lambda g, a, o: g * (-2 / _SQRT_PI) * exp(-a * a),
                             doc="Complementary error function 1 - erf(input).")


def _erfinv64(y):
    """Inverse error function in float64: Giles' single-precision approximation refined by Newton steps."""
    y = np.asarray(y, dtype=np.float64)
    w = -np.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws = w - 2.5
    wl = np.sqrt(np.where(small, 5.0, w)) - 3.0
    ps = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], ws)
    pl = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], wl)
    x = np.where(small, ps, pl) * y
    erf = np.vectorize(math.erf, otypes=[np.float64])
    for _ in range(2):
        x = x - (erf(x) - y) / (2 / _SQRT_PI * np.exp(-x * x))
    x = np.where(np.abs(y) == 1, np.copysign(np.inf, y), x)
    return np.where(np.abs(y) > 1, np.nan, x)


def _erfinv_np(x):
    return _erfinv64(x).astype(x.dtype) if x.size else x.copy()


erfinv, ErfinvBackward0 = _unary("erfinv", _erfinv_np,
                                 lambda g, a, o: g * (0.5 * _SQRT_PI) * exp(o * o), save="output",
                                 doc="Inverse error function (inf at +-1, nan outside [-1, 1]).")


# -- gamma family --------------------------------------------------------------------------------------

def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except ValueError:          # poles at 0, -1, -2, ...: PyTorch gives +inf
        return math.inf


def _digamma64(x):
    """psi(x) in float64: reflection for x < 0, recurrence up to x >= 6, then the asymptotic series.
    PyTorch: psi(+0) = -inf, psi(-0) = +inf, nan at negative integers."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    neg = x < 0
    xn = x[neg]
    refl = np.pi / np.tan(np.pi * xn)
    out[neg] = np.where(xn == np.floor(xn), np.nan, _digamma_pos(1 - xn) - refl)
    pos = ~neg
    out[pos] = _digamma_pos(x[pos])
    zero = x == 0
    out[zero] = np.where(np.signbit(x[zero]), np.inf, -np.inf)
    return out


def _digamma_pos(x):
    acc = np.zeros_like(x)
    x = x.copy()
    for _ in range(6):
        low = x < 6
        acc = acc - np.where(low, 1 / np.where(low, x, 1), 0)
        x = np.where(low, x + 1, x)
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + np.log(x) - 0.5 / x - series


def _trigamma64(x):
    """psi'(x) in float64 (reflection, recurrence, asymptotic series): digamma's derivative."""
    x = np.asarray(x, dtype=np.float64)
    neg = x < 0
    xr = np.where(neg, 1 - x, x)
    acc = np.zeros_like(xr)
    for _ in range(6):
        low = xr < 6
        acc = acc + np.where(low, 1 / np.where(low, xr * xr, 1), 0)
        xr = np.where(low, xr + 1, xr)
    inv = 1 / xr
    inv2 = inv * inv
    r = acc + inv + inv2 / 2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))
    return np.where(neg, -r + (np.pi / np.sin(np.pi * x)) ** 2, r)


lgamma, LgammaBackward0 = _unary("lgamma", _vectorize(_lgamma_scalar),
                                 lambda g, a, o: g * digamma(a), doc="log |Gamma(input)|.")
digamma, DigammaBackward0 = _unary("digamma", lambda x: _digamma64(x).astype(x.dtype),
                                   lambda g, a, o: g * _from_np(_trigamma64)(a),
                                   doc="Logarithmic derivative of Gamma (psi).")


# -- i0, sinc, logit, angle conversions ------------------------------------------------------------------

def _i1_64(x):
    """Modified Bessel function I1 in float64 (power series; asymptotic expansion for |x| > 30)."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    small = ax <= 30
    xs = np.where(small, x, 0) / 2
    term = xs.copy()
    total = term.copy()
    for k in range(1, 80):
        term = term * xs * xs / (k * (k + 1))
        total = total + term
    al = np.where(small, 31.0, ax)
    mu = 4.0
    series = 1 - (mu - 1) / (8 * al) + (mu - 1) * (mu - 9) / (2 * (8 * al) ** 2) \
        - (mu - 1) * (mu - 9) * (mu - 25) / (6 * (8 * al) ** 3)
    large = np.sign(x) * np.exp(al) / np.sqrt(2 * np.pi * al) * series
    return np.where(small, total, large)


i0, I0Backward0 = _unary("i0", lambda x: np.i0(x).astype(x.dtype),
                         lambda g, a, o: g * _from_np(_i1_64)(a),
                         doc="Modified Bessel function of the first kind, order 0.")


def _sinc_np(x):
    px = x * x.dtype.type(np.pi)
    return np.where(x == 0, x.dtype.type(1), np.sin(px) / np.where(x == 0, 1, px)).astype(x.dtype)


def _sinc_grad(g, a, o):
    pa = a * math.pi
    return g * ((pa * cos(pa) - sin(pa)) / (pa * a)).masked_fill(a == 0, 0)


sinc, SincBackward0 = _unary("sinc", _sinc_np, _sinc_grad, doc="sin(pi x) / (pi x), 1 at 0.")

deg2rad, Deg2RadBackward0 = _unary("deg2rad", lambda x: x * x.dtype.type(math.pi / 180),
                                   lambda g, a, o: g * (math.pi / 180), save=None, grad_np=True,
                                   node="Deg2RadBackward0", doc="Degrees to radians.")
rad2deg, Rad2DegBackward0 = _unary("rad2deg", lambda x: x * x.dtype.type(180 / math.pi),
                                   lambda g, a, o: g * (180 / math.pi), save=None, grad_np=True,
                                   node="Rad2DegBackward0", doc="Radians to degrees.")
sgn, SgnBackward0 = _unary("sgn", _sign_np, _zero_grad, save=None, float_only=False,
                           doc="sign(input) for real tensors (x / |x| for complex ones).")


class LogitBackward0(Op):
    """logit(x, eps) = log(z / (1 - z)) with z = clamp(x, eps, 1 - eps); the gradient is 0 outside
    [eps, 1 - eps] (and NaN outside [0, 1] without eps), as PyTorch's logit_backward."""
    contiguous_output = False

    @staticmethod
    def forward(ctx, a, eps):
        d = a._data if a._data.dtype.kind == "f" else a._data.astype(_dt.get_default_dtype().np)
        ctx.save_for_backward(a)
        ctx.eps = eps
        return quietly(_logit_np, d, eps)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        x = a if a.dtype.is_floating_point else a.to(g.dtype)
        r = g / (x * (1 - x))
        if ctx.eps is None:
            return r.masked_fill((x < 0) | (x > 1), float("nan"))
        return r.masked_fill((x < ctx.eps) | (x > 1 - ctx.eps), 0)


def _logit_np(d, eps):
    if eps is not None:
        d = np.clip(d, d.dtype.type(eps), d.dtype.type(1 - eps))
    return np.log(d / (1 - d)).astype(d.dtype, copy=False)


@register(category="pointwise", methods=("logit",), inplace="logit_")
def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    return _out(LogitBackward0.apply(input, None if eps is None else float(eps)), out)


# -- sign and infinity tests, nan_to_num -----------------------------------------------------------------

def _bool_test(name, fn, doc):
    def f(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        d = input._data
        return _out(Tensor._make(np.asarray(fn(d) if d.dtype.kind == "f" else _non_float(name, d))), out)
    f.__name__, f.__doc__ = name, doc
    return register(category="logical", methods=(name,))(f)


def _non_float(name, d):
    if name == "signbit":
        return d < 0 if d.dtype.kind == "i" else np.zeros(d.shape, bool)
    return np.zeros(d.shape, bool)


signbit = _bool_test("signbit", np.signbit, "True where the sign bit is set (including -0.0 and -nan).")
isposinf = _bool_test("isposinf", np.isposinf, "True where input is +inf.")
isneginf = _bool_test("isneginf", np.isneginf, "True where input is -inf.")


class NanToNumBackward0(Op):
    """The gradient flows only through finite elements (PyTorch: grad * isfinite(input))."""
    contiguous_output = False

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        d = a._data
        if d.dtype.kind != "f":
            return d.copy()
        ctx.save_for_backward(a)
        fi = np.finfo(d.dtype)
        pos = fi.max if posinf is None else posinf
        neg = fi.min if neginf is None else neginf
        return quietly(np.nan_to_num, d, True, d.dtype.type(nan), d.dtype.type(pos), d.dtype.type(neg))

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a.isfinite().to(g.dtype)


@register(category="pointwise", methods=("nan_to_num",), inplace="nan_to_num_")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN by `nan`, +inf by `posinf` and -inf by `neginf` (default: the dtype's max / min)."""
    return _out(NanToNumBackward0.apply(input, 0.0 if nan is None else nan, posinf, neginf), out)
