"""pdist: the p-norm distance between every pair of rows (i < j) of a 2-D input (PdistBackward0),
with ATen's special cases p = 0, 1, 2, inf and its subgradients."""
from __future__ import annotations

import math

import numpy as np

from ... import _sum_order, _vec_math
from ...autograd.function import Op
from ..registry import register


def _pairs(n):
    return np.triu_indices(n, 1)


def _pdist_np(x, p):
    i, j = _pairs(x.shape[0])
    if (p == 1 or p == 2) and x.dtype in _VEC_DTYPES and len(i):
        r = _map2_reduce_all(x, i, j, p)
        return np.sqrt(r) if p == 2 else r
    d = np.abs(x[i] - x[j])
    if d.shape[0] == 0:
        return np.zeros(0, x.dtype)
    if p == 0:
        r = (d != 0).sum(1).astype(x.dtype)
    elif p == 1:
        r = d.sum(1)
    elif p == 2:
        r = np.sqrt((d * d).sum(1))
    elif math.isinf(p):
        r = d.max(1) if d.shape[1] else np.zeros(d.shape[0], x.dtype)
    else:
        t = x.dtype.type
        r = ((d ** t(p)).sum(1)) ** t(1 / p)
    return r.astype(x.dtype, copy=False)


_VEC_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _map2_reduce_all(x, i, j, p):
    """vec::map2_reduce_all over the pairs (i, j) of rows of x, map |x_i - x_j| (p = 1) or its square (p = 2),
    reduce +: the first vector, then one vector at a time (not fused), the partial last vector added into its
    first lanes (Vec::set), then vec_reduce_all's lane order; rows shorter than a vector: their lanes in order.
    Blocks of pairs (about 1 MiB of differences, in cache), each laid out (vectors, pairs, lanes) so that the
    fold runs down NumPy's outer axis."""
    w = _vec_math.lanes(x.dtype, avx512_kernel=False)
    m = x.shape[1]
    out = np.empty(len(i), x.dtype)
    step = max(1, (1 << 20) // max(1, m * x.itemsize))
    full = m - m % w
    nv = full // w
    buf = np.empty((nv, min(step, len(i)), w), x.dtype) if nv > 1 else None
    for s in range(0, len(i), step):
        d = x[i[s:s + step]]
        d -= x[j[s:s + step]]
        np.abs(d, out=d)
        if p == 2:
            np.square(d, out=d)
        if m < w:
            out[s:s + len(d)] = _vec_math.hseq(d, m)
            continue
        if nv > 1:
            b = buf[:, :len(d)]
            np.copyto(b, d[:, :full].reshape(len(d), nv, w).transpose(1, 0, 2))
            acc = np.add.reduce(b, 0)
        else:
            acc = d[:, :w].copy()
        if m > full:
            acc[:, :m - full] += d[:, full:]
        out[s:s + len(d)] = _vec_math.hsum(acc)
    return out


def _pdist_grad_ordered(x, p, dist, g):
    """_pdist_backward as run_backward_parallel_pdist computes it (one thread): the result starts at 0; for each
    row i in turn and each j > i in turn, c = F::backward(x_i - x_j) (p = 2: `(grad * diff) / dist`, 0 where
    dist is 0; p = 1: `grad * sign(diff)`; inf: `(grad * sign(diff)) * (1 - min(1, ceil(||diff| - dist|)))`,
    sign(0) = +0) is added to row i's running vector and subtracted from row j's stored one. So row r is
    0 - c(0, r) - c(1, r) - ... then + c(r, r + 1) + c(r, r + 2) + ..., in that order."""
    n = x.shape[0]
    res = np.zeros_like(x)
    k = 0
    for i in range(n - 1):
        diff = x[i] - x[i + 1:]
        gg = g[k:k + n - 1 - i, None]
        dd = dist[k:k + n - 1 - i, None]
        k += n - 1 - i
        if p == 2:
            c = np.where(dd == 0, x.dtype.type(0), (gg * diff) / dd)
        else:
            sign = np.sign(diff)
            sign[sign == 0] = 0                 # +0, as the ceil / floor formula gives
            c = gg * sign
            if p != 1:
                one = x.dtype.type(1)
                c *= one - np.minimum(one, np.ceil(np.abs(np.abs(diff) - dd)))
        res[i] = _sum_order._fold(np.concatenate((res[i][None], c)), 0)
        res[i + 1:] -= c
    return res


def _pdist_grad_np(x, p, dist, g):
    if (p == 1 or p == 2 or math.isinf(p)) and x.dtype in _VEC_DTYPES and x.shape[0] > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _pdist_grad_ordered(x, p, dist, g)
    n = x.shape[0]
    i, j = _pairs(n)
    diff = x[i] - x[j]
    dd, gg = dist[:, None], g[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            c = np.zeros_like(diff)
        elif p == 1:
            c = np.sign(diff) * gg
        elif p < 2:
            c = np.where((dd == 0) | ((diff == 0) & (p < 1)), 0,
                         np.sign(diff) * np.abs(diff) ** (p - 1) * gg / dd ** (p - 1))
        elif p == 2:
            c = np.where(dd == 0, 0, gg * diff / dd)
        elif math.isinf(p):
            c = np.sign(diff) * (np.abs(diff) == dd) * gg
        else:
            c = np.where(dd == 0, 0, diff * np.abs(diff) ** (p - 2) * gg / dd ** (p - 1))
    out = np.zeros_like(x)
    np.add.at(out, i, c)
    np.add.at(out, j, -c)
    return out.astype(x.dtype, copy=False)


class PdistBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, p):
        ctx.save_for_backward(input)
        ctx.p = p
        return _pdist_np(input._data, p)

    @staticmethod
    def backward(ctx, g):
        x, dist = ctx.saved_tensors
        return PdistBackwardBackward0.apply(g, x, ctx.p, dist)


class PdistBackwardBackward0(Op):
    """_pdist_backward(grad, self, p, result): its own derivative is not implemented in torch (backward raises)."""

    @staticmethod
    def forward(ctx, g, x, p, dist):
        return _pdist_grad_np(x._data, p, dist._data, g._data)

    @staticmethod
    def backward(ctx, gg):
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


@register(category="nn")
def pdist(input, p=2):
    """||x[i] - x[j]||_p for every pair of rows i < j, as a 1-D tensor of n (n - 1) / 2 (PdistBackward0)."""
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return PdistBackward0.apply(input.contiguous(), float(p))
