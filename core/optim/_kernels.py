"""NumPy kernels mirroring ATen's CPU pointwise kernels used by torch.optim's single-tensor paths.

ATen's vectorized float32 add(alpha)/lerp/addcmul round a fused multiply-add once; NumPy has no FMA,
so it is emulated in float64 (the product of two float32 values is exact there, one rounding back, with the
float32 midpoints that double rounding gets wrong repaired by _exact.narrow_), chunk by chunk through reused
buffers so the work stays in cache and nothing is allocated.
Scalars are first rounded to the tensor's dtype, as ATen does. float64 tensors add the exact product and sum
errors back before rounding (_exact.fma64_); other dtypes go through float64 whole-array."""
from __future__ import annotations

import threading

import numpy as np

from .._warn import _ERRSTATE, _IGNORE
from ._exact import _MID, _SHIFT, _fix_ties, _min, fma64_, narrow_, narrow_quiet

__all__ = ["adam_step32_", "adam_update_", "add_", "added", "addcdiv_", "addcmul_", "bump", "fma_", "grad_array", "lerp_", "mul_", "scal", "sqrt"]

CHUNK = 1 << 18     # elements per pass: a 784x256 weight is one chunk (32k-element chunks cost 15-25% in calls)
_local = threading.local()
_F64 = np.float64
_F32 = np.dtype(np.float32)


def _buffers(n):
    """This thread's (float64, float32, uint64, bool) scratch buffers of at least min(n, CHUNK) elements: they
    grow to the largest chunk asked for (at most CHUNK, ~5.5 MB), so small models keep small scratch."""
    bufs = getattr(_local, "bufs", None)
    if bufs is None or bufs[0].size < n:
        size = min(max(n, 4096), CHUNK)
        bufs = _local.bufs = (np.empty(size, np.float64), np.empty(size, np.float32), np.empty(size, np.uint64),
                              np.empty(size, np.bool_))
    return bufs


def scal(dtype, value):
    """A Python number as ATen sees it inside a kernel of `dtype` (float for half types)."""
    return np.float64(value) if dtype == np.float64 else np.float32(value)


def _flat(out, *arrays):
    """1-D views of out and of the float32 array operands of out's shape, all in out's memory order (C or
    Fortran; operands laid out otherwise are copied); None when out is not a contiguous float32 array."""
    if out.dtype != np.float32:
        return None
    order = "C" if out.flags.c_contiguous else "F" if out.flags.f_contiguous else None
    if order is None:
        return None
    flats = [out.reshape(-1, order=order)]
    for a in arrays:
        if out.ndim == 0 and isinstance(a, np.generic):    # NumPy's result of an op on 0-dim arrays: an operand
            a = np.asarray(a)
        if isinstance(a, np.ndarray):
            if a.dtype != np.float32 or a.shape != out.shape:
                return None
            flats.append(a.ravel(order=order))
        else:
            flats.append(a)
    return flats


def _chunks(n):
    for i in range(0, n, CHUNK):
        yield i, min(i + CHUNK, n)


def _part(x, i, j):
    return x[i:j] if isinstance(x, np.ndarray) else x


def fma_(out, a, b, c):
    """out = a * b + c rounded once (a an array, b an array or scalar, c an array that may be out)."""
    dt = out.dtype
    if dt == np.float64:
        return fma64_(out, a, b, c)
    if (dt is _F32 and c is out and type(a) is np.ndarray and a.dtype is _F32 and type(b) is np.float32
            and 0 < out.size <= CHUNK and out.flags.c_contiguous and a.flags.c_contiguous and a.shape == out.shape):
        return _fma_small(out, a, b)
    flats = _flat(out, a, b, c)
    if flats is None:
        return _fma_whole(out, a, b, c)
    fo, fa, fb, fc = flats
    b64, _, u64, m8 = _buffers(fo.size)
    copyto, multiply, add = np.copyto, np.multiply, np.add
    scalar_b = not isinstance(fb, np.ndarray)
    tok = _ERRSTATE.set(_IGNORE)    # once for all chunks (an overflow to inf is silent, as torch's step)
    try:
        for i in range(0, fo.size, CHUNK):
            j = min(i + CHUNK, fo.size)
            n = j - i
            bb = b64[:n]
            # widen first, then float64 ufuncs in place: the same exact product and one rounding back, but
            # NumPy's plain-dtype loops instead of its buffered mixed-dtype ones (~15% faster)
            copyto(bb, fa[i:j])
            pb = fb if scalar_b else fb[i:j]
            multiply(bb, pb, out=bb)
            pc = _part(fc, i, j)
            add(bb, pc, out=bb)
            narrow_quiet(fo[i:j], bb, fa[i:j], pb, pc, u64[:n], m8[:n])
    finally:
        _ERRSTATE.reset(tok)
    return out


def _fma_small(out, a, b):
    """fma_(out, a, b, out) for C-ordered float32 arrays of one chunk and a float32 scalar b (an optimizer's
    parameter update): the same operations as fma_'s loop and narrow_, without their per-call layers."""
    n = out.size
    b64, _, u64, m8 = _buffers(n)
    bb = b64[:n]
    fa, fo = a.reshape(-1), out.reshape(-1)
    tok = _ERRSTATE.set(_IGNORE)    # an overflow to inf is silent, as torch's step
    try:
        np.copyto(bb, fa)
        np.multiply(bb, b, out=bb)
        np.add(bb, fo, out=bb)
        u = np.left_shift(bb.view(np.uint64), _SHIFT, out=u64[:n]).view(np.int64)
        if _min(u) == _MID:
            _fix_ties(bb, np.flatnonzero(np.equal(u, _MID, out=m8[:n])), fa, b, fo)
        np.copyto(fo, bb, casting="same_kind")
    finally:
        _ERRSTATE.reset(tok)
    return out


def _fma_whole(out, a, b, c):
    """fma_ for layouts _flat does not take (broadcast or strided operands, other dtypes): whole-array float64."""
    s = np.asarray(a, _F64) * np.asarray(b, _F64) + np.asarray(c, _F64)
    if out.dtype != np.float32 or s.shape != out.shape:
        np.copyto(out, s, casting="unsafe")
        return out
    flat = [np.ascontiguousarray(np.broadcast_to(x, s.shape)).reshape(-1) for x in (a, b, c)]
    r = np.empty(s.shape, np.float32).reshape(-1)
    narrow_(r, s.reshape(-1), *flat, np.empty(s.size, np.uint64), np.empty(s.size, np.bool_))
    np.copyto(out, r.reshape(s.shape))
    return out


def add_(out, other, alpha):
    """out += alpha * other (torch's add_(other, alpha=...): one FMA per element). With alpha 1 or -1 the
    product is exact, so a plain add/subtract rounds the same way (SGD's momentum update takes this path)."""
    if alpha == 1 or alpha == -1:
        (np.add if alpha == 1 else np.subtract)(out, other, out=out, casting="unsafe")
        return out
    return fma_(out, other, scal(out.dtype, alpha), out)


def added(x, other, alpha):
    """x + alpha * other as a new array (torch's add(other, alpha=...))."""
    return fma_(np.empty_like(x), other, scal(x.dtype, alpha), x)


def mul_(out, value):
    """out *= value."""
    np.multiply(out, scal(out.dtype, value), out=out, casting="unsafe")
    return out


def lerp_(out, end, weight):
    """out = lerp(out, end, weight), ATen's two-branch form: |w| < 0.5 ? out + w * (end - out)
    : end + (w - 1) * (end - out), each a single FMA."""
    dt = out.dtype
    w = scal(dt, weight)
    coeff, base_is_end = (w, False) if abs(weight) < 0.5 else (w - scal(dt, 1), True)
    flats = _flat(out, end)
    if flats is None:
        diff = np.subtract(end, out).astype(dt, copy=False)
        return fma_(out, diff, coeff, end if base_is_end else out.copy())
    fo, fe = flats
    b64, b32, u64, m8 = _buffers(fo.size)
    tok = _ERRSTATE.set(_IGNORE)    # once for all chunks (see fma_)
    try:
        for i, j in _chunks(fo.size):
            n = j - i
            d = np.subtract(fe[i:j], fo[i:j], out=b32[:n])
            bb = b64[:n]
            np.copyto(bb, d)    # widened first: plain float64 loops below (see fma_)
            np.multiply(bb, coeff, out=bb)
            base = (fe if base_is_end else fo)[i:j]
            np.add(bb, base, out=bb)
            narrow_quiet(fo[i:j], bb, d, coeff, base, u64[:n], m8[:n])
    finally:
        _ERRSTATE.reset(tok)
    return out


def addcmul_(out, t1, t2, value):
    """out += value * t1 * t2, as fma(value * t1, t2, out) (ATen's vectorized addcmul)."""
    dt = out.dtype
    v = scal(dt, value)
    flats = _flat(out, t1, t2)
    if flats is None:
        return fma_(out, (v * t1).astype(dt, copy=False), t2, out)
    fo, f1, f2 = flats
    b64, b32, u64, m8 = _buffers(fo.size)
    tok = _ERRSTATE.set(_IGNORE)    # once for all chunks (see fma_)
    try:
        for i, j in _chunks(fo.size):
            n = j - i
            s = np.multiply(f1[i:j], v, out=b32[:n])
            bb = b64[:n]
            np.copyto(bb, s)    # widened first: plain float64 loops below (see fma_)
            np.multiply(bb, f2[i:j], out=bb)
            np.add(bb, fo[i:j], out=bb)
            narrow_quiet(fo[i:j], bb, s, f2[i:j], fo[i:j], u64[:n], m8[:n])
    finally:
        _ERRSTATE.reset(tok)
    return out


def addcdiv_(out, t1, t2, value):
    """out += value * t1 / t2 (rounded after the multiply, the divide and the add, as ATen does)."""
    dt = out.dtype
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.asarray(np.multiply(t1, scal(dt, value)))     # an array also for 0-dim operands
        np.divide(q, t2, out=q, casting="unsafe")
        np.add(out, q, out=out, casting="unsafe")
    return out


def adam_update_(param, exp_avg, v, bias_correction2_sqrt, eps, step_size):
    """torch's Adam tail: denom = sqrt(v) / bias_correction2_sqrt + eps; param.addcdiv_(exp_avg, denom,
    value=-step_size); each step rounded in the parameter's dtype. None of these is fused in ATen, so plain
    float32 ufuncs round the same way; they run chunk by chunk through the thread's scratch (a 784x256 weight
    is one chunk), not into two fresh parameter-sized temporaries whose page faults cost every step."""
    dt = param.dtype
    c, e, neg = scal(dt, bias_correction2_sqrt), scal(dt, eps), scal(dt, -step_size)
    flats = _flat(param, exp_avg, v)
    if flats is None:
        denom = sqrt(v)
        np.divide(denom, c, out=denom, casting="unsafe")
        np.add(denom, e, out=denom, casting="unsafe")
        return addcdiv_(param, exp_avg, denom, -step_size)
    fp, fm, fv = flats
    b64, b32, _, _ = _buffers(fp.size)
    q32 = b64.view(np.float32)
    divide, add = np.divide, np.add
    tok = _ERRSTATE.set(_IGNORE)    # 0 / 0 and x / 0 are silent, as torch's step
    try:
        for i in range(0, fp.size, CHUNK):
            j = min(i + CHUNK, fp.size)
            n = j - i
            d = sqrt(fv[i:j], out=b32[:n])
            divide(d, c, out=d)
            add(d, e, out=d)
            q = np.multiply(fm[i:j], neg, out=q32[:n])
            divide(q, d, out=q)
            add(fp[i:j], q, out=fp[i:j])
    finally:
        _ERRSTATE.reset(tok)
    return param


def adam_step32_(p, g, m, v, weight1, beta2, value2, bias_correction2_sqrt, eps, step_size):
    """Adam's arithmetic on one parameter as adam() runs it (m.lerp_(g, weight1); v.mul_(beta2).addcmul_(g, g,
    value2); adam_update_), for C-ordered float32 arrays of the same shape and at most CHUNK elements: the same
    NumPy operations in the same order as those kernels' one-chunk loops, without their per-call layers (a
    small parameter's step was mostly those)."""
    n = p.size
    b64, b32, u64, m8 = _buffers(n)
    fp, fg, fm, fv = p.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1)
    bb, d, u, mk = b64[:n], b32[:n], u64[:n], m8[:n]
    w = np.float32(weight1)
    coeff, base = (w, fm) if abs(weight1) < 0.5 else (w - np.float32(1), fg)
    copyto, multiply, add, divide = np.copyto, np.multiply, np.add, np.divide
    tok = _ERRSTATE.set(_IGNORE)    # overflow, 0 / 0 and x / 0 are silent, as torch's step
    try:
        np.subtract(fg, fm, out=d)                      # m.lerp_(g, weight1): one FMA from d = g - m
        copyto(bb, d)
        multiply(bb, coeff, out=bb)
        add(bb, base, out=bb)
        narrow_quiet(fm, bb, d, coeff, base, u, mk)
        multiply(fv, np.float32(beta2), out=fv)         # v.mul_(beta2)
        multiply(fg, np.float32(value2), out=d)         # .addcmul_(g, g, value2): fma(value2 * g, g, v)
        copyto(bb, d)
        multiply(bb, fg, out=bb)
        add(bb, fv, out=bb)
        narrow_quiet(fv, bb, d, fg, fv, u, mk)
        den = sqrt(fv, out=d)                           # adam_update_
        divide(den, np.float32(bias_correction2_sqrt), out=den)
        add(den, np.float32(eps), out=den)
        q = multiply(fm, np.float32(-step_size), out=b64.view(np.float32)[:n])
        divide(q, den, out=q)
        add(fp, q, out=fp)
    finally:
        _ERRSTATE.reset(tok)
    return p


def sqrt(x, out=None):
    """Elementwise square root. NumPy's is correctly rounded; torch 2.13's CPU sqrt (this MKL build's
    vectorised kernel) is not: measured, about 1 float32 element in 6 is one ulp off (error up to 0.75 ulp),
    so every optimizer that takes a square root can differ from torch by that much per step."""
    return np.sqrt(x, out=np.empty_like(x) if out is None else out)   # an array also for 0-dim x


def grad_array(grad, param, maximize=False):
    """grad's array (negated when maximize) laid out like param's, as torch's AccumulateGrad lays out .grad;
    copied only when the layouts differ (e.g. a transposed Linear weight gradient) or to negate."""
    g = grad._data
    order = "C" if param.flags.c_contiguous else "F" if param.flags.f_contiguous else "K"
    same = order == "K" or g.flags[order + "_CONTIGUOUS"]
    if maximize:            # into an array: NumPy's ufuncs return a scalar for 0-dim inputs
        return np.negative(g, out=np.empty_like(g, order=order))
    return g if same else np.array(g, order=order)


def bump(*tensors):
    """Record an in-place modification, as every torch in-place op does."""
    for t in tensors:
        t._vc[0] += 1
