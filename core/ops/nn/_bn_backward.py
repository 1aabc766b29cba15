"""batch_norm's input, weight and bias gradients as ATen's CPU backward computes them (batch_norm_backward_cpu_template
and batch_norm_kernel.cpp, one thread, the AVX2 build: 8 floats / 4 doubles a vector), float32 / float64:

- input and grad_output both C-contiguous, image size > 1 (batch_norm_cpu_backward_contiguous_impl): per (n, c)
  row of the image, sum = vec::reduce_all(dy) and dotp = vec::map2_reduce_all((x - mean) * dy) (the full vectors
  added as acc + p * q, the partial last one contracted, then the lanes), each added into a double per channel in
  n order; k = (T)dotp * invstd * invstd / N in T, grad_mean = (T)(sum / N) in double, dx = fma(-(x - mean), k,
  dy - grad_mean) * invstd * w;
- both C-contiguous with image size 1, or both channels last (batch_norm_cpu_backward_channels_last_impl on the
  (N * H * W, C) rows): sum and dotp are per-channel T buffers, sum += dy and dotp = fma(x - mean, dy, dotp) row
  by row; k as above, grad_mean = sum / N in T, dx contracted as above on the full vectors of channels,
  (dy - grad_mean - (x - mean) * k) each step rounded on the last C % V channels;
- otherwise (the template's generic path, compiled without FMA): sum = at::sum(dy), dotp the double sum of the T
  products (x - mean) * dy in the iterator's order (largest input stride outermost), dx = ((dy - sum / N) -
  (x - mean) * k) * invstd * w, every step rounded.
grad_weight = (T)(dotp * invstd) (dotp in double, except the channels-last buffer), grad_bias = (T)sum. In
evaluation mode dx = dy * invstd * w with invstd from the running variance. Other dtypes return None (the
caller's formula).
"""
from __future__ import annotations

import numpy as np

from ... import _sum_order, _vec_math
from ..pointwise import _fma
from ._bn_stats import _fma_rows, _rows_fold, channels_last_only, like_input

_F64 = np.float64


_BLOCK = 4096


def _fused(a, b, c, dt):
    """_fma.fma(a, b, c) for b, c broadcasting against a's shape, float64 in pieces of about _BLOCK elements along a's
    leading axes: its error-free transformations make a dozen temporaries, which cost less when cache-sized."""
    if dt != np.float64 or a.size <= 2 * _BLOCK or a.ndim < 2 or np.broadcast_shapes(a.shape, np.shape(b),
                                                                                     np.shape(c)) != a.shape:
        return _fma.fma(a, b, c, dt)
    m = a.shape[0]
    out = np.empty(a.shape, dt)
    if a[0].size > _BLOCK:
        for i in range(m):
            sub = [v[i] if np.ndim(v) == a.ndim and v.shape[0] == m else v[0] if np.ndim(v) == a.ndim else v
                   for v in (b, c)]
            out[i] = _fused(a[i], sub[0], sub[1], dt)
        return out
    step = _BLOCK // a[0].size
    for i in range(0, m, step):
        sub = [v[i:i + step] if np.ndim(v) == a.ndim and v.shape[0] == m else v for v in (b, c)]
        out[i:i + step] = _fma.fma(a[i:i + step], sub[0], sub[1], dt)
    return out


def _row_sums(p, q, V):
    """vec::reduce_all(x + y) over each row of p (q None), or vec::map2_reduce_all(p * q, x + y): one accumulator
    vector over the full vectors (acc + p * q, each product rounded: not contracted in torch's build), the partial
    last vector added into its first lanes (contracted: fma(p, q, acc)), then vec_reduce_all's lane order; rows
    shorter than a vector add their elements in order."""
    dt = p.dtype
    vals = p if q is None else p * q
    n = p.shape[1]
    if n < V:
        return _vec_math.hseq(vals, n)
    full = n - n % V
    if full == V:
        acc = vals[:, :V].copy()
    else:       # the vectors of every row as rows of one array: NumPy adds rows of a 2-D array in order
        rows = p.shape[0]
        acc = np.add.reduce(np.ascontiguousarray(vals[:, :full].reshape(rows, full // V, V).transpose(1, 0, 2))
                            .reshape(full // V, rows * V), 0).reshape(rows, V)
    if n > full:
        k = n - full
        acc[:, :k] = acc[:, :k] + p[:, full:] if q is None else _fused(p[:, full:], q[:, full:], acc[:, :k], dt)
    return _vec_math.hsum(acc)


def _contiguous_impl(g, x, mean, invstd, w, train, need):
    dt = x.dtype
    n, c = x.shape[:2]
    size = x.size // (n * c)
    cnt = n * size
    V = 32 // dt.itemsize
    xr, gr = x.reshape(n, c, size), g.reshape(n, c, size)
    xm = xr - mean[:, None]
    rows = n * c
    s = _rows_fold(_row_sums(gr.reshape(rows, size), None, V).astype(_F64).reshape(n, c))
    dotp = _rows_fold(_row_sums(xm.reshape(rows, size), gr.reshape(rows, size), V).astype(_F64).reshape(n, c))
    gi = None
    if need[0]:
        if train:
            k = ((dotp.astype(dt) * invstd) * invstd) / dt.type(cnt)
            gm = (s / cnt).astype(dt)
            t = _fused(-xm, k[:, None], gr - gm[:, None], dt)
            t *= invstd[:, None]
        else:
            t = gr * invstd[:, None]
        if w is not None:
            t *= w[:, None]
        gi = t.reshape(x.shape)
    return gi, (dotp * invstd).astype(dt), s.astype(dt)


def _channels_last_impl(g, x, mean, invstd, w, train, need):
    dt = x.dtype
    c = x.shape[1]
    moved = np.moveaxis(x, 1, -1).shape
    xr, gr = np.moveaxis(x, 1, -1).reshape(-1, c), np.moveaxis(g, 1, -1).reshape(-1, c)   # views: (N * H * W, C)
    cnt = xr.shape[0]
    xm = xr - mean
    s = _rows_fold(gr)
    dotp = _fma_rows(xm, gr, dt)
    gi = None
    if need[0]:
        if train:
            nt = dt.type(cnt)
            k = ((dotp * invstd) * invstd) / nt
            d = gr - s / nt
            full = c - c % (32 // dt.itemsize)
            t = np.empty_like(xm)
            if full:
                t[:, :full] = _fused(-xm[:, :full], k[:full], d[:, :full], dt)
            t[:, full:] = d[:, full:] - xm[:, full:] * k[full:]
            t *= invstd
        else:
            t = gr * invstd
        if w is not None:
            t *= w
        gi = np.moveaxis(t.reshape(moved), -1, 1) if channels_last_only(x) else t.reshape(x.shape)
    return gi, dotp * invstd, s


def _order_free_sum(g, dims):
    """g's sum over dims when every partial sum in any order is exact in g's dtype (all values multiples of one power
    of two 2**q, the sum of their magnitudes below 2**(mantissa bits + q): the ones y.sum() sends back, expanded
    with zero strides, which at::sum reads in an order not modelled here), else None."""
    v = np.abs(g[tuple(slice(0, 1) if st == 0 else slice(None) for st in g.strides)]).astype(_F64).ravel()
    v = v[v != 0]
    if not v.size:
        return np.sum(g, dims)
    if not np.isfinite(v).all():
        return None
    m, e = np.frexp(v)
    mi = (m * 2.0 ** 53).astype(np.int64)
    q = int((e - 53 + np.frexp((mi & -mi).astype(_F64))[1] - 1).min())
    bits = np.finfo(g.dtype).nmant + 1
    if np.sum(np.abs(g), dtype=_F64) * 2.0 ** -q >= 2.0 ** (bits - 1):
        return None
    return np.sum(g, dims, dtype=_F64).astype(g.dtype)


def _generic(g, x, mean, invstd, w, train, need):
    dt = x.dtype
    c = x.shape[1]
    cnt = x.size // c
    dims = {0} | set(range(2, x.ndim))
    s = _sum_order.torch_sum(g, dims)
    if s is None and (s := _order_free_sum(g, tuple(dims))) is None:
        return None
    s = np.asarray(s, dt).reshape(c)
    shape = (1, c) + (1,) * (x.ndim - 2)
    order = sorted((d for d in range(x.ndim) if d != 1), key=lambda d: -x.strides[d]) + [1]
    xm = x - mean.reshape(shape)
    prods = (xm * g).transpose(order).reshape(cnt, c)
    dotp = _rows_fold(prods.astype(_F64))
    gi = None
    if need[0]:
        if train:
            nt = dt.type(cnt)
            k = ((dotp.astype(dt) * invstd) * invstd) / nt
            t = (g - (s / nt).reshape(shape)) - xm * k.reshape(shape)
            t *= invstd.reshape(shape)
        else:
            t = g * invstd.reshape(shape)
        if w is not None:
            t *= w.reshape(shape)
        gi = t
    return gi, (dotp * invstd).astype(dt), s


def backward(g, x, w, mean, invstd, train, need):
    """(grad_input, grad_weight, grad_bias) as ATen (None for an input not needed), or None when not modelled.
    mean / invstd: the saved batch statistics in training, the running mean and 1 / sqrt(running_var + eps)
    (in double, rounded to x's dtype) in evaluation mode."""
    dt = x.dtype
    if dt not in (np.float32, np.float64) or g.dtype != dt or x.ndim < 2 or not x.size or g.shape != x.shape:
        return None
    mean = np.asarray(mean, dt).reshape(-1)
    invstd = np.asarray(invstd, dt).reshape(-1)
    w = None if w is None else np.asarray(w).astype(dt, copy=False).reshape(-1)
    need = tuple(need[:3]) + (False,) * (3 - len(need))
    with np.errstate(all="ignore"):
        if x.flags.c_contiguous and g.flags.c_contiguous:
            impl = _channels_last_impl if x.size == x.shape[0] * x.shape[1] else _contiguous_impl
            out = impl(g, x, mean, invstd, w, train, need)
        elif channels_last_only(x) and channels_last_only(g):
            out = _channels_last_impl(g, x, mean, invstd, w, train, need)
        else:
            out = _generic(g, x, mean, invstd, w, train, need)
    if out is None:
        return None
    gi, gw, gb = out
    return like_input(gi, x) if need[0] else None, gw if need[1] else None, gb if need[2] else None
