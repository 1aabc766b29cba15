"""ATen's vectorised exp and log, bit for bit, in NumPy: Vectorized<float>::exp / ::log are SLEEF's
Sleef_expf8_u10 / Sleef_logf8_u10 (16 lanes on AVX512), Vectorized<double>::exp / ::log are Sleef_expd4_u10 /
Sleef_logd4_u10, compiled with FMA (every multiply-add of SLEEF's source is one rounding); the scalar tails of
ATen's loops call the C library (std::exp / std::log: glibc's expf / logf / exp / log, called here through
ctypes / math so the bits are the machine's libm, as torch's). Also the lane width of the vector ISA torch runs
and the order of Vectorized<T>'s horizontal sum (vec_reduce_all)."""
from __future__ import annotations

import ctypes
import math

import numpy as np

from . import _cpu
from ._rng_math import fma32, fma64

_F, _D = np.float32, np.float64
_I32 = np.int32


def lanes(dtype, avx512_kernel: bool = True) -> int:
    """Elements in one Vectorized<dtype> on this machine: 64 bytes on AVX512, else 32 (AVX2 and the DEFAULT build).
    A kernel registered without ALSO_REGISTER_AVX512 runs its AVX2 build on an AVX512 CPU."""
    cap = _cpu.capability()
    nbytes = 64 if cap == "avx512" and avx512_kernel else 32      # vec_base.h: 32 bytes for DEFAULT too
    return nbytes // np.dtype(dtype).itemsize


# -- horizontal sums: vec_reduce_all(x + y, acc) ---------------------------------------------------------------

def hsum(acc):
    """Sum of the last axis (a whole vector's lanes) as vec_reduce_all does: for float on AVX2 / AVX512 the
    VecReduceAllSIMD shuffles (halves, then quarters, ... added lane-wise; lane 0 is the result), otherwise the
    generic loop ((a0 + a1) + a2) + ... ."""
    n = acc.shape[-1]
    if acc.dtype == _F and n in (8, 16) and _cpu.capability() != "default":
        v = acc
        while n > 1:
            n //= 2
            v = v[..., :n] + v[..., n:2 * n]
        return v[..., 0]
    return hseq(acc, n)


def hseq(acc, n):
    """((a0 + a1) + a2) + ... over the first n lanes (vec_reduce_all with a size, for rows shorter than a vector)."""
    r = acc[..., 0].copy()
    for i in range(1, n):
        r += acc[..., i]
    return r


def vectors_sum(e, full, w):
    """acc = e[:, :w] (a new array); acc += e[:, d:d + w] for d = w, 2w, ... < full: NumPy's reduction over the
    middle axis of (rows, vectors, w) adds the vectors one after the other, lane-wise (pairwise summation applies
    only along a contiguous reduced axis), so in one call."""
    if full == w:
        return e[:, :w].copy()
    return np.add.reduce(e[:, :full].reshape(e.shape[0], full // w, w), 1)


def reduce_sum_rows(e, w):
    """vec::reduce_all(x + y) over each row of a 2-D array: one accumulator vector over the full vectors, the
    partial last vector added into its first lanes (Vec::set), then hsum; rows shorter than w: hseq."""
    n = e.shape[1]
    if n < w:
        return hseq(e, n)
    full = n - n % w
    acc = vectors_sum(e, full, w)
    if n > full:
        acc[:, :n - full] += e[:, full:]
    return hsum(acc)


# -- float32: Sleef_expf8_u10, Sleef_logf8_u10 ---------------------------------------------------------------

_R_LN2F = _F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF, _L2LF = _F(0.693145751953125), _F(1.428606765330187045e-06)
_EXPF_C = tuple(_F(v) for v in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                0.00833336077630519866943359, 0.0416664853692054748535156,
                                0.166666671633720397949219, 0.5))


def _pow2i_f(q):
    return ((q + 127) << 23).view(_F)


_SHIFT = np.uint64(35)
_MID = np.iinfo(np.int64).min    # a float64 whose low 29 mantissa bits are 1 << 28, shifted to the top


class _Fma32:
    """float32 fused multiply-adds a * b + c over arrays of one size, in float64 scratch: the product of two
    float32 is exact there, the sum rounds once, and the cast to float32 rounds again; the two roundings differ
    from one only when the float64 sum lands exactly on a float32 midpoint (low 29 bits 1 << 28, about one sum
    in 2**29): those lanes are recomputed with the sum's exact error (TwoSum) before the cast."""

    def __init__(self, n):
        self.p = np.empty(n, _D)
        self.u = np.empty(n, np.uint64)

    def __call__(self, a, b, c, out):
        p = np.multiply(a, b, out=self.p)
        p += c
        u = np.left_shift(p.view(np.uint64), _SHIFT, out=self.u).view(np.int64)
        if np.minimum.reduce(u) == _MID:
            idx = np.flatnonzero(u == _MID)
            pa, pb, pc = (v.ravel()[idx].astype(_D) if np.ndim(v) else _D(v) for v in (a, b, c))
            si = p[idx]
            z = si - pc
            err = (pc - (si - z)) + (pa * pb - z)
            p[idx] = np.where(err > 0, np.nextafter(si, np.inf), np.where(err < 0, np.nextafter(si, -np.inf), si))
        np.copyto(out, p, casting="same_kind")
        return out


# Horner steps 1..4 of expf: (k, c_k + C_k); C_k = 1.5 * 2**(e_k + 29) rounds onto float32's grid of u_k's binade
_EXPF_ROUND = {k: _D(1.5 * 2.0 ** (e + 29)) for k, e in ((1, -10), (2, -7), (3, -5), (4, -3))}
_EXPF_STEPS = tuple((k, _D(_EXPF_C[k]) + _EXPF_ROUND[k]) for k in range(1, 5))
_EXPF_LO, _EXPF_HI = _F(-104), _F(100)
_EXPF_NO_OVERFLOW = _F(88)     # exp(88) < float32's max: no lane overflows (underflow warnings are off by default)


def _midpoints(p):
    """The columns of a (k, n) float64 array where a row's value lies exactly on a float32 rounding midpoint (low
    29 bits 1 << 28: rounding it to float32 may differ from one FMA's rounding), or None (the usual case)."""
    u = np.left_shift(p.view(np.uint64), _SHIFT).view(np.int64)
    if np.minimum.reduce(u, None) != _MID:
        return None
    return np.flatnonzero(np.logical_or.reduce(u == _MID, 0))


def _expf_fast(d):
    """_expf_exact's bits for a flat float32 d within [-104, 100] (no NaN), in fewer and cheaper NumPy calls
    (float64 only: a ufunc mixing float32 and float64 costs twice one that does not).

    The Horner steps u1..u4 each stay within one binade [2**e, 2**(e+1)) for every reduced argument
    (|s| <= 0.35: u1 in [0.00132, 0.00147], u2 [0.00782, 0.00885], u3 [0.0386, 0.0448], u4 [0.151, 0.183]), so
    their FMA is computed with a round-to-float32 constant C = 1.5 * 2**(e+29): fl64(u*s + (c + C)) rounds
    u*s + c once onto float64's grid there, which is float32's grid of that binade with the same ties to even,
    and subtracting C is exact. u5 = fma(u4, s, 0.5) lies in [0.25, 0.5) where s < 0 and [0.5, 1) where s >= 0:
    the same with C chosen per lane. The last FMA crosses binades: a float64 sum cast to float32, its lanes on a
    float32 midpoint (about one in 2**29) recomputed by _expf_exact. u * 2**h * 2**(q - h) is ldexp(u, q): the
    first product is exact (|h| <= 75, u near 1) so both round u * 2**q once."""
    qf = np.multiply(d, _R_LN2F)
    np.rint(qf, qf)
    q = qf.astype(_I32)
    s = np.multiply(qf, _L2UF)
    np.subtract(d, s, s)                                # fma(q, -L2U, d): exact product, one rounding
    s64 = s.astype(_D)
    t = qf.astype(_D)
    t *= _D(-_L2LF)                                     # exact in float64
    s64 += t                                            # fma(q, -L2L, s): the float64 sum is exact
    s = s64.astype(_F)
    s64 = s.astype(_D)
    u = np.multiply(s64, _D(_EXPF_C[0]), t)
    for k, big in _EXPF_STEPS:
        u += big
        u -= _EXPF_ROUND[k]
        if k < 4:
            u *= s64
    # u5 = fma(u4, s, 0.5): the rounding constant of the binade each lane's result lies in
    cr = np.where(s64 >= 0, _D(1.5 * 2.0 ** 28), _D(1.5 * 2.0 ** 27))
    u *= s64
    u += cr
    u += 0.5
    u -= cr
    ss = np.multiply(s, s).astype(_D)
    ss *= u                                             # fma(ss, u5, s)
    ss += s64
    mid = _midpoints(ss[None])
    v = ss.astype(_F)
    v += _F(1)
    np.ldexp(v, q, v)
    if mid is not None:
        v[mid] = _expf_exact(d[mid])
    return v


def _expf_block(d):
    d = np.asarray(d, _F)
    if not d.size:
        return d.copy()
    shape = d.shape
    d = d.ravel()
    lo, hi = np.minimum.reduce(d), np.maximum.reduce(d)
    if lo >= _EXPF_LO and hi <= _EXPF_NO_OVERFLOW:      # NaN fails both; nothing overflows: no errstate needed
        return _expf_fast(d).reshape(shape)
    with np.errstate(all="ignore"):
        if lo >= _EXPF_LO and hi <= _EXPF_HI:
            return _expf_fast(d).reshape(shape)
        # lanes out of range (a masked -inf logit) or NaN: computed on a clipped copy, then overwritten as
        # _expf_exact overwrites them
        nan = d != d
        dc = np.clip(d, _EXPF_LO, _EXPF_HI)
        dc[nan] = 0
        u = _expf_fast(dc)
        u[d < _EXPF_LO] = 0
        u[d > _EXPF_HI] = np.inf
        u[nan] = d[nan]
        return u.reshape(shape)


def _expf_exact(d):
    """Sleef_expf8_u10 on a flat float32 array, any values."""
    with np.errstate(all="ignore"):
        qf = np.rint(d * _R_LN2F)
        keep = np.abs(qf) < 2.0 ** 31                      # NaN / huge: cvtps2dq gives INT_MIN; those lanes are
        if not keep.all():                                 # overwritten below anyway
            qf[~keep] = 0
        q = qf.astype(_I32)
        # fma(q, -L2U, d): q * L2U is exact in float32 (|q| <= 150, L2U has 15 significant bits) wherever the
        # result is kept, so the float32 subtraction rounds once, as the FMA
        s = d - qf * _L2UF
        # fma(q, -L2L, s): exact in float64 (q * L2L has 32 bits, the sum spans < 53), then one rounding
        s64 = s.astype(_D)
        s64 -= qf.astype(_D) * _D(_L2LF)
        s64f = s64.astype(_F)
        np.copyto(s64, s64f)
        fma = _Fma32(d.size)
        u = np.empty_like(d)
        fma(s64, _EXPF_C[0], _EXPF_C[1], u)
        for c in _EXPF_C[2:]:
            fma(u, s64, c, u)
        ss = s64f * s64f
        fma(ss, u, s64, u)
        u += _F(1)
        h = q >> 1
        u *= _pow2i_f(h)
        u *= _pow2i_f(q - h)
        u[d < _F(-104)] = 0
        u[d > _F(100)] = np.inf
        nan = d != d
        if nan.any():
            u[nan] = d[nan]
    return u


_FLT_MIN = _F(np.finfo(_F).tiny)
_LN2F_HI, _LN2F_LO = _F(0.69314718246459960938), _F(-1.904654323148236017e-09)
_LOGF_T = tuple(_F(v) for v in (0.3027294874, 0.3996108174, 0.6666694880))
_F43 = _F(1.0) / _F(0.75)
_LOGF_ROUND = (_D(1.5 * 2.0 ** 27), _D(1.5 * 2.0 ** 28))     # binades [0.25, 0.5) and [0.5, 1)
_LOGF_STEPS = (_D(_LOGF_T[1]) + _LOGF_ROUND[0], _D(_LOGF_T[2]) + _LOGF_ROUND[1])


def _two_sum(a, b):
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _logf_poly(x2):
    """SLEEF logf's polynomial t = fma(fma(x2, T0, T1), x2, T2) in float32 for x2 = x * x, |x| <= 1/5 (x = (m - 1) /
    (m + 1) of logf, m / (2 + m) of log1pf): x2 in [0, 0.041] keeps the first sum in [0.399, 0.412] and the second
    in [0.666, 0.684], one binade each, so a constant rounds each sum once onto float32's grid (see _expf_fast)."""
    x2d = x2.astype(_D)
    tt = np.multiply(x2d, _D(_LOGF_T[0]))
    tt += _LOGF_STEPS[0]
    tt -= _LOGF_ROUND[0]
    tt *= x2d
    tt += _LOGF_STEPS[1]
    tt -= _LOGF_ROUND[1]
    return tt.astype(_F)


def _log_sum(sx, sy, xs, xy, x2, tt):
    """The end of SLEEF's log / log1p in double-float arithmetic (float32 or float64 operands alike):
    s = dfadd(s, dfscale(x, 2)); s = dfadd(s, x2 * x * t); r = s.x + s.y."""
    two = xs.dtype.type(2)
    x2x, x2y = xs * two, xy * two
    r = sx + x2x
    ry = (((sx - r) + x2x) + sy) + x2y
    w = (x2 * xs) * tt
    r2 = r + w
    ry2 = ((r - r2) + w) + ry
    return r2 + ry2


def logf(d):
    """Sleef_logf8_u10 (xlogf_u1) on any float32 array, in SLEEF's double-float arithmetic with FMA. Every FMA
    but the two of the polynomial has an exact float64 value (a product's or a reciprocal's rounding error, or
    sums spanning fewer than 53 bits), so one float32 rounding of the float64 value is the FMA's."""
    d = np.asarray(d, _F)
    if not d.size:
        return d.copy()
    shape = d.shape
    d = d.ravel()
    with np.errstate(all="ignore"):
        if np.minimum.reduce(d) >= _FLT_MIN and np.maximum.reduce(d) < np.inf:     # NaN fails both
            return _logf_normal(d).reshape(shape)
        return _logf_exact(d).reshape(shape)


def _logf_normal(d):
    """logf's bits for a flat float32 d of positive normal finite values: the same arithmetic without the subnormal
    scaling and special values, the polynomial's two FMAs unchecked and checked together (lanes where a float64
    sum lies on a float32 midpoint, about one in 200 near 1, are recomputed by _logf_exact)."""
    e = np.multiply(d, _F43).view(_I32)
    e >>= 23                                           # d > 0: no sign bit to mask off
    e -= 0x7F
    m = (d.view(_I32) - (e << 23)).view(_F)            # + ((-e) << 23): the same bits modulo 2**32
    ef = e.astype(_D)
    hi = _D(_LN2F_HI) * ef
    sx = hi.astype(_F)
    hi -= sx
    hi += _D(_LN2F_LO) * ef
    sy = hi.astype(_F)
    # m in [0.75, 1.5): m - 1 is exact (Sterbenz), so dfadd2(-1, m)'s low part is 0, and 1 + m's error is
    # Fast2Sum's (1's exponent is m's or above): the same values as TwoSum in fewer operations
    nx = m - _F(1)
    dx = m + _F(1)
    dy = dx - _F(1)
    np.subtract(m, dy, dy)
    t = _F(1) / dx
    t64 = t.astype(_D)
    xs = nx * t
    u = (t64 * nx - xs).astype(_F)
    v = (-(dy * t64) + (1.0 - dx * t64)).astype(_F)
    xy = xs.astype(_D)
    xy *= v
    xy += u
    xy = xy.astype(_F)
    x2 = xs * xs
    return _log_sum(sx, sy, xs, xy, x2, _logf_poly(x2))


def _logf_exact(d):
    """Sleef_logf8_u10 on a flat float32 array, any values."""
    with np.errstate(all="ignore"):
        o = d < _FLT_MIN
        dd = d * _F(2.0 ** 64) if o.any() else d
        if dd is not d:
            dd = np.where(o, dd, d)
        e = (((dd * _F43).view(_I32) >> 23) & 0xFF) - 0x7F
        m = (dd.view(_I32) + ((-e) << 23)).view(_F)
        if dd is not d:
            e = np.where(o, e - 64, e)
        ef = e.astype(_D)
        # s = dfmul((ln2 hi, lo), e)
        sx = (_D(_LN2F_HI) * ef).astype(_F)
        sy = (_D(_LN2F_LO) * ef + (_D(_LN2F_HI) * ef - sx)).astype(_F)
        # x = dfdiv(dfadd2(-1, m), dfadd2(1, m))
        nx, ny = _two_sum(_F(-1), m)
        dx, dy = _two_sum(_F(1), m)
        t = _F(1) / dx
        t64 = t.astype(_D)
        xs = nx * t
        u = (t64 * nx - xs).astype(_F)
        v = (-(dy * t64) + (1.0 - dx * t64)).astype(_F)
        xy = (xs.astype(_D) * v + (ny * t64 + u)).astype(_F)
        x2 = xs * xs
        fma = _Fma32(d.size)
        tt = np.empty_like(d)
        fma(x2, _LOGF_T[0], _LOGF_T[1], tt)
        fma(tt, x2, _LOGF_T[2], tt)
        out = _log_sum(sx, sy, xs, xy, x2, tt)
        bad = ~(d > 0) | (d == np.inf)
        if bad.any():
            out[d == np.inf] = np.inf
            out[(d < 0) | (d != d)] = np.nan
            out[d == 0] = -np.inf
    return out


# -- float64: Sleef_expd4_u10, Sleef_logd4_u10 ---------------------------------------------------------------

_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U, _L2L = .69314718055966295651160180568695068359375, .28235290563031577122588448175013436025525412068e-12
_EXPD_C = (+0.2081276378237164457e-8, +0.2511210703042288022e-7, +0.2755762628169491192e-6,
           +0.2755723402025388239e-5, +0.2480158687479686264e-4, +0.1984126989855865850e-3,
           +0.1388888888914497797e-2, +0.8333333333314938210e-2, +0.4166666666666602598e-1,
           +0.1666666666666669072e+0)


def _pow2i_d(q):
    return ((q.astype(np.int64) + 1023) << 52).view(_D)


def _split(a):
    """Veltkamp's split: a == hi + lo, each with at most 26 significant bits."""
    c = a * 134217729.0
    hi = c - (c - a)
    return a, hi, a - hi


def _fma64s(a, b, c):
    """a * b + c for finite float64 operands given as _split triples (a scalar b as one too): TwoProduct's
    error and TwoSum's error added back before the last rounding (one rounding but for astronomically rare
    double-rounding cases), without the overflow handling of _rng_math.fma64 (the operands here are bounded)."""
    a, ah, al = a
    b, bh, bl = b
    p = a * b
    ep = ah * bh
    ep -= p
    ep += ah * bl
    ep += al * bh
    ep += al * bl
    s = p + c
    z = s - p
    es = (p - (s - z)) + (c - z)
    es += ep
    s += es
    return s


def _fma64d(a, b, c):
    """_fma64s where |c| >= |a * b| on every lane that is kept (c dominates): the sum's error by Fast2Sum (three
    operations instead of TwoSum's six; both give the exact error, so the same bits)."""
    a, ah, al = a
    b, bh, bl = b
    p = a * b
    ep = ah * bh
    ep -= p
    ep += ah * bl
    ep += al * bh
    ep += al * bl
    s = p + c
    es = p - (s - c)
    es += ep
    s += es
    return s


def _k(v):
    return _split(_D(v))


_EXPD_K = tuple(_k(v) for v in _EXPD_C)
_L2L_K = _k(-_L2L)


def _expd_block(d):
    d = np.asarray(d, _D)
    if not d.size:
        return d.copy()
    with np.errstate(all="ignore"):
        u = np.rint(d * _R_LN2)
        keep = (d >= -1000) & (d <= 709.78271114955742909217217426)    # other lanes are overwritten below
        if not keep.all():
            u = np.where(keep, u, 0)
        q = u.astype(_I32)
        s = d - u * _L2U                     # u * L2U is exact (|u| < 2**11, L2U has 32 significant bits)
        s = _fma64s(_split(u), _L2L_K, s)
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        c = _EXPD_C
        sk, s2k = _split(s), _split(s2)
        # |s| <= ln2 / 2 on kept lanes: in every FMA below the addend dominates the product (c[1] vs s * c[0],
        # ..., 0.5 vs ~s / 6, 1 vs ~s / 2, 1 vs ~s), so _fma64d's Fast2Sum is exact
        fma = _fma64d
        p98 = fma(sk, _EXPD_K[0], c[1])
        p76 = fma(sk, _EXPD_K[2], c[3])
        p54 = fma(sk, _EXPD_K[4], c[5])
        p32 = fma(sk, _EXPD_K[6], c[7])
        p10 = fma(sk, _EXPD_K[8], c[9])
        p7_4 = fma(s2k, _split(p76), p54)
        p3_0 = fma(s2k, _split(p32), p10)
        p8 = fma(_split(s4), _split(p7_4), p3_0)
        u = fma(_split(s8), _split(p98), p8)
        u = fma(_split(u), sk, 0.5)
        u = fma(_split(u), sk, 1.0)
        u = fma(_split(u), sk, 1.0)
        h = q >> 1
        u *= _pow2i_d(h)
        u *= _pow2i_d(q - h)
        u[d > 709.78271114955742909217217426] = np.inf
        u[d < -1000] = 0
        nan = d != d
        if nan.any():
            u[nan] = d[nan]
    return u


# Blocks of this many elements keep the float64 scratch of the emulation in the L2 cache: measured 2.7x faster
# than whole 65,792-element arrays on a loaded two-core machine.
_BLOCK = 16384
_BLOCK_F = 8192     # _expf_fast keeps six float64 rows: 384 KiB, within the L2 cache


def _blocked(fn, d, dtype, block=_BLOCK):
    d = np.asarray(d, dtype)
    if d.size <= block:
        return fn(d)
    flat = d.ravel()
    out = np.empty(flat.size, dtype)
    for i in range(0, flat.size, block):
        out[i:i + block] = fn(flat[i:i + block])
    return out.reshape(d.shape)


def expf(d):
    """Sleef_expf8_u10 (xexpf) on any float32 array."""
    return _blocked(_expf_block, d, _F, _BLOCK_F)


def expd(d):
    """Sleef_expd4_u10 (xexp, the FMA branch: POLY10 by Estrin's scheme) on any float64 array."""
    return _blocked(_expd_block, d, _D)


_LOGD_T = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
           0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
           0.6666666666667333541e+0)
_LN2D_HI, _LN2D_LO = 0.693147180559945286226764, 2.319046813846299558417771e-17


def logd(d):
    """Sleef_logd4_u10 (xlog_u1) on any float64 array, in SLEEF's double-double arithmetic with FMA."""
    d = np.asarray(d, _D)
    if not d.size:
        return d.copy()
    with np.errstate(all="ignore"):
        o = d < np.finfo(_D).tiny
        dd = np.where(o, d * 2.0 ** 64, d)
        e = (((dd * (1.0 / 0.75)).view(np.int64) >> 52) & 0x7FF) - 0x3FF
        m = (dd.view(np.int64) + ((-e) << 52)).view(_D)
        e = np.where(o, e - 64, e)
        ef = e.astype(_D)
        sx = _LN2D_HI * ef
        sy = fma64(_LN2D_LO, ef, fma64(_LN2D_HI, ef, -sx))
        nx, ny = _two_sum(-1.0, m)
        dx, dy = _two_sum(1.0, m)
        t = 1.0 / dx
        xs = nx * t
        u = fma64(t, nx, -xs)
        v = fma64(-dy, t, fma64(-dx, t, 1.0))
        xy = fma64(xs, v, fma64(ny, t, u))
        x2 = xs * xs
        x4 = x2 * x2
        x8 = x4 * x4
        c = _LOGD_T
        # POLY7(x2, x4, x8, c6..c0) = MLA(x8, POLY3(c6, c5, c4), POLY4(c3..c0)), Estrin's scheme
        p6_4 = fma64(x4, c[0], fma64(x2, c[1], c[2]))
        p32 = fma64(x2, c[3], c[4])
        p10 = fma64(x2, c[5], c[6])
        p3_0 = fma64(x4, p32, p10)
        tt = fma64(x8, p6_4, p3_0)
        out = _log_sum(sx, sy, xs, xy, x2, tt)
        out[d == np.inf] = np.inf
        out[(d < 0) | (d != d)] = np.nan
        out[d == 0] = -np.inf
    return out


def vexp(x):
    """Vectorized<T>::exp for float32 / float64 arrays (the DEFAULT build, without AVX2, maps std::exp)."""
    if _cpu.capability() == "default":
        return cexp(x)
    return expf(x) if x.dtype == _F else expd(x)


def vlog(x):
    """Vectorized<T>::log for float32 / float64 arrays (the DEFAULT build maps std::log)."""
    if _cpu.capability() == "default":
        return clog(x)
    return logf(x) if x.dtype == _F else logd(x)


# -- the C library, for the scalar tails (std::exp / std::log) ---------------------------------------------------

_LIBM = []     # the C library's expf / logf, loaded on first use (None where it cannot be loaded)


def _libm():
    if not _LIBM:
        try:
            lib = ctypes.CDLL("libm.so.6")     # glibc's soname (find_library would run ldconfig: ~60 ms)
        except OSError:  # pragma: no cover - not glibc: the double result rounded (may differ in the last bit)
            lib = None
        if lib is not None:
            for fn in ("expf", "logf"):
                getattr(lib, fn).restype, getattr(lib, fn).argtypes = ctypes.c_float, [ctypes.c_float]
        _LIBM.append(lib)
    return _LIBM[0]


def _scalar(x, fn32, fn64, name):
    x = np.asarray(x)
    flat = x.ravel().tolist()
    if x.dtype == _F:
        f = getattr(_libm(), name, None)
        if f is None:  # pragma: no cover
            return getattr(np, name)(x.astype(_D)).astype(_F)
        return np.fromiter(map(f, flat), _F, x.size).reshape(x.shape)
    return np.fromiter(map(fn64, flat), _D, x.size).reshape(x.shape)


def _log64(v):
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def _exp64(v):
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


_LOW29 = np.uint64((1 << 29) - 1)
_NEAR = 1 << 24      # float64 ulps from a float32 midpoint below which a lane goes to glibc's expf itself


def _cexpf(x):
    """glibc's expf on a float32 array: the float64 exp rounded to float32, except lanes whose float64 value lies
    within 2**24 float64 ulps of a float32 midpoint, or whose input is outside [-87, 88] (subnormal, overflowing or
    NaN results), which call expf itself. glibc 2.28+'s expf evaluates in double within 1.69 * 2**-34 relative
    error before its one rounding (0.502 ulp), far inside that margin: checked on every float32 in [-87, 88]
    against (float)exp((double)x) (2.2e9 inputs, 1.5% sent to expf, no other lane differs)."""
    flat = x.ravel()
    d = np.exp(flat.astype(_D))
    r = d.astype(_F)
    low = (d.view(np.uint64) & _LOW29).view(np.int64)
    low -= 1 << 28
    np.abs(low, low)
    risky = low < _NEAR
    risky |= ~(flat >= _F(-87))
    risky |= ~(flat <= _F(88))
    idx = np.flatnonzero(risky)
    if idx.size:
        r[idx] = _scalar(flat[idx], None, _exp64, "expf")
    return r.reshape(x.shape)


def cexp(x):
    """std::exp on each element (glibc expf / exp)."""
    x = np.asarray(x)
    if x.dtype == _F and x.size > 16 and _libm() is not None:
        with np.errstate(all="ignore"):
            return _cexpf(x)
    return _scalar(x, None, _exp64, "expf")


def clog(x):
    """std::log on each element (glibc logf / log)."""
    return _scalar(x, None, _log64, "logf")
