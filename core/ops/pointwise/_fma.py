"""a * b + c rounded once, as ATen's vectorised CPU kernels compute it (Vectorized<T>::fmadd, and the scalar
tails, which the compiler contracts to the same instruction): lerp, addcmul.

float32: the product of two float32 values is exact in float64, the sum rounds once to 53 bits and the cast
again to 24; the two roundings differ from one only when the float64 sum lands exactly on a float32 midpoint
(its low 29 mantissa bits 1 followed by 28 zeros) while the exact sum does not: those sums are moved one
float64 ulp toward the exact value (TwoSum's error) before the cast. Results in float32's subnormal range
are not repaired. float64: Dekker's TwoProduct and TwoSum add the product's and the sum's exact errors back
before the last rounding (a tie decided by their tiny rounding, about once in 2**50, may differ); operands
above ~2**996 overflow the split, and a * b + c is kept there. The same method as core/optim/_exact.py,
which ops cannot import (core.optim's package imports the optimizers, above ops).
"""
from __future__ import annotations

import threading

import numpy as np

_CHUNK = 8192
_local = threading.local()
_F64 = np.float64
_LOW29 = np.uint64((1 << 29) - 1)
_MID = np.uint64(1 << 28)
_SHIFT = np.uint64(35)
_IMIN = np.iinfo(np.int64).min
_SPLIT = _F64(2.0 ** 27 + 1)


def _two_sum_err(s, p, c):
    """The exact error of s = fl(p + c): (p + c) - s."""
    z = s - p
    return (p - (s - z)) + (c - z)


def _scratch():
    bufs = getattr(_local, "bufs", None)
    if bufs is None:
        bufs = _local.bufs = (np.empty(_CHUNK), np.empty(_CHUNK, np.uint64), np.empty(_CHUNK, np.bool_))
    return bufs


def fma32(a, b, c):
    """float32 fma of float32 operands (arrays or numpy float32 scalars, broadcast together), chunk by chunk
    through reused float64 buffers (whole-array float64 temporaries cost more in page faults than in work)."""
    if max(np.size(a), np.size(b), np.size(c)) <= _CHUNK:
        return _fma32_small(a, b, c)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    ops = []
    for o in (a, b, c):
        if np.ndim(o) == 0:
            ops.append(np.float64(o))
        else:
            o = np.asarray(o)
            ops.append((o if o.shape == shape and o.flags.c_contiguous else
                        np.ascontiguousarray(np.broadcast_to(o, shape))).reshape(-1))
    fa, fb, fc = ops
    out = np.empty(shape, np.float32)
    fo = out.reshape(-1)
    buf, ubuf, mbuf = _scratch()
    for i in range(0, fo.size, _CHUNK):
        j = min(i + _CHUNK, fo.size)
        n = j - i
        s = buf[:n]
        pa = fa if fa.ndim == 0 else fa[i:j]
        pb = fb if fb.ndim == 0 else fb[i:j]
        pc = fc if fc.ndim == 0 else fc[i:j]
        s[...] = pa
        np.multiply(s, pb, out=s)              # exact: two float32 factors
        np.add(s, pc, out=s)                   # rounded once to 53 bits
        # the low 29 bits shifted to the top: 1 << 28 there is int64's minimum, so one min finds midpoints
        u = np.left_shift(s.view(np.uint64), _SHIFT, out=ubuf[:n]).view(np.int64)
        if np.minimum.reduce(u) == _IMIN:       # about one sum in 2**29: a float32 midpoint made by rounding
            k = np.flatnonzero(np.equal(u, _IMIN, out=mbuf[:n]))
            p = np.multiply(np.asarray(pa, _F64)[k] if np.ndim(pa) else pa, np.asarray(pb, _F64)[k] if np.ndim(pb) else pb)
            cc = np.asarray(pc, _F64)[k] if np.ndim(pc) else np.full(k.size, pc)
            e = _two_sum_err(s[k], p, cc)
            s[k] = np.where(e == 0, s[k], np.nextafter(s[k], np.copysign(np.inf, e)))
        fo[i:j] = s
    return out


def _fma32_small(a, b, c):
    """fma32 in whole small arrays (the chunk loop's set-up costs more than the work below _CHUNK)."""
    p = np.multiply(a, b, dtype=_F64)
    s = np.atleast_1d(np.add(p, c, dtype=_F64))
    u = np.left_shift(s.view(np.uint64), _SHIFT).view(np.int64)
    if np.minimum.reduce(u, axis=None) == _IMIN:
        k = np.nonzero(u == _IMIN)
        pk = np.broadcast_to(np.atleast_1d(p), s.shape)[k]
        ck = np.broadcast_to(np.atleast_1d(np.asarray(c, _F64)), s.shape)[k]
        e = _two_sum_err(s[k], pk, ck)
        s[k] = np.where(e == 0, s[k], np.nextafter(s[k], np.copysign(np.inf, e)))
    r = s.astype(np.float32)
    return r if max(np.ndim(a), np.ndim(b), np.ndim(c)) else r.reshape(())


def _split(x):
    t = _SPLIT * x
    hi = t - (t - x)
    return hi, x - hi


def product_error(a, b, p):
    """The exact error a * b - p of p = fl(a * b), float64 (Dekker's TwoProduct through Veltkamp's split)."""
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a, b, c):
    """float64 fma (arrays or scalars, broadcast together)."""
    a, b, c = np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64)
    p = a * b
    e = product_error(a, b, p)
    s = p + c
    out = s + (_two_sum_err(s, p, c) + e)
    bad = ~np.isfinite(out)
    if bad.any():
        out = np.where(bad, s, out)
    return out


def fma(a, b, c, dtype):
    """a * b + c rounded once in dtype (float32 or float64; other dtypes: plain a * b + c in dtype)."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return fma32(a, b, c)
    if dtype == np.float64:
        return fma64(a, b, c)
    return np.asarray(np.add(np.multiply(a, b, dtype=dtype), c, dtype=dtype))
