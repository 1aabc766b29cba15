"""Vectorized<T>::log1p bit for bit in NumPy: SLEEF's Sleef_log1pf8_u10 (xlog1pf) and Sleef_log1pd4_u10
(xlog1p), compiled with FMA, on the arguments ATen's log_sigmoid kernel gives them: exp(-|x|), in [0, 1].

Both reduce 1 + d to m * 2**e with e from (1 + d) / 0.75, m = fma(d, 2**-e, 2**-e - 1), then evaluate
log1p through x = m / (2 + m) in double-float (double-double) arithmetic as SLEEF's log does (core/_vec_math's
logf / logd, whose steps are reused here; their polynomials are the same)."""
from __future__ import annotations

import numpy as np

from ._rng_math import fma64
from ._vec_math import (_F43, _LN2D_HI, _LN2D_LO, _LN2F_HI, _LN2F_LO, _LOGD_T, _LOGF_T, _Fma32, _midpoints)

_F, _D, _I32 = np.float32, np.float64, np.int32


def log1pf(d):
    """Sleef_log1pf8_u10 on a float32 array of values in [0, 1] (exp(-|x|) in log_sigmoid). Every FMA but the two
    of the polynomial has an exact float64 value there (m: d / 2 - 1 / 2 or d; the division's corrections as in
    _vec_math.logf), so one float32 rounding of the float64 value is the FMA's; the polynomial's two are checked
    for float32 midpoints (double rounding) and recomputed exactly on those lanes."""
    d = np.asarray(d, _F)
    shape = d.shape
    d = d.ravel()
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
        p = np.empty((2, d.size), _D)
        np.multiply(x2, _LOGF_T[0], p[0])
        p[0] += _LOGF_T[1]
        tt = p[0].astype(_F)
        np.multiply(tt, x2, p[1], dtype=_D)
        p[1] += _LOGF_T[2]
        mid = _midpoints(p)
        if mid is not None:
            fma = _Fma32(mid.size)
            tm = np.empty(mid.size, _F)
            fma(x2[mid], _LOGF_T[0], _LOGF_T[1], tm)
            fma(tm, x2[mid], _LOGF_T[2], tm)
        np.copyto(tt, p[1], casting="same_kind")
        if mid is not None:
            tt[mid] = tm
        # s = dfadd(s, dfscale(x, 2)); s = dfadd(s, x2 * x * t); r = s.x + s.y
        x2x, x2y = xs * _F(2), xy * _F(2)
        r = sx + x2x
        ry = (((sx - r) + x2x) + sy) + x2y
        w = (x2 * xs) * tt
        r2 = r + w
        ry2 = ((r - r2) + w) + ry
        out = r2 + ry2
    return out.reshape(shape)


def log1pd(d):
    """Sleef_log1pd4_u10 on a float64 array of values in [0, 1], the FMAs through _rng_math.fma64."""
    d = np.asarray(d, _D)
    shape = d.shape
    d = d.ravel()
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        e = (((dp1 * (1.0 / 0.75)).view(np.int64) >> 52) & 0x7FF) - 0x3FF
        t = ((0x3FF - e) << 52).view(_D)
        m = fma64(d, t, t - 1.0)
        ef = e.astype(_D)
        sx = _LN2D_HI * ef
        sy = fma64(_LN2D_LO, ef, fma64(_LN2D_HI, ef, -sx))
        dx = 2.0 + m
        dy = (2.0 - dx) + m
        rt = 1.0 / dx
        xs = m * rt
        u = fma64(rt, m, -xs)
        v = fma64(-dy, rt, fma64(-dx, rt, 1.0))
        xy = fma64(xs, v, u)
        x2 = xs * xs
        x4 = x2 * x2
        x8 = x4 * x4
        c = _LOGD_T
        p6_4 = fma64(x4, c[0], fma64(x2, c[1], c[2]))
        p32 = fma64(x2, c[3], c[4])
        p10 = fma64(x2, c[5], c[6])
        p3_0 = fma64(x4, p32, p10)
        tt = fma64(x8, p6_4, p3_0)
        x2x, x2y = xs * 2.0, xy * 2.0
        r = sx + x2x
        ry = (((sx - r) + x2x) + sy) + x2y
        w = (x2 * xs) * tt
        r2 = r + w
        ry2 = ((r - r2) + w) + ry
        out = r2 + ry2
    return out.reshape(shape)
