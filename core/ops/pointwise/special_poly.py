"""torch.special's orthogonal polynomials of a tensor degree n (Chebyshev T/U/V/W and their shifted forms,
Hermite H/He, Laguerre L, Legendre P) and modified_bessel_i0/i1, spherical_bessel_j0. As PyTorch: n is
truncated to an integer, n < 0 gives 0, none of them has a gradient (results never require grad), integer
inputs compute in the default float dtype, and (number, number) is a TypeError. Values: the three-term
recurrences PyTorch's kernels use, in float64, cast to the result dtype."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import register
from . import _special_kernels as K
from ._common import _out, quietly

_MAX_DEGREE = 100_000   # recurrence steps evaluated; higher degrees (no closed form) stop here, unlike PyTorch
_HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}


def _recur(x, n, p0, p1, step):
    """Evaluate p_n(x) from p_0, p_1 and step(k, x, p_{k-1}, p_k) -> p_{k+1}, elementwise degree n."""
    p, q = np.broadcast_to(p0, x.shape).astype(np.float64), np.broadcast_to(p1, x.shape).astype(np.float64)
    r = np.where(n == 0, p, q)
    top = min(int(n.max()) if n.size else 0, _MAX_DEGREE)
    for k in range(1, top):
        nxt = step(k, x, p, q)
        live = k + 1 <= n
        r = np.where(live, nxt, r)
        p, q = q, nxt
        if not np.any(live & ~np.isnan(nxt)):     # PyTorch stops at NaN (inf - inf once overflowed)
            break
    return np.where(n < 0, 0.0, r)


def _cheb(first):
    """Chebyshev family: p_0 = 1, p_1 = first(x), p_{k+1} = 2x p_k - p_{k-1}."""
    return lambda x, n: _recur(x, n, 1.0, first(x), lambda k, x, p, q: 2 * x * q - p)


def _closed(x, n, at_one, at_minus_one, trig, trig_fn, rec):
    """PyTorch's branches: closed forms at x = +-1, a trigonometric form for large n inside (-1, 1) (so a
    huge degree costs nothing), the recurrence elsewhere."""
    one, mone = x == 1, x == -1
    t = np.arccos(np.where(trig, x, 0))
    done = one | mone | trig
    r = np.where(trig, trig_fn(t), rec(x, np.where(done, 0, n)))
    r = np.where(one, at_one, np.where(mone, at_minus_one, r))
    return np.where(n < 0, 0.0, r)


def _sign_n(n):
    return np.where(n % 2 == 0, 1.0, -1.0)


def _cheb_t(x, n):
    trig = (n > 6) & (np.abs(x) < 1)
    return _closed(x, n, 1.0, _sign_n(n), trig, lambda t: np.cos(n * t), _cheb(lambda x: x))


def _cheb_u(x, n):
    trig = (n > 8) & (np.abs(x) < 1) & (np.sin(np.arccos(np.clip(x, -1, 1))) != 0)
    return _closed(x, n, n + 1.0, _sign_n(n) * (n + 1), trig, lambda t: np.sin((n + 1) * t) / np.sin(t),
                   _cheb(lambda x: 2 * x))


def _cheb_v(x, n):
    trig = (n > 8) & (np.abs(x) < 1) & (np.sin(np.arccos(np.clip(x, -1, 1)) / 2) != 1)
    return _closed(x, n, 1.0, _sign_n(n) * (2 * n + 1), trig, lambda t: np.cos((n + 0.5) * t) / np.cos(t / 2),
                   _cheb(lambda x: 2 * x - 1))


def _cheb_w(x, n):
    trig = (n > 8) & (np.abs(x) < 1) & (np.cos(np.arccos(np.clip(x, -1, 1)) / 2) != 1)
    return _closed(x, n, 2.0 * n + 1, _sign_n(n), trig, lambda t: np.sin((n + 0.5) * t) / np.sin(t / 2),
                   _cheb(lambda x: 2 * x + 1))


def _legendre(x, n):
    rec = lambda x, n: _recur(x, n, 1.0, x, lambda k, x, p, q: ((2 * k + 1) * x * q - k * p) / (k + 1))  # noqa: E731
    return _closed(x, n, 1.0, _sign_n(n), np.zeros(x.shape, bool), lambda t: t, rec)


_POLYS = {
    "chebyshev_polynomial_t": _cheb_t,
    "chebyshev_polynomial_u": _cheb_u,
    "chebyshev_polynomial_v": _cheb_v,
    "chebyshev_polynomial_w": _cheb_w,
    "hermite_polynomial_h": lambda x, n: _recur(x, n, 1.0, 2 * x, lambda k, x, p, q: 2 * x * q - 2 * k * p),
    "hermite_polynomial_he": lambda x, n: _recur(x, n, 1.0, x, lambda k, x, p, q: x * q - k * p),
    "laguerre_polynomial_l": lambda x, n: np.where(
        (x == 0) & (n >= 0), 1.0, _recur(x, n, 1.0, 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * q - k * p) / (k + 1))),
    "legendre_polynomial_p": _legendre,
}
for _name in ("t", "u", "v", "w"):
    _POLYS["shifted_chebyshev_polynomial_" + _name] = (
        lambda f: lambda x, n: f(2 * x - 1, n))(_POLYS["chebyshev_polynomial_" + _name])


def _degree(n):
    """PyTorch's static_cast<int64_t>(n) (NaN / inf degrees count as -1, i.e. a zero result)."""
    n = np.asarray(n, dtype=np.float64)
    return np.where(np.isfinite(n), np.trunc(np.where(np.isfinite(n), n, -1)), -1).astype(np.int64)


def _poly_op(name):
    kernel = _POLYS[name]

    def fn(input, n, *, out=None):
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__})")
        dt = _dt.result_type(input, n)
        dt = dt if dt.is_floating_point else _dt.get_default_dtype()
        x, d = np.broadcast_arrays(np.asarray(input._data if isinstance(input, Tensor) else input, np.float64),
                                   _degree(n._data if isinstance(n, Tensor) else n))
        r = quietly(kernel, x, d)
        if name.startswith("hermite"):
            r = np.where(d > _HERMITE_LIMIT.get(dt.np, 1024), np.nan, r)
        return _out(Tensor._make(np.asarray(r, dtype=dt.np)), out)
    fn.__name__ = name
    fn.__doc__ = f"special.{name}(input, n): the degree-n polynomial at input (no gradient)."
    return register(name="special." + name, category="pointwise", function=False)(fn)


POLYNOMIALS = {name: _poly_op(name) for name in _POLYS}


def _spherical_j0(x):
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(np.abs(x) < 0.5, 1 - x * x / 6 + x ** 4 / 120 - x ** 6 / 5040 + x ** 8 / 362880,
                     np.sin(x) / np.where(x == 0, 1, x))
    return np.where(np.isinf(x), 0.0, r)


def _in_dtype(kernel, d):
    """kernel on float64, cast back to d's dtype (overflow to inf on the cast, as torch: no warning)."""
    return np.asarray(kernel(d.astype(np.float64)), dtype=d.dtype)


def _no_grad(name, kernel):
    def fn(input, *, out=None):
        d = input._data if input._data.dtype.kind == "f" else input._data.astype(_dt.get_default_dtype().np)
        return _out(Tensor._make(quietly(_in_dtype, kernel, d)), out)
    fn.__name__, fn.__doc__ = name, f"special.{name}(input) (no gradient)."
    return register(name="special." + name, category="pointwise", function=False)(fn)


modified_bessel_i0 = _no_grad("modified_bessel_i0", np.i0)
modified_bessel_i1 = _no_grad("modified_bessel_i1", K.i1)
spherical_bessel_j0 = _no_grad("spherical_bessel_j0", _spherical_j0)
