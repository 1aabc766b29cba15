"""ATen's CPU softmax / log_softmax kernels and their backward (aten/src/ATen/native/cpu/SoftMaxKernel.cpp and
LogSoftmaxKernelImpl.h, one thread), step by step in NumPy so float32 / float64 results are torch's bits.

The input is taken as (outer, dim, inner) C-contiguous (torch calls .contiguous() first).
- Last dim (inner == 1): per row, max by vec::reduce_all; softmax: out = exp(x - max) by vec::map (every lane
  through Vectorized::exp, the padded last vector too), sum by vec::reduce_all (one accumulator vector, the last
  partial vector added into its first lanes, then vec_reduce_all's lane order), out *= 1 / sum; log_softmax: the
  same sum by map_reduce_all, log by vec::map, out = x - max - log(sum).
- Other dims: lanes of the inner dim run as vectors (Vectorized exp), the inner positions past the last full vector
  run scalar (std::exp: the C library); sums run along dim sequentially; softmax divides by the sum, log_softmax
  subtracts the vectorised log of it. log_softmax blocks the inner dim in chunks (128 KiB / dim), so its scalar
  positions are those past the last full vector of the last chunk.
- Backward: softmax last dim: sum(g * o) by map2_reduce_all (products added into the accumulator, the tail's
  multiply-add fused for float32), gi = (g - sum) * o; other dims: sum += g * o fused along dim, gi = o * (g - sum).
  log_softmax: sum(g) (reduce_all along the last dim, sequential along others), gi = fma(-exp(o), sum, g).
GCC contracts ATen's `a + b * c` into one FMA where both sit in one expression (in the AVX2 / AVX512 builds; the
DEFAULT build has no FMA); the places above where it does were found against torch 2.13 on AVX2 and with
ATEN_CPU_CAPABILITY=default (tests/core/ops/nn/test_softmax_bitwise.py checks both)."""
from __future__ import annotations

import math

import numpy as np

from ... import _cpu, _vec_math as vm
from ..._rng_math import fma32, fma64

_F = np.dtype(np.float32)


def _fma(a, b, c):
    """ATen's `c + a * b` as GCC compiles it: one FMA in the AVX2 / AVX512 builds (-mfma), two roundings in the
    DEFAULT build (no FMA instruction to contract into)."""
    if _cpu.capability() == "default":
        return a * b + c
    return fma32(a, b, c) if a.dtype == _F else fma64(a, b, c)


def _split(x, dim):
    """x as a C-contiguous (outer, n, inner) array."""
    shape = x.shape
    outer, inner = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    return (x if x.flags.c_contiguous else np.ascontiguousarray(x)).reshape(outer, shape[dim], inner)


def _vector_end(inner, n, dtype, chunked):
    """Inner positions [0, end) run as vectors; the rest through the scalar tail."""
    w = vm.lanes(dtype)
    if not chunked:
        return inner - inner % w
    mx = max(128 * 1024 // n // dtype.itemsize, w) // w * w
    chunk = min(mx, inner)
    last = inner - (-(-inner // chunk) - 1) * chunk
    return inner - last % w


def _exp_split(d, end):
    """exp over (outer, n, inner): Vectorized::exp on inner positions < end, std::exp after."""
    if end == d.shape[2]:
        return vm.vexp(d)
    e = np.empty_like(d)
    e[..., :end] = vm.vexp(d[..., :end])
    e[..., end:] = vm.cexp(d[..., end:])
    return e


def _seq_sum(a):
    """Sum over axis 1 of (outer, n, inner), first to last (NumPy reduces a non-contiguous axis in order)."""
    return np.add.reduce(a, 1) if a.shape[2] > 1 else a.sum(1)


def softmax(x, dim):
    """torch.softmax(x, dim) for float32 / float64 x with at least one element."""
    shape = x.shape
    x3 = _split(x, dim)
    outer, n, inner = x3.shape
    if inner == 1:
        x2 = x3.reshape(outer, n)
        e = vm.vexp(x2 - np.maximum.reduce(x2, 1, keepdims=True))
        s = vm.reduce_sum_rows(e, vm.lanes(x.dtype))
        e *= (np.ones_like(s) / s)[:, None]
        return e.reshape(shape)
    e = _exp_split(x3 - np.maximum.reduce(x3, 1, keepdims=True), _vector_end(inner, n, x.dtype, False))
    e /= _seq_sum(e)[:, None]
    return e.reshape(shape)


def log_softmax(x, dim):
    """torch.log_softmax(x, dim) for float32 / float64 x with at least one element."""
    shape = x.shape
    x3 = _split(x, dim)
    outer, n, inner = x3.shape
    if inner == 1:
        x2 = x3.reshape(outer, n)
        d = x2 - np.maximum.reduce(x2, 1, keepdims=True)
        s = vm.reduce_sum_rows(vm.vexp(d), vm.lanes(x.dtype))
        d -= vm.vlog(s)[:, None]
        return d.reshape(shape)
    d = x3 - np.maximum.reduce(x3, 1, keepdims=True)
    s = _seq_sum(_exp_split(d, _vector_end(inner, n, x.dtype, True)))
    d -= vm.vlog(s)[:, None]
    return d.reshape(shape)


def _map2_reduce_rows(g, o, w):
    """vec::map2_reduce_all(x * y, x + y) per row: products added into one accumulator vector, the last partial
    vector's multiply-add fused for float (not for double: measured), then vec_reduce_all's lane order; rows shorter than a vector: the lanes in
    order."""
    n = g.shape[1]
    if n < w:
        return vm.hseq(g * o, n)
    full = n - n % w
    acc = vm.vectors_sum(g[:, :full] * o[:, :full], full, w)
    if n > full:
        k = n - full
        tail = g[:, full:] * o[:, full:] if g.dtype != _F else None
        acc[:, :k] = _fma(g[:, full:], o[:, full:], acc[:, :k]) if tail is None else acc[:, :k] + tail
    return vm.hsum(acc)


def softmax_backward(g, o, dim):
    """_softmax_backward_data(g, o, dim) on float32 / float64 arrays of one shape."""
    shape = o.shape
    g3, o3 = _split(g, dim), _split(o, dim)
    outer, n, inner = o3.shape
    if inner == 1:
        g2, o2 = g3.reshape(outer, n), o3.reshape(outer, n)
        s = _map2_reduce_rows(g2, o2, vm.lanes(o.dtype))
        return ((g2 - s[:, None]) * o2).reshape(shape)
    s = g3[:, 0] * o3[:, 0]
    for i in range(1, n):
        s = _fma(g3[:, i], o3[:, i], s)
    return (o3 * (g3 - s[:, None])).reshape(shape)


def log_softmax_backward(g, o, dim):
    """_log_softmax_backward_data(g, o, dim) on float32 / float64 arrays of one shape."""
    shape = o.shape
    g3, o3 = _split(g, dim), _split(o, dim)
    outer, n, inner = o3.shape
    if inner == 1:
        g2, o2 = g3.reshape(outer, n), o3.reshape(outer, n)
        s = vm.reduce_sum_rows(g2, vm.lanes(o.dtype))
        e = vm.vexp(o2)
        np.negative(e, e)
        return _fma(e, np.broadcast_to(s[:, None], e.shape), g2).reshape(shape)
    s = _seq_sum(g3)
    e = _exp_split(o3, _vector_end(inner, n, o.dtype, True))
    np.negative(e, e)
    return _fma(e, np.broadcast_to(s[:, None], e.shape), g3).reshape(shape)
