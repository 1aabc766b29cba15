"""Floating-point helpers that reproduce the exact bits of torch's random transforms: float32 fused
multiply-add, the Cephes-style log256_ps / sincos256_ps of ATen/native/cpu/avx_mathfun.h as GCC
compiles them (multiply-add chains contracted to FMA), and glibc's double log/sin/cos/log1p."""
from __future__ import annotations

import math

import numpy as np

_F = np.float32
_TIE_MASK = np.uint64((1 << 29) - 1)
_TIE = np.uint64(1 << 28)


def fma32(a, b, c):
    """float32 a * b + c rounded once. The product is exact in float64; the float64 sum is rounded
    again to float32, which is wrong only when it lands exactly half-way between two floats: those
    rare lanes are redone exactly."""
    a64 = np.asarray(a, np.float64)
    b64 = np.asarray(b, np.float64)
    c64 = np.asarray(c, np.float64)
    s = a64 * b64 + c64
    r = s.astype(_F)
    tie = (s.view(np.uint64) & _TIE_MASK) == _TIE
    if tie.any():
        idx = np.nonzero(tie)
        bb, cc = np.broadcast_to(b64, s.shape)[idx], np.broadcast_to(c64, s.shape)[idx]
        r[idx] = [_fma32_exact(x, y, z) for x, y, z in zip(np.broadcast_to(a64, s.shape)[idx], bb, cc)]
    return r


def _fma32_exact(a, b, c):
    from fractions import Fraction   # noqa: PLC0415 - only for the rare half-way lanes
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    lo = _F(float(exact))
    if Fraction(float(lo)) == exact:
        return lo
    hi = np.nextafter(lo, _F(np.inf) if Fraction(float(lo)) < exact else _F(-np.inf))
    d_lo, d_hi = abs(Fraction(float(lo)) - exact), abs(Fraction(float(hi)) - exact)
    if d_lo != d_hi:
        return lo if d_lo < d_hi else hi
    return lo if int(np.asarray(lo).view(np.uint32)) % 2 == 0 else hi


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
    return np.where(np.isfinite(p) & np.isfinite(c), r, p + c)


# -- avx_mathfun.h (float32, 8 lanes at a time in torch; any length here) --------------------------

_LOG_P = [_F(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_MIN_NORM = _F(1.17549435e-38)
_SQRTHF = _F(0.707106781186547524)
_DP = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_SIN_P = (_F(-1.9515295891E-4), _F(8.3321608736E-3), _F(-1.6666654611E-1))
_COS_P = (_F(2.443315711809948E-005), _F(-1.388731625493765E-003), _F(4.166664568298827E-002))
_FOPI = _F(1.27323954473516)
_HALF, _ONE = _F(0.5), _F(1.0)


def log256_ps(x):
    """avx_mathfun's log256_ps for x in (0, 1] (the only inputs normal_fill gives it)."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _ONE
    x = ((bits & ~0x7F800000) | np.int32(0x3F000000)).view(_F)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _F(0))
    x = x - _ONE
    e = e - mask.astype(_F)
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = fma32(y, x, p)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = fma32(-z, _HALF, y)
    return fma32(e, _LOG_Q2, x + y)


def sincos256_ps(x):
    """avx_mathfun's sincos256_ps: (sin(x), cos(x)) by Cephes' reduction and polynomials."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F)
    sign_sin ^= (j & 4) != 0
    poly = (j & 2) == 0
    sign_cos = (~(j - 2) & 4) != 0
    for d in _DP:
        x = fma32(y, d, x)
    z = x * x
    yc = fma32(fma32(_COS_P[0], z, _COS_P[1]), z, _COS_P[2]) * z
    yc = fma32(yc, z, -(z * _HALF)) + _ONE
    ys = fma32(fma32(_SIN_P[0], z, _SIN_P[1]), z, _SIN_P[2]) * z
    ys = fma32(ys, x, x)
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)


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
