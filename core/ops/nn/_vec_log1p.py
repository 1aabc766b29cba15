"""Vectorized<T>::log1p bit for bit in NumPy: SLEEF's Sleef_log1pf8_u10 (xlog1pf) and Sleef_log1pd4_u10
(xlog1p), compiled with FMA, on the arguments ATen's log_sigmoid kernel gives them: exp(-|x|), in [0, 1].

Both reduce 1 + d to m * 2**e with e from (1 + d) / 0.75, m = fma(d, 2**-e, 2**-e - 1), then evaluate
log1p through x = m / (2 + m) in double-float (double-double) arithmetic as SLEEF's log does (core/_vec_math's
logf / logd, whose steps are reused here; their polynomials are the same)."""
from __future__ import annotations

import numpy as np

from ... import _vec_math as _vm
from ..._vec_math import (_F43, _LN2D_HI, _LN2D_LO, _LN2F_HI, _LN2F_LO, _LOGD_T, _log_sum,  # SLEEF's log's
                          _logf_poly)

_F, _D, _I32 = np.float32, np.float64, np.int32


def log1pf(d):
    """Sleef_log1pf8_u10 on a float32 array of values in [0, 1], in blocks of 8192 (scratch in the L2 cache)."""
    return _vm._blocked(_log1pf_block, d, _F, 8192)


def _log1pf_block(d):
    """Sleef_log1pf8_u10 on a float32 array of values in [0, 1] (exp(-|x|) in log_sigmoid). Every FMA but the two
    of the polynomial has an exact float64 value there (m: d / 2 - 1 / 2 or d; the division's corrections as in
    _vec_math.logf), so one float32 rounding of the float64 value is the FMA's; the polynomial's two are
    _vec_math._logf_poly's (x2 <= 0.041 here too: each sum in one binade, rounded once)."""
    d = np.asarray(d, _F)
    shape = d.shape
    d = d.ravel()
    if not d.size:
        return d.reshape(shape)
    with np.errstate(all="ignore"):
        dp1 = d + _F(1)
        e = np.multiply(dp1, _F43).view(_I32) >> 23
        e &= 0xFF
        e -= 0x7F
        t = ((0x7F - e) << 23).view(_F)                  # vldexp3(1, -e): 2**-e
        m = (d.astype(_D) * t + (t - _F(1))).astype(_F)   # fma(d, t, t - 1): exact in float64 for d in [0, 1]
        ef = e.astype(_D)
        hi = _D(_LN2F_HI) * ef                            # s = dfmul((ln2 hi, lo), e)
        sx = hi.astype(_F)
        hi -= sx
        hi += _D(_LN2F_LO) * ef
        sy = hi.astype(_F)
        # x = dfdiv((m, 0), dfadd(2, m)): dfadd is Fast2Sum (|2| >= |m|)
        dx = _F(2) + m
        dy = (_F(2) - dx) + m
        rt = _F(1) / dx
        t64 = rt.astype(_D)
        xs = m * rt
        u = (t64 * m - xs).astype(_F)
        v = (-(dy * t64) + (1.0 - dx * t64)).astype(_F)
        xy = (xs.astype(_D) * v + u).astype(_F)           # fma(s, v, fma(0, t, u))
        x2 = xs * xs
        out = _log_sum(sx, sy, xs, xy, x2, _logf_poly(x2))
    return out.reshape(shape)


def _split(a):
    """Veltkamp's split: a == hi + lo, 26 significant bits each."""
    c = a * 134217729.0
    hi = c - (c - a)
    return hi, a - hi


def _prod_err(a, ah, al, b, bh, bl, p):
    """The exact error a * b - p of p = fl(a * b) (Dekker's TwoProduct; no overflow for these magnitudes)."""
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a, b, c, dominant=False):
    """a * b + c rounded once (TwoProduct's error and the sum's error added before the last rounding); dominant:
    |c| >= |a * b| on every lane, so Fast2Sum gives the sum's error."""
    ah, al = _split(a)
    bh, bl = _split(b) if np.ndim(b) else _K[b]
    p = a * b
    ep = _prod_err(a, ah, al, b, bh, bl, p)
    s = p + c
    if dominant:
        es = p - (s - c)
    else:
        z = s - p
        es = (p - (s - z)) + (c - z)
    return s + (es + ep)


_K = {c: _split(np.float64(c)) for c in _LOGD_T}


def log1pd(d):
    """Sleef_log1pd4_u10 on a float64 array of values in [0, 1], in blocks of 4096 (scratch in the L2 cache)."""
    return _vm._blocked(_log1pd_block, d, _D, 4096)


def _log1pd_block(d):
    """Sleef_log1pd4_u10 on a float64 array of values in [0, 1]. There e is 0 or 1, so 2**-e * d and the
    products with e are exact and their FMAs one float64 operation; 1 - dx * (1 / dx) is exact (its value has at
    most 53 significant bits), so that FMA is (1 - p) minus p's TwoProduct error; the polynomial's FMAs have a
    dominant addend (|x| <= 1/5) and take Fast2Sum; the others TwoProduct and TwoSum."""
    d = np.asarray(d, _D)
    shape = d.shape
    d = d.ravel()
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        e = (((dp1 * (1.0 / 0.75)).view(np.int64) >> 52) & 0x7FF) - 0x3FF
        t = ((0x3FF - e) << 52).view(_D)
        m = d * t
        m += t - 1.0                                    # fma(d, t, t - 1): d * t exact
        ef = e.astype(_D)
        sx = _LN2D_HI * ef                              # e in {0, 1}: dfmul((hi, lo), e) is (hi e, lo e)
        sy = _LN2D_LO * ef
        dx = 2.0 + m
        dy = (2.0 - dx) + m
        rt = 1.0 / dx
        xs = m * rt
        mh, ml = _split(m)
        th, tl = _split(rt)
        u = _prod_err(m, mh, ml, rt, th, tl, xs)       # fma(t, m, -s): the product's exact error
        p = dx * rt
        dxh, dxl = _split(dx)
        inner = (1.0 - p) - _prod_err(dx, dxh, dxl, rt, th, tl, p)     # fma(-dx, t, 1), exact
        v = _fma(np.negative(dy), rt, inner)
        xy = _fma(xs, v, u)
        x2 = xs * xs
        x4 = x2 * x2
        x8 = x4 * x4
        c = _LOGD_T
        p6_4 = _fma(x4, c[0], _fma(x2, c[1], c[2], True), True)
        p32 = _fma(x2, c[3], c[4], True)
        p10 = _fma(x2, c[5], c[6], True)
        p3_0 = _fma(x4, p32, p10, True)
        tt = _fma(x8, p6_4, p3_0, True)
        out = _log_sum(sx, sy, xs, xy, x2, tt)
    return out.reshape(shape)
