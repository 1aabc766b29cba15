"""torch's CPU vector norm (linalg.vector_norm, norm), bit for bit: its kernels and their order, one thread.

`linalg_vector_norm_out` (ATen/native/LinearAlgebra.cpp) and `norm_kernel_tensor_iterator_impl`
(ATen/native/cpu/ReduceOpsKernel.cpp), for float32 / float64 (the accumulator is the input's type):
- every reduced dim of size 1: `abs(x)` (ord 0: `x != 0`), no reduction;
- ord 2 with one reduced dim after TensorIterator's coalescing, innermost and contiguous (`is_reduce_lastdim`:
  a full reduction of a contiguous or transposed tensor, or a dim whose elements are adjacent in memory): per
  row, one accumulator vector (8 floats / 4 doubles on AVX2) `acc += v * v` (not fused), its lanes added in
  order `((b0 + b1) + b2) + ...`, then the tail `b += x * x`, which GCC contracts to an FMA, except that for
  float a tail of 4 or more elements has its first 4 squares computed as one SSE product (rounded) before
  the adds (measured on torch 2.13's AVX2 build); then `sqrt`;
- otherwise `binary_kernel_reduce` with `NormTwoOps` / `NormOneOps` / `NormOps` / `AbsMaxOps` / `AbsMinOps`:
  one sequential accumulator per output, `acc + x * x`, `acc + |x|`, `acc + pow(|x|, p)` (not fused; `pow` is
  the C library's `powf` / `pow`, as NumPy's power with an array exponent), in TensorIterator's order (the
  reduced dims innermost, by input stride, coalesced: `_sum_order._layout`), then `sqrt(acc)` / `acc` /
  `pow(acc, 1 / p)` with `1 / p` computed in the accumulator's type; max / min propagate NaN.
Returns None where this module does not model torch (other dtypes or CPUs, empty inputs): callers keep their
own path there.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from ... import _sum_order
from ..._rng_math import fma32, fma64
from ..._warn import _ERRSTATE, _IGNORE


# exponents for which NumPy's power with a scalar exponent takes a shortcut (sqrt, square, reciprocal, ...)
# instead of the C library's pow: given as an array there
_SHORTCUT = {0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0}


def _pow(x, p, out=None):
    """The C library's pow(x, p) (powf for float32) for every lane."""
    return np.power(x, np.full(x.shape, p, x.dtype) if float(p) in _SHORTCUT else x.dtype.type(p), out=out)


_WIDE = 8      # outputs from which a fold runs row-wise (np.add.reduce over axis 0) rather than per output


def _seq_fold(v, nred, fn):
    """Left folds 0 + t0 + t1 + ... of the terms t = fn(v[..., r], out=...) over v's last nred axes (flattened in
    C order) for every position of its leading axes: returns the leading shape. The terms go once into a
    buffer laid out for NumPy: (R, K) folded by np.add.reduce over axis 0 (one sequential fold per column), or,
    for few outputs, (K, R) folded by np.add.accumulate along each row (never NumPy's pairwise summation)."""
    nl = v.ndim - nred
    lead = v.shape[:nl]
    red = v.shape[nl:]
    k = math.prod(lead)
    r = math.prod(red)
    if k >= _WIDE:
        buf = np.empty(red + lead, v.dtype)
        fn(v.transpose(tuple(range(nl, v.ndim)) + tuple(range(nl))), out=buf)
        b = buf.reshape(r, k)
        return (np.add.reduce(b, 0) if r > 1 else b[0]).reshape(lead)
    buf = np.empty(v.shape, v.dtype)
    fn(v, out=buf)
    b = buf.reshape(k, r)
    if r > 1:
        np.add.accumulate(b, 1, out=b)
    return b[:, -1].reshape(lead)


def _lanes(acc):
    """((b0 + b1) + b2) + ... over the lanes (last axis) of acc (rows, lanes): the stored vector's scalar loop."""
    if len(acc) == 1:
        return np.add.accumulate(acc[0])[-1:]
    return np.add.reduce(np.ascontiguousarray(acc.T), 0)


_MID_MASK = (1 << 29) - 1
_MID = 1 << 28


def _fma_sq_row(vals, b, dt):
    """The contracted tail b = fma(v, v, b) of one row, in Python floats (a NumPy call per step costs more).
    float32: v * v is exact in double, so the double sum rounds to float32 as one FMA unless it lies on a float32
    midpoint (then fma32); float64: fma64's error-free transformations, written out."""
    for v in vals:
        if dt == np.float32:
            s = b + v * v
            if math.isfinite(s) and struct.unpack("<Q", struct.pack("<d", s))[0] & _MID_MASK == _MID:
                b = float(fma32(np.float32([v]), np.float32([v]), np.float32([b]))[0])
            else:
                b = float(np.float32(s))
            continue
        p = v * v
        if not (math.isfinite(p) and math.isfinite(b)) or abs(v) > 1e150:
            b = float(fma64(np.float64([v]), np.float64([v]), np.float64([b]))[0])
            continue
        c = v * 134217729.0
        hi = c - (c - v)
        lo = v - hi
        ep = ((hi * hi - p) + hi * lo + lo * hi) + lo * lo
        s = p + b
        bb = s - p
        es = (p - (s - bb)) + (b - bb)
        b = s + (es + ep)
    return b


def _lastdim_two(rows):
    """The vectorised ord-2 kernel over the last axis of rows (..., n), contiguous along it: returns (...)."""
    dt = rows.dtype
    lanes = 8 if dt == np.float32 else 4
    shape = rows.shape[:-1]
    n = rows.shape[-1]
    full = n - n % lanes
    if not shape or math.prod(shape) == 1:                  # one row (a full reduction): the fewest NumPy calls
        row = rows.reshape(n)
        sq = np.square(row)
        if full:
            if full == lanes:
                acc = sq[:lanes]
            elif dt == np.float32:    # 8 lanes: NumPy's fold down the rows beats its per-row accumulate
                acc = np.add.reduce(sq[:full].reshape(-1, lanes), 0)
            else:                     # 4 lanes: the other way round
                acc = np.add.accumulate(np.ascontiguousarray(sq[:full].reshape(-1, lanes).T), 1)[:, -1]
            b = float(np.add.accumulate(acc)[-1])
        else:
            b = 0.0
        start = full
        if dt == np.float32 and n - full >= 4:      # GCC's SSE product of the tail's first four elements
            b = float(np.add.accumulate(np.concatenate(([np.float32(b)], sq[full:full + 4])))[-1])
            start = full + 4
        if start < n:
            b = _fma_sq_row(row[start:].tolist(), b, dt)
        return np.sqrt(np.full(shape, b, dt))
    rows = rows.reshape(-1, n)
    m = len(rows)
    if full:
        acc = _seq_fold(rows[:, :full].reshape(m, full // lanes, lanes).transpose(0, 2, 1), 1, np.square)
        b = _lanes(acc)
    else:
        b = np.zeros(m, dt)
    tail = rows[:, full:]
    start = 0
    if dt == np.float32 and n - full >= 4:     # GCC's SSE product of the tail's first four elements
        sq4 = np.square(tail[:, :4])
        for j in range(4):
            b += sq4[:, j]
        start = 4
    fma = fma32 if dt == np.float32 else fma64
    for j in range(start, n - full):
        v = tail[:, j]
        b = fma(v, v, b)
    return np.sqrt(b).reshape(shape)


def _terms(ord):
    """What NormOps adds per element (a ufunc-like fn(x, out=...)), in the accumulator's type."""
    if ord == 2:
        return np.square
    if ord == 1:
        return np.abs

    def powabs(x, out):
        np.abs(x, out=out)
        return _pow(out, ord, out=out)
    return powabs


def _iterator_order(shape, st, red):
    """TensorIterator::reorder_dimensions on the reduced dims (innermost first): an insertion sort of the dims
    from the last one, by input stride (a zero stride is ambiguous: no swap; equal strides: the larger size
    goes outer)."""
    order = sorted(red, reverse=True)
    for i in range(1, len(order)):
        k = i
        for j in range(i - 1, -1, -1):
            a, b = order[j], order[k]
            sa, sb = st[a], st[b]
            if sa == 0 or sb == 0:
                continue
            if sa > sb or (sa == sb and shape[a] > shape[b]):
                order[j], order[k] = b, a
                k = j
            elif sa < sb:
                break
    return order


def torch_vector_norm(d, ord, reduced):
    """The ord-norm of ndarray d (float32 / float64) over the dims in `reduced` (a tuple), computed as torch's
    CPU kernel does; returns the kept dims' values as a C-ordered array of the kept sizes (the caller
    reshapes), or None where torch is not modelled (module docstring)."""
    dt = d.dtype
    if not _sum_order.MODELLED or (dt != np.float32 and dt != np.float64) or not d.size:
        return None
    shape = d.shape
    kept = tuple(m for i, m in enumerate(shape) if i not in reduced)
    red = [i for i in reduced if shape[i] != 1]
    tok = _ERRSTATE.set(_IGNORE)
    try:
        if not red:                                                  # is_reduce_over_1D_vector
            r = (d != 0).astype(dt) if ord == 0 else np.abs(d)
            return r.reshape(kept)
        if ord == 0:
            return np.count_nonzero(d, axis=reduced).astype(dt).reshape(kept)
        if math.isinf(ord):
            return (np.max if ord > 0 else np.min)(np.abs(d), axis=reduced).reshape(kept)
        if any(d.strides[i] < 0 for i in range(d.ndim) if shape[i] != 1):
            d = np.ascontiguousarray(d)      # negative strides (a NumPy flip): the contiguous copy torch's flip makes
        st = d.strides
        red = _iterator_order(shape, st, red)
        v = d.transpose(tuple(i for i in range(d.ndim) if i not in red) + tuple(reversed(red)))
        if ord == 2 and st[red[0]] == d.itemsize and all(
                st[j] == st[i] * shape[i] for i, j in zip(red, red[1:])):   # is_reduce_lastdim
            return _lastdim_two(v.reshape(kept + (-1,))).reshape(kept)
        acc = _seq_fold(v, len(red), _terms(ord))
        if ord == 2:
            acc = np.sqrt(acc)
        elif ord != 1:
            acc = _pow(np.asarray(acc), dt.type(1) / dt.type(ord))
        return np.asarray(acc, dt).reshape(kept)
    finally:
        _ERRSTATE.reset(tok)
