"""ATen's group_norm kernels for channels-last input (GroupNormKernelImplChannelsLastInternal and
GroupNormBackwardKernelImplChannelsLastInternal in aten/src/ATen/native/cpu/group_norm_kernel.cpp, one thread),
float32 / float64 bit for bit with torch's AVX2 build. torch runs them when input.suggest_memory_format() is
channels_last(_3d) (a 4-D / 5-D input whose strides are ordered like NHWC / NDHWC), on input.contiguous(that
format); the output and the input gradient keep that format.

Forward, planes of HxW < 1024 (impl-1): per (sample, group), ColumnwiseMoments: one vector accumulator per sum
over the group's D channels in vectors of V lanes (the partial last vector zero-filled), position after
position: acc0 + x and acc1 + x * x (not contracted), then the lanes (vec_reduce_all). Planes of 1024 or more
(impl-2): per channel the sums over the positions in order, x + acc and fma(x, x, acc), then per group the
channels' sums added in order from zero. Both: mean = sum * s (s = 1 / (D * HxW) in T), var = max(fma(sumsq, s,
-(mean * mean)), 0), rstd = 1 / sqrt(var + eps) in double rounded to T; scale = rstd * gamma, bias = fma(-scale,
mean, beta), y = fma(x, scale, bias) (no gamma: 1, no beta: 0).

Backward, planes of HxW < 2048 (impl-1): per (sample, group) and vector of channels, ds = acc + x * dy and db =
acc + dy over the positions (not contracted), and the group's sums ds_gamma += vec_reduce_all(ds * gamma) vector
after vector (likewise db). 2048 or more (impl-2): per channel ds = fma(x, dy, acc) and db = acc + dy over the
positions, then per group ds_gamma = acc + ds * gamma channel after channel from zero (not contracted). Both:
c2 = fma(db_gamma, mean, -ds_gamma) * rstd^3 * s (left to right), c3 = fma(-c2, mean, -(db_gamma * rstd * s)),
dx = fma(c2, x, (rstd * gamma) * dy) + c3; dgamma and dbeta as the contiguous kernel's (_group_norm_backward).
"""
from __future__ import annotations

import numpy as np

from ... import _memory_format
from ..._vec_math import hsum
from ..pointwise import _fma
from ..pointwise._fma import fma
from . import _group_norm_backward as _gnb
from ._rowwise_moments import _Fma, _fma_rows, _fma_rows64

_FORWARD_SPLIT, _BACKWARD_SPLIT = 1024, 2048     # feature_map_threshold of each kernel


def is_channels_last(x):
    """torch's group_norm runs the channels-last kernels: input.suggest_memory_format() is channels_last(_3d)."""
    return x.ndim in (4, 5) and _memory_format.suggest(x) is not _memory_format.contiguous_format


def _nhwc(a, dt=None):
    """a (N, C, *spatial) as a C-contiguous (N, HxW, C) array (a copy unless already laid out so)."""
    n, c = a.shape[:2]
    return np.ascontiguousarray(np.moveaxis(a, 1, -1), dtype=dt).reshape(n, -1, c)


def _as_nchw(flat, shape):
    """A (N, HxW, C) array as the (N, C, *spatial) view with channels-last strides."""
    return np.moveaxis(flat.reshape((shape[0],) + tuple(shape[2:]) + (shape[1],)), -1, 1)


def _ordered_sum(a):
    """a[0] + a[1] + ... in order from zero along axis 0 (np.add.reduce adds the rows of a non-innermost axis one
    after the other; + 0 turns an all-negative-zero sum into +0 as the zero-started accumulator does)."""
    return np.add.reduce(a, 0) + a.dtype.type(0)


def _fma_fold(p, q):
    """acc = fma(p[i], q[i], acc) for the rows i of 2-D p and q in order from zero (one step per position: a few
    NumPy calls on preallocated rows; the checked general path when a fast one declines)."""
    if p.shape[0] > 1:
        out = (_fold32 if p.dtype == np.float32 else _fma_rows64)(p, q)
        if out is not None:
            return out
    fast = _Fma(p.dtype, True)
    out = _fma_rows(p, q, fast)
    return out if fast.exact() else _fma_rows(p, q, _Fma(p.dtype, False))


def _fold32(p, q):
    """float32: each step's float64 sum (exact product + acc) kept, rounded to float32; a sum on a float32
    midpoint whose TwoSum error is not zero (two roundings differ from one) sends the caller to the checked
    path (None)."""
    prod = np.multiply(p, q, dtype=np.float64)
    sums = np.empty_like(prod)
    acc = np.zeros(p.shape[1], np.float32)
    add, copyto = np.add, np.copyto
    for pm, sm in zip(prod, sums):
        add(pm, acc, sm)
        copyto(acc, sm, casting="unsafe")
    u = np.left_shift(sums.view(np.uint64), _fma._SHIFT).view(np.int64)
    if np.minimum.reduce(u, axis=None) == _fma._IMIN:
        r, lane = np.nonzero(u == _fma._IMIN)
        prev = np.where(r > 0, sums[r - 1, lane].astype(np.float32), np.float32(0)).astype(np.float64)
        if (_fma._two_sum_err(sums[r, lane], prod[r, lane], prev) != 0).any():
            return None
    return acc


def _padded(a, groups, per, V):
    """a (..., C) as (..., G, nv * V) with each group's D channels zero-filled to whole vectors."""
    nv = -(-per // V)
    out = np.zeros(a.shape[:-1] + (groups, nv * V), a.dtype)
    out[..., :per] = a.reshape(a.shape[:-1] + (groups, per))
    return out


def forward(x, groups, eps, weight, bias):
    """(out with channels-last strides, mean (N, G), rstd (N, G))."""
    dt = x.dtype
    t = dt.type
    n, c = x.shape[:2]
    per = c // groups
    xl = _nhwc(x)
    hw = xl.shape[1]
    V = _gnb.lanes(dt)
    s = t(t(1) / t(per * hw))
    if hw < _FORWARD_SPLIT:
        xp = _padded(xl, groups, per, V)                        # (N, HxW, G, nv * V)
        nv = xp.shape[-1] // V
        seq = xp.reshape(n, hw, groups, nv, V).transpose(1, 3, 0, 2, 4).reshape(hw * nv, n * groups * V)
        tot = hsum(_ordered_sum(seq).reshape(n, groups, V))
        sq = hsum(_ordered_sum(seq * seq).reshape(n, groups, V))
    else:
        rows = xl.transpose(1, 0, 2).reshape(hw, n * c)
        csum = _ordered_sum(rows).reshape(n, groups, per)
        csq = _fma_fold(rows, rows).reshape(n, groups, per)
        tot = _ordered_sum(np.ascontiguousarray(np.moveaxis(csum, -1, 0)))
        sq = _ordered_sum(np.ascontiguousarray(np.moveaxis(csq, -1, 0)))
    mean = tot * s
    var = np.maximum(fma(sq, s, -(mean * mean), dt), t(0))
    rstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(dt)
    scale = np.repeat(rstd, per, 1)
    if weight is not None:
        scale = scale * weight.astype(dt, copy=False)
    beta = np.zeros(c, dt) if bias is None else bias.astype(dt, copy=False)
    shift = fma(-scale, np.repeat(mean, per, 1), np.broadcast_to(beta, scale.shape), dt)
    out = fma(xl, scale[:, None, :], shift[:, None, :], dt)
    return _as_nchw(out, x.shape), mean, rstd


def backward(dy, x, mean, rstd, gamma, groups, need):
    """(dx with channels-last strides, dgamma, dbeta) as GroupNormBackwardKernelImplChannelsLastInternal."""
    dt = x.dtype
    n, c = x.shape[:2]
    per = c // groups
    xl, dl = _nhwc(x), _nhwc(dy, dt)
    hw = xl.shape[1]
    V = _gnb.lanes(dt)
    g = np.ones((groups, per), dt) if gamma is None else gamma.astype(dt, copy=False).reshape(groups, per)
    m, r = mean.reshape(n, groups), rstd.reshape(n, groups)
    if hw < _BACKWARD_SPLIT:
        xp, dp = _padded(xl, groups, per, V), _padded(dl, groups, per, V)      # (N, HxW, G, nv * V)
        nv = xp.shape[-1] // V
        seq = (xp * dp).transpose(1, 0, 2, 3).reshape(hw, -1)
        acc0 = _ordered_sum(seq).reshape(n, groups, nv * V)
        acc1 = _ordered_sum(dp.transpose(1, 0, 2, 3).reshape(hw, -1)).reshape(n, groups, nv * V)
        gp = np.zeros((groups, nv * V), dt)
        gp[:, :per] = g
        ds_g = np.zeros((n, groups), dt)
        db_g = np.zeros((n, groups), dt)
        for k in range(nv):
            lo = slice(k * V, (k + 1) * V)
            ds_g = ds_g + hsum(acc0[..., lo] * gp[:, lo])
            db_g = db_g + hsum(acc1[..., lo] * gp[:, lo])
        ds, db = acc0[..., :per].reshape(n, c), acc1[..., :per].reshape(n, c)
    else:
        xr, dr = xl.transpose(1, 0, 2).reshape(hw, n * c), dl.transpose(1, 0, 2).reshape(hw, n * c)
        ds, db = _fma_fold(xr, dr).reshape(n, c), _ordered_sum(dr).reshape(n, c)
        ds_g = np.zeros((n, groups), dt)
        db_g = np.zeros((n, groups), dt)
        ds3, db3 = ds.reshape(n, groups, per), db.reshape(n, groups, per)
        for j in range(per):
            ds_g = ds_g + ds3[..., j] * g[:, j]
            db_g = db_g + db3[..., j] * g[:, j]
    dx = None
    if need[0]:
        s = dt.type(dt.type(1) / dt.type(per * hw))
        c2, c3 = _gnb.coefficients(ds_g, db_g, m, r, s, dt, contiguous=False)
        c1 = (r[:, :, None] * g).reshape(n, 1, c)
        c2c, c3c = (np.repeat(v, per, 1)[:, None, :] for v in (c2, c3))
        dx = _as_nchw(fma(c2c, xl, c1 * dl, dt) + c3c, x.shape)
    dgamma, dbeta = _gnb.gamma_beta(ds, db, mean, rstd, groups, len(need) > 1 and need[1] and gamma is not None,
                                    len(need) > 2 and need[2])
    return dx, dgamma, dbeta
