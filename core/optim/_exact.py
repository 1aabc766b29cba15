"""Rounding a float64 FMA emulation back to float32 exactly as one float32 FMA rounds.

The kernels compute c + a * b in float64: the product of two float32 values is exact there, the sum is
rounded once to 53 bits, and the cast rounds again to 24. The two roundings agree with a single one except
when the float64 sum lands exactly on a float32 rounding midpoint while the exact sum does not: the cast then
breaks a tie that was not there (measured: 1 + (8391483 * 2**-23) * (8385734 * 2**-47) gives 1.0 in float64
then float32, 1 + 2**-23 in torch's fmadd). For a normal float32 result such a midpoint has the low 29
mantissa bits 1 followed by 28 zeros; those (about one sum in 2**29) are recomputed with the exact error of
the float64 sum (TwoSum) and moved one float64 ulp toward the exact value before the cast.

Not covered: results in float32's subnormal range (there midpoints end in 29 or more zero bits; a float64 sum
there is inexact only when 0 < |c| < 2**-100; measured: c = 512 * 2**-149, a * b = 2**-150 * (1 + 2**-46) gives
512 * 2**-149 here, 513 * 2**-149 in torch) and results rounding to the overflow threshold. Detecting those
takes another shift and two reductions per chunk (~+25% on these kernels).

float64 has no wider type to compute in: fma64_ adds the product's and the sum's exact rounding errors
(Dekker's TwoProduct, TwoSum) back before the last rounding."""
from __future__ import annotations

import threading

import numpy as np

from .._warn import quietly

__all__ = ["fma64_", "narrow_", "narrow_quiet"]

_SHIFT = np.uint64(35)
_MID = np.iinfo(np.int64).min    # low 29 bits 1 << 28, shifted to the top: the one int64 that small
_F64 = np.float64
_min = np.minimum.reduce


def narrow_(out, s, a, b, c, ubuf, mbuf):
    """out[...] = float32(s) where s = c + a * b was computed in float64 (a, c float32 arrays of s's size, b a
    scalar or such an array; ubuf / mbuf uint64 / bool scratch of s's size), rounding as one float32 FMA."""
    return quietly(narrow_quiet, out, s, a, b, c, ubuf, mbuf)    # an overflow to inf is silent, as torch's step


def narrow_quiet(out, s, a, b, c, ubuf, mbuf):
    """narrow_ for a caller that already runs with NumPy's floating-point errors ignored (a chunk loop sets
    them once, not per chunk)."""
    # one shift and one min reduction (measured ~15% cheaper than and + equal + any)
    u = np.left_shift(s.view(np.uint64), _SHIFT, out=ubuf).view(np.int64)
    if _min(u) == _MID:
        _fix_ties(s, np.flatnonzero(np.equal(u, _MID, out=mbuf)), a, b, c)
    np.copyto(out, s, casting="same_kind")
    return out


def _fix_ties(s, idx, a, b, c):
    """Move s[idx] (float32 midpoints) one float64 ulp toward c + a * b where the float64 sum was inexact."""
    p = _at(a, idx) * _at(b, idx)
    cc = _at(c, idx)
    si = s[idx]
    with np.errstate(invalid="ignore", over="ignore"):
        z = si - cc
        err = (cc - (si - z)) + (p - z)           # TwoSum: c + p == si + err exactly
    s[idx] = np.where(err > 0, np.nextafter(si, np.inf), np.where(err < 0, np.nextafter(si, -np.inf), si))


def _at(x, idx):
    return x[idx].astype(_F64) if isinstance(x, np.ndarray) else _F64(x)


_SPLIT = np.float64(134217729.0)     # 2**27 + 1: Veltkamp's splitting constant for float64
_CHUNK64 = 1 << 13
_local = threading.local()


def _scratch64():
    """This thread's float64 scratch rows (reused chunk by chunk: no allocation, no page faults per call)."""
    bufs = getattr(_local, "f64", None)
    if bufs is None:
        bufs = _local.f64 = np.empty((10, _CHUNK64))
    return bufs


def fma64_(out, a, b, c):
    """out[...] = a * b + c for float64 operands as one FMA rounds it, without an FMA instruction: the product's
    exact error (Dekker's TwoProduct) and the sum's (TwoSum) are added back before the last rounding. That
    differs from a single rounding only when the tiny rounding of the two errors' sum decides a tie (about once
    in 2**50 random operands); operands above ~2**996 overflow the split (then a * b + c is returned as is)."""
    scalar_b = np.ndim(b) == 0
    ops = np.broadcast_arrays(out, a, c) if scalar_b else np.broadcast_arrays(out, a, b, c)
    if not out.flags.c_contiguous or any(x.shape != out.shape for x in ops[1:]) or out.ndim == 0:
        return _fma64_whole(out, a, b, c)
    fo = out.reshape(-1)
    fa = np.ascontiguousarray(ops[1], _F64).reshape(-1)
    fc = np.ascontiguousarray(ops[-1], _F64).reshape(-1)
    fb = np.float64(b) if scalar_b else np.ascontiguousarray(ops[2], _F64).reshape(-1)
    bh = bl = None
    if scalar_b:
        tb = _SPLIT * fb
        bh = tb - (tb - fb)
        bl = fb - bh
    buf = _scratch64()
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(0, fo.size, _CHUNK64):
            j = min(i + _CHUNK64, fo.size)
            _fma64_chunk(fo[i:j], fa[i:j], fb if scalar_b else fb[i:j], fc[i:j], bh, bl, buf[:, :j - i])
    return out


def _fma64_chunk(o, a, b, c, bh, bl, buf):
    """One chunk of fma64_ (b's split bh / bl given when b is a scalar); reads every operand before writing o."""
    m, s_, add = np.multiply, np.subtract, np.add
    p, t1, t2, ah, al, e, s, z, bhv, blv = buf
    m(a, b, out=p)
    m(a, _SPLIT, out=t1)
    s_(t1, a, out=t2)
    s_(t1, t2, out=ah)
    s_(a, ah, out=al)
    if bh is None:                          # split the array b
        m(b, _SPLIT, out=t1)
        s_(t1, b, out=t2)
        s_(t1, t2, out=bhv)
        s_(b, bhv, out=blv)
        bh, bl = bhv, blv
    m(ah, bh, out=e)
    s_(e, p, out=e)
    m(ah, bl, out=t1)
    add(e, t1, out=e)
    m(al, bh, out=t1)
    add(e, t1, out=e)
    m(al, bl, out=t1)
    add(e, t1, out=e)                       # e: the exact error of p = a * b
    add(p, c, out=s)
    s_(s, p, out=z)
    s_(s, z, out=t1)
    s_(p, t1, out=t1)
    s_(c, z, out=z)
    add(t1, z, out=t1)                      # t1: the exact error of s = p + c
    add(t1, e, out=t1)
    add(s, t1, out=o)
    if not np.isfinite(o).all():            # inf / nan: the split's NaNs must not replace p + c
        np.copyto(o, s, where=~np.isfinite(o))


def _fma64_whole(out, a, b, c):
    """fma64_ for broadcast, strided or 0-dim layouts: the same arithmetic over whole arrays."""
    a = np.asarray(a, _F64)
    b = np.asarray(b, _F64)
    c = np.asarray(c, _F64)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        ta = _SPLIT * a
        ah = ta - (ta - a)
        al = a - ah
        tb = _SPLIT * b
        bh = tb - (tb - b)
        bl = b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        z = s - p
        t = (p - (s - z)) + (c - z)
        r = np.add(s, t + e, out=np.empty(np.shape(s)))      # an array also for 0-dim operands
        np.copyto(r, s, where=~np.isfinite(r))
    np.copyto(out, r)
    return out
