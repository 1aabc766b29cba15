"""Float64 NumPy kernels for torch.special's functions (no SciPy): Bessel functions (I1, scaled I0/I1,
J0, J1), erfcx, the normal distribution's log-CDF and quantile, Hurwitz zeta and polygamma. Each takes and
returns float64 arrays; the ops cast back to the input's dtype. Series and asymptotic expansions are
chosen per range so the values match PyTorch's Cephes-derived kernels (aten/src/ATen/native/Math.h)
to its test tolerances; special values (poles, infinities, NaN) follow PyTorch's."""
from __future__ import annotations

import math

import numpy as np

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _asym_coeffs(nu, n):
    """a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), k = 0..n-1 (Hankel / Bessel asymptotics)."""
    out, a, mu = [1.0], 1.0, 4.0 * nu * nu
    for k in range(1, n):
        a = a * (mu - (2 * k - 1) ** 2) / (k * 8.0)
        out.append(a)
    return out


# -- modified Bessel functions of the first kind ---------------------------------------------------------

_I_SERIES_MAX = 15.0


def _i_scaled_large(ax, nu):
    """exp(-x) I_nu(x) for x > 15 from the asymptotic series (terms shrink below 1e-13 there), by Horner's
    scheme in 1/x."""
    t = 1.0 / ax
    coeffs = _asym_coeffs(nu, 30)
    total = np.full_like(ax, (-1) ** (len(coeffs) - 1) * coeffs[-1])
    for k in range(len(coeffs) - 2, -1, -1):
        total *= t
        total += (-1) ** k * coeffs[k]
    return total / np.sqrt(2 * np.pi * ax)


def _i1_series(x):
    """I1(x) by its power series (positive terms: accurate for |x| <= 15)."""
    h = x / 2
    h2 = h * h
    term = h.copy()
    total = term.copy()
    for k in range(1, 60):
        term *= h2
        term /= k * (k + 1)
        total += term
    return total


def _by_range(ax, small, f_small, f_large):
    """f_small on the elements where `small`, f_large on the others (NaN among them), each on its part only."""
    out = np.empty_like(ax)
    if small.all():
        out[...] = f_small(ax)
        return out
    big = ~small
    out[small] = f_small(ax[small])
    out[big] = f_large(ax[big])
    return out


def i0e(x):
    """exp(-|x|) I0(x): NumPy's i0 (Cephes) scaled, the asymptotic series beyond |x| = 15."""
    ax = np.abs(_f64(x))
    return _by_range(ax, ax <= _I_SERIES_MAX, lambda a: np.i0(a) * np.exp(-a), lambda a: _i_scaled_large(a, 0))


def i1e(x):
    """exp(-|x|) I1(x) (odd)."""
    x = _f64(x)
    ax = np.abs(x)
    r = _by_range(ax, ax <= _I_SERIES_MAX, lambda a: _i1_series(a) * np.exp(-a), lambda a: _i_scaled_large(a, 1))
    np.copysign(r, x, out=r)
    r[x == 0] = 0.0             # I1(-0) is +0 in torch (Cephes' polynomial)
    return np.where(np.isnan(x), np.nan, r)


def i1(x):
    """I1(x) = exp(|x|) i1e(x) (overflows to +-inf like PyTorch's)."""
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(np.abs(x)) * i1e(x)      # NaN at +-inf (inf * 0), as PyTorch's


# -- Bessel functions of the first kind J0, J1 ------------------------------------------------------------

_J_SERIES_MAX = 16.0


def _j_series(x, nu):
    """J_nu(x) = sum (-1)^k (x/2)^(2k+nu) / (k! (k+nu)!) (accurate to ~1e-10 absolute for |x| <= 16)."""
    h = x / 2
    term = h ** nu
    total = term.copy()
    for k in range(1, 90):
        term = -term * h * h / (k * (k + nu))
        total = total + term
    return total


def _j_large(x, nu):
    """Hankel's expansion sqrt(2/(pi x)) (P cos chi - Q sin chi), chi = x - (nu/2 + 1/4) pi, with cos/sin of
    chi formed from cos x and sin x (no rounding of x - pi/4 for large x)."""
    a = _asym_coeffs(nu, 40)
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    for k in range(0, 40, 2):
        p = p + (-1) ** (k // 2) * a[k] / x ** k
        q = q + (-1) ** (k // 2) * a[k + 1] / x ** (k + 1)
    c, s = np.cos(x), np.sin(x)
    if nu == 0:
        cc, sc = (c + s) / _SQRT_2, (s - c) / _SQRT_2
    else:
        cc, sc = (s - c) / _SQRT_2, -(s + c) / _SQRT_2
    return np.sqrt(2 / (np.pi * x)) * (p * cc - q * sc)


def _bessel_j(x, nu):
    x = _f64(x)
    ax = np.abs(x)
    small = ax <= _J_SERIES_MAX
    with np.errstate(invalid="ignore"):
        r = np.where(small, _j_series(np.where(small, ax, 0.0), nu), _j_large(np.where(small, 20.0, ax), nu))
    return np.sign(x) * r if nu == 1 else r


def bessel_j0(x):
    """J0(x) (even; NaN at +-inf, as PyTorch's)."""
    return _bessel_j(x, 0)


def bessel_j1(x):
    """J1(x) (odd; NaN at +-inf, as PyTorch's)."""
    return _bessel_j(x, 1)


# -- erfcx, log_ndtr, ndtri ---------------------------------------------------------------------------------

_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erfcx_pos(x):
    """erfcx for x >= 0: erfc(x) exp(x^2) below 25, the asymptotic series 1/(x sqrt(pi)) sum (-1)^n (2n-1)!!/(2x^2)^n
    above (where erfc underflows)."""
    small = x < 25
    xs = np.where(small, x, 0.0)
    direct = _erfc(xs) * np.exp(xs * xs)
    xl = np.where(small, 25.0, x)
    inv = 1 / (2 * xl * xl)
    term = np.ones_like(xl)
    total = term.copy()
    for n in range(1, 12):
        term = -term * (2 * n - 1) * inv
        total = total + term
    return np.where(small, direct, total / (xl * _SQRT_PI))


def erfcx(x):
    """exp(x^2) erfc(x): +inf as x -> -inf, 0 at +inf."""
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        pos = _erfcx_pos(np.abs(x))
        neg = 2 * np.exp(x * x) - pos
    r = np.where(x < 0, neg, pos)
    r = np.where(x == np.inf, 0.0, r)
    return np.where(x == -np.inf, np.inf, r)


def log_ndtr(x):
    """log of the standard normal CDF, as PyTorch: log(erfcx(-x/sqrt2)/2) - x^2/2 for x < -1, else
    log1p(-erfc(x/sqrt2)/2)."""
    x = _f64(x)
    t = x / _SQRT_2
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        low = np.log(erfcx(-np.where(x < -1, t, -1.0)) / 2) - t * t
        high = np.log1p(-_erfc(np.where(x < -1, 0.0, t)) / 2)
    return np.where(x < -1, low, high)


def _ndtri_lower(p):
    """Quantile for 0 < p <= 0.5: Abramowitz-Stegun 26.2.23 as a start, then Newton steps on
    log_ndtr(x) = log(p) (accurate relative to p in the far tail)."""
    t = np.sqrt(-2 * np.log(p))
    x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    lp = np.log(p)
    for _ in range(5):
        ln = log_ndtr(x)
        x = x - (ln - lp) / np.exp(-x * x / 2 - ln - _LOG_SQRT_2PI)
    return x


def ndtri(p):
    """Inverse of the standard normal CDF: -inf at 0, +inf at 1, NaN outside [0, 1]."""
    p = _f64(p)
    lower = p <= 0.5
    q = np.where(lower, p, 1 - p)
    ok = (q > 0) & ~np.isnan(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = _ndtri_lower(np.where(ok, q, 0.25))
    x = np.where(lower, x, -x)
    x = np.where(p == 0.5, 0.0, x)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


# -- Hurwitz zeta, trigamma, polygamma ------------------------------------------------------------------

# Euler-Maclaurin remainder: B_2k / (2k)! denominators (as in Cephes' zeta)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


def _zeta_scalar(x, q):
    """Hurwitz zeta sum_k (k + q)^-x: direct sum to q + 9 or more, then the Euler-Maclaurin tail."""
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == np.floor(q):          # -inf included (math.floor would raise)
            return math.inf
        if not x == np.floor(x):     # NaN x included
            return math.nan
    x, q = np.float64(x), np.float64(q)     # NumPy scalars: overflow gives inf, not OverflowError
    s = q ** -x
    a, i, b = q, 0, np.float64(0.0)
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -x
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1) - 0.5 * b
    fac, k = 1.0, 0.0
    for coeff in _ZETA_A:
        fac *= x + k
        b /= w
        t = fac * b / coeff
        s += t
        if abs(t / s) < _MACHEP:
            return s
        k += 1.0
        fac *= x + k
        b /= w
        k += 1.0
    return s


_zeta_v = np.vectorize(_zeta_scalar, otypes=[np.float64])


def zeta(x, q):
    """Hurwitz zeta(x, q) elementwise (broadcast); inf at x == 1, NaN for x < 1."""
    x, q = np.broadcast_arrays(_f64(x), _f64(q))
    with np.errstate(all="ignore"):
        return _zeta_v(x, q) if x.size else np.zeros(x.shape)


def trigamma(x):
    """psi'(x) as PyTorch computes it, in the input's precision (its float kernel runs in float):
    reflection below 0.5, six recurrence steps, asymptotic series."""
    x = np.asarray(x)
    ft = x.dtype.type if x.dtype.kind == "f" else np.float64
    x = x.astype(ft)
    pi, one = ft(np.pi), ft(1)
    neg = x < 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.sin(pi * x)
        acc = np.where(neg, -(pi * pi) / (s * s), ft(0))
        xr = np.where(neg, one - x, x)
        for _ in range(6):
            acc = acc + one / (xr * xr)
            xr = xr + one
        ixx = one / (xr * xr)
        acc = acc + (one + one / (2 * xr) + ixx * (ft(1 / 6) - ixx * (ft(1 / 30) - ixx * ft(1 / 42)))) / xr
    return np.where(neg, -acc, acc)


def polygamma(n, x, digamma):
    """psi^(n)(x): digamma for n = 0, trigamma for n = 1, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(_f64(x))
    if n == 1:
        return trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.exp(math.lgamma(n + 1.0)) * zeta(n + 1.0, x)


# -- regularized incomplete gamma P(a, x), Q(a, x) ----------------------------------------------------------

_lgamma_v = np.vectorize(math.lgamma, otypes=[np.float64])


def _igam_series(a, x, pref):
    """P(a, x) = pref / a * sum_n x^n / ((a+1)...(a+n)), for x < a + 1."""
    ap, term = a.copy(), 1 / a
    total = term.copy()
    for _ in range(5000):
        ap = ap + 1
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * 1e-17):
            break
    return total * pref


def _igamc_cf(a, x, pref):
    """Q(a, x) by the Legendre continued fraction (modified Lentz), for x >= a + 1."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 5000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1) <= 1e-16):
            break
    return h * pref


def _igam_pq(a, x):
    """(P, Q) on broadcast float64 arrays, with PyTorch's special values: NaN for a < 0, x < 0, a == x == 0
    and a == x == inf; P = 1 at a == 0 or x == inf; P = 0 at x == 0 or a == inf."""
    a, x = np.broadcast_arrays(_f64(a), _f64(x))
    bad = (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | (np.isinf(a) & np.isinf(x)) | np.isnan(a) | np.isnan(x)
    one = ~bad & ((a == 0) | np.isinf(x))
    zero = ~bad & ~one & ((x == 0) | np.isinf(a))
    ok = ~(bad | one | zero)
    p = np.where(one, 1.0, 0.0)
    p = np.where(bad, np.nan, p)
    q = np.where(bad, np.nan, 1 - p)
    if ok.any():
        ao, xo = a[ok], x[ok]
        with np.errstate(all="ignore"):
            pref = np.exp(ao * np.log(xo) - xo - _lgamma_v(ao))
            ser = xo < ao + 1
            ps = _igam_series(np.where(ser, ao, 1.0), np.where(ser, xo, 0.5), np.where(ser, pref, 0.0))
            qs = _igamc_cf(np.where(ser, 1.0, ao), np.where(ser, 2.5, xo), np.where(ser, 0.0, pref))
        p[ok] = np.where(ser, ps, 1 - qs)
        q[ok] = np.where(ser, 1 - ps, qs)
    return p, q


def igamma(a, x):
    """Regularized lower incomplete gamma P(a, x)."""
    return _igam_pq(a, x)[0]


def igammac(a, x):
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x)."""
    return _igam_pq(a, x)[1]
