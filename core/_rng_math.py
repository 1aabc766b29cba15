"""Floating-point helpers that reproduce the exact bits of torch's random transforms: float32 fused
multiply-add, the Cephes-style log256_ps / sincos256_ps of ATen/native/cpu/avx_mathfun.h as GCC
compiles them (multiply-add chains contracted to FMA), and glibc's double log/sin/cos/log1p."""
from __future__ import annotations

import math

import numpy as np

_F = np.float32
_SHIFT = np.uint64(35)
_IMIN = np.iinfo(np.int64).min


def fma32(a, b, c):
    """float32 a * b + c rounded once. The product is exact in float64, so the float64 sum s is
    off only by its own rounding error; rounding s to float32 is then wrong only when s lies
    exactly half-way between two floats and was inexact: those rare lanes move one float64 ulp
    toward the exact sum before the cast."""
    if np.ndim(a) < np.ndim(b):
        a, b = b, a                          # the product is exact: operand order does not matter
    p = np.asarray(a).astype(np.float64)     # astype then multiply: faster than a casting ufunc
    p *= b
    s = np.asarray(p + c)                 # a 0-d sum stays an array (its midpoint is repaired in place)
    # the low 29 bits shifted to the top: a midpoint (1 << 28 there) is int64's minimum, so one min finds it
    u = np.left_shift(s.view(np.uint64), _SHIFT).view(np.int64)
    if np.minimum.reduce(u, axis=None) == _IMIN:
        _fix_ties(s, p, u == _IMIN, c)
    return s.astype(_F)


def _flat(v, shape):
    return (v if v.shape == shape else np.broadcast_to(v, shape)).reshape(-1)


def _fix_ties(s, p, mask, c):
    """Move the midpoints s[mask] one float64 ulp toward p + c where the float64 sum was inexact (exact sums on a
    midpoint, common with short operands, keep the cast's ties to even)."""
    sf = s.reshape(-1)
    k = np.flatnonzero(mask)
    si = sf[k]
    ci = np.float64(c) if np.ndim(c) == 0 else _flat(np.asarray(c), s.shape)[k].astype(np.float64)
    z = si - ci
    err = (ci - (si - z)) + (_flat(p, s.shape)[k] - z)      # TwoSum: p + c == si + err exactly
    if err.any():
        sf[k] = np.where(err > 0, np.nextafter(si, np.inf), np.where(err < 0, np.nextafter(si, -np.inf), si))


def _two_sum(a, b):
    """s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a):
    c = a * 134217729.0  # 2**27 + 1 (Dekker)
    hi = c - (c - a)
    return hi, a - hi


def fma64(a, b, c):
    """a * b + c with a single rounding, as the C++ compiler's fused multiply-add gives
    (error-free transformations; exact except in astronomically rare double-rounding ties)."""
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s, es = _two_sum(p, c)
        r = s + (es + ep)
    finite = np.isfinite(p) & np.isfinite(c)
    if not np.all(np.isfinite(r) | ~finite):   # the split overflowed (|b| near the float64 max): scale by 2**-600
        r = np.where(np.isfinite(r), r, fma64(a, np.multiply(b, 2.0 ** -600), np.multiply(c, 2.0 ** -600)) * 2.0 ** 600)
    return np.where(finite, r, p + c)


# -- avx_mathfun.h (float32, 8 lanes at a time in torch; any length here) --------------------------

_LOG_P = [_F(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_SQRTHF = _F(0.707106781186547524)
_DP = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_SIN_P = (_F(-1.9515295891E-4), _F(8.3321608736E-3), _F(-1.6666654611E-1))
_COS_P = (_F(2.443315711809948E-005), _F(-1.388731625493765E-003), _F(4.166664568298827E-002))
_FOPI = _F(1.27323954473516)
_HALF, _ONE = _F(0.5), _F(1.0)


def log256_ps(x):
    """avx_mathfun's log256_ps for normal floats x in (0, 1] (normal_fill's 1 - u: no clamping of
    denormals or NaN for x <= 0 needed)."""
    bits = x.view(np.int32)
    x = ((bits & ~0x7F800000) | np.int32(0x3F000000)).view(_F)      # mantissa in [0.5, 1)
    mask = x < _SQRTHF
    e = ((bits >> 23) - 0x7E - mask).astype(_F)        # exact small integers: float steps of torch, same value
    x1 = x - _ONE
    np.add(x1, x, out=x1, where=mask)                   # x + x - 1 below sqrt(1/2), x - 1 above
    x = x1
    z = x * x
    y = fma32(x, _LOG_P[0], _LOG_P[1])
    for p in _LOG_P[2:]:
        y = fma32(y, x, p)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = y - z * _HALF            # fused in torch, but z * 0.5 and e * q2 are exact: same bits
    return (x + y) + e * _LOG_Q2


def sincos256_ps(x):
    """avx_mathfun's sincos256_ps for x >= 0 (theta = 2 pi u in normal_fill): Cephes' reduction
    by pi/4 in three parts and its two polynomials, signs applied by XOR as the intrinsics do."""
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F)
    x = x + y * _DP[0]           # y * DP1 and y * DP2 are exact (j <= 8): the fused adds round once
    x = x + y * _DP[1]
    x = fma32(y, _DP[2], x)
    z = x * x
    yc = fma32(fma32(_COS_P[0], z, _COS_P[1]), z, _COS_P[2]) * z
    yc = fma32(yc, z, -(z * _HALF)) + _ONE
    ys = fma32(fma32(_SIN_P[0], z, _SIN_P[1]), z, _SIN_P[2]) * z
    ys = fma32(ys, x, x)
    poly = (j & 2) == 0
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    s.view(np.int32)[...] ^= (j & 4) << 29
    c.view(np.int32)[...] ^= (~(j - 2) & 4) << 29
    return s, c


# -- glibc double functions (NumPy's SIMD versions differ in the last bit) ------------------------

def _libm(fn, x):
    x = np.asarray(x, np.float64)
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


def _log(v):
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def log(x):
    return _libm(_log, x)


def log1p(x):
    return _libm(math.log1p, x)


def sin(x):
    return _libm(math.sin, x)


def cos(x):
    return _libm(math.cos, x)


def tan(x):
    return _libm(math.tan, x)


def exp(x):
    return _libm(math.exp, x)
