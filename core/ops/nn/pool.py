"""max_pool2d (+ indices) and avg_pool2d on strided NumPy windows, with paired backward Ops."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from ._util import _make, _shape
from .im2col import _padded


def _pool_out(size, k, pad, s, d, ceil_mode):
    """PyTorch's pooling_output_shape (the last window must start inside the input or left padding)."""
    num = size + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + pad:
        out -= 1
    return out


def _pool_args(name, kernel_size, stride, padding, dilation=1):
    def pair(v, what):
        if isinstance(v, (list, tuple)):
            if len(v) not in (1, 2):
                raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of two ints")
            return (int(v[0]), int(v[0])) if len(v) == 1 else (int(v[0]), int(v[1]))
        return (int(v), int(v))
    k = pair(kernel_size, "kernel_size")
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        s = k
    else:
        if isinstance(stride, (list, tuple)) and len(stride) not in (1, 2):
            raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
        s = pair(stride, "stride")
    p = pair(padding, "padding")
    d = pair(dilation, "dilation")
    return k, s, p, d


def _pool_checks(input, k, s, p, d, ceil_mode, name):
    if s[0] == 0 or s[1] == 0:
        raise RuntimeError("stride should not be zero")
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    for i in range(2):
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    shp = input._data.shape
    c, h, w = shp[-3:]
    oh = _pool_out(h, k[0], p[0], s[0], d[0], ceil_mode)
    ow = _pool_out(w, k[1], p[1], s[1], d[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size "
                           "is too small")
    return oh, ow


def _pool_pads(h, w, k, s, p, d, oh, ow):
    """(top, bottom, left, right) so that every window of the output lies inside the padded array."""
    need_h = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1
    need_w = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    return (p[0], max(p[0], need_h - h - p[0]), p[1], max(p[1], need_w - w - p[1]))


def _kernel_slices(k, d, s, oh, ow):
    hs, ws = s[0] * (oh - 1) + 1, s[1] * (ow - 1) + 1
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            yield i, j, (slice(None), slice(None), slice(r0, r0 + hs, s[0]), slice(c0, c0 + ws, s[1]))


def _maxpool_scatter_np(gd, idx, in_shape, disjoint):
    """Add each pooled gradient into the input position its window's maximum came from."""
    h, w = in_shape[-2:]
    nc = int(np.prod(in_shape[:-2]))
    flat = (np.arange(nc).reshape((nc, 1)) * (h * w) + idx.reshape(nc, int(np.prod(idx.shape[-2:])))).ravel()
    if disjoint:   # non-overlapping windows: no position is hit twice
        out = np.zeros(nc * h * w, dtype=gd.dtype)
        out[flat] = gd.ravel()
    else:
        out = np.bincount(flat, weights=gd.ravel(), minlength=nc * h * w).astype(gd.dtype, copy=False)
    return out.reshape(in_shape)


class MaxPool2DWithIndicesBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, d, out_hw):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        n, c, h, w = x.shape
        oh, ow = out_hw
        pads = _pool_pads(h, w, k, s, p, d, oh, ow)
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = _padded(x, pads, fill=low)
        best = None
        arg = np.zeros((n, c, oh, ow), dtype=np.int64)
        for i, j, sl in _kernel_slices(k, d, s, oh, ow):
            v = xp[sl]
            if best is None:
                best = v.copy()
                continue
            take = v > best
            if x.dtype.kind == "f":
                take |= np.isnan(v)
            np.copyto(best, v, where=take)
            np.copyto(arg, i * k[1] + j, where=take)
        rows = np.arange(oh)[:, None] * s[0] - p[0] + (arg // k[1]) * d[0]
        cols = np.arange(ow)[None, :] * s[1] - p[1] + (arg % k[1]) * d[1]
        if p[0] or p[1] or x.dtype.kind == "f":
            # a window whose real values are all -inf: PyTorch reports its first real position
            bad = (rows < 0) | (cols < 0) | (rows >= h) | (cols >= w)
            if bad.any():
                r0 = np.arange(oh)[:, None] * s[0] - p[0]
                c0 = np.arange(ow)[None, :] * s[1] - p[1]
                r0 = np.where(r0 < 0, r0 + (-r0 + d[0] - 1) // d[0] * d[0], r0)
                c0 = np.where(c0 < 0, c0 + (-c0 + d[1] - 1) // d[1] * d[1], c0)
                rows = np.where(bad, np.broadcast_to(r0, rows.shape), rows)
                cols = np.where(bad, np.broadcast_to(c0, cols.shape), cols)
        idx = rows * w + cols
        ctx.save_for_backward(_make(idx))
        ctx.meta = (x.shape, batched, all(s[i] >= (k[i] - 1) * d[i] + 1 for i in range(2)))
        if not batched:
            return best[0], idx[0]
        return best, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        shape, batched, disjoint = ctx.meta
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, idx, shape if batched else shape[1:], disjoint)

    @staticmethod
    def backward_np(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        shape, batched, disjoint = ctx.meta
        return _maxpool_scatter_np(g, idx._data, shape if batched else shape[1:], disjoint)


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """Scatter pooled gradients to the arg-max positions (max-pool's backward); its adjoint gathers."""

    @staticmethod
    def forward(ctx, g, idx, in_shape, disjoint):
        ctx.save_for_backward(idx)
        return _maxpool_scatter_np(g._data, idx._data, in_shape, disjoint)

    @staticmethod
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        return MaxPoolGatherBackward0.apply(gg, idx), None


class MaxPoolGatherBackward0(Op):
    """out[n, c, i, j] = input[n, c].flatten()[indices[n, c, i, j]] (max-pool's double backward)."""

    @staticmethod
    def forward(ctx, input, idx):
        ctx.save_for_backward(idx)
        ctx.shape = input._data.shape
        x = input._data
        lead = x.shape[:-2]
        flat = x.reshape(lead + (int(np.prod(x.shape[-2:])),))
        picks = idx._data.reshape(lead + (int(np.prod(idx._data.shape[-2:])),))
        return np.take_along_axis(flat, picks, -1).reshape(idx._data.shape)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape, False), None


@register(category="nn", function=False)
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """Max over sliding windows plus the flat (h*W + w) index of each maximum."""
    k, s, p, d = _pool_args("max_pool2d", kernel_size, stride, padding, dilation)
    nd = input._data.ndim
    if nd not in (3, 4) or any(v == 0 for v in input._data.shape[-3:]):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    oh, ow = _pool_checks(input, k, s, p, d, ceil_mode, "max_pool2d")
    out, idx = MaxPool2DWithIndicesBackward0.apply(input, k, s, p, d, (oh, ow))
    return out, idx


@register(category="nn")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over kh x kw windows (MaxPool2DWithIndicesBackward0); stride defaults to kernel_size."""
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def _avg_divisor(h, w, k, s, p, oh, ow, count_include_pad, divisor_override):
    def axis(size, kk, ss, pp, o):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, size + pp)
        pool = end - start
        return pool, np.minimum(end, size) - np.maximum(start, 0)
    ph, ch = axis(h, k[0], s[0], p[0], oh)
    pw, cw = axis(w, k[1], s[1], p[1], ow)
    if divisor_override:
        return np.full((oh, ow), divisor_override, dtype=np.int64)
    if count_include_pad:
        return ph[:, None] * pw[None, :]
    return np.maximum(ch[:, None] * cw[None, :], 1)


def _avgpool_spread_np(gd, in_shape, k, s, p, divisor):
    """Spread each pooled gradient / divisor uniformly over its window (avg-pool's backward)."""
    batched = gd.ndim == 4
    if not batched:
        gd = gd[None]
    n, c, oh, ow = gd.shape
    h, w = in_shape[-2:]
    pads = _pool_pads(h, w, k, s, p, (1, 1), oh, ow)
    out = np.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), dtype=gd.dtype)
    share = gd / divisor.astype(gd.dtype)
    for _, _, sl in _kernel_slices(k, (1, 1), s, oh, ow):
        out[sl] += share
    out = np.ascontiguousarray(out[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w])
    return out if batched else out[0]


class AvgPool2DBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, out_hw, divisor):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        n, c, h, w = x.shape
        oh, ow = out_hw
        xp = _padded(x, _pool_pads(h, w, k, s, p, (1, 1), oh, ow))
        acc = np.zeros((n, c, oh, ow), dtype=np.float64 if x.dtype.kind != "f" else x.dtype)
        for _, _, sl in _kernel_slices(k, (1, 1), s, oh, ow):
            acc += xp[sl]
        if x.dtype.kind == "f":
            out = acc / divisor.astype(x.dtype)
        else:
            out = np.trunc(acc / divisor).astype(x.dtype)
        ctx.meta = (x.shape, batched, k, s, p, divisor)
        return out if batched else out[0]

    @staticmethod
    def backward(ctx, g):
        shape, batched, k, s, p, divisor = ctx.meta
        return AvgPool2DBackwardBackward0.apply(g, shape if batched else shape[1:], k, s, p, divisor)

    @staticmethod
    def backward_np(ctx, g):
        shape, batched, k, s, p, divisor = ctx.meta
        return _avgpool_spread_np(g, shape if batched else shape[1:], k, s, p, divisor)


class AvgPool2DBackwardBackward0(Op):
    """Spread each pooled gradient / divisor over its window (avg-pool's backward); its adjoint is avg-pool."""

    @staticmethod
    def forward(ctx, g, in_shape, k, s, p, divisor):
        ctx.meta = (k, s, p, tuple(g._data.shape[-2:]), divisor)
        return _avgpool_spread_np(g._data, in_shape, k, s, p, divisor)

    @staticmethod
    def backward(ctx, gg):
        k, s, p, out_hw, divisor = ctx.meta
        return AvgPool2DBackward0.apply(gg, k, s, p, out_hw, divisor)


@register(category="nn", function=False)
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over kh x kw windows (AvgPool2DBackward0); padding counts in the divisor unless
    count_include_pad=False; divisor_override replaces the divisor."""
    nd = input._data.ndim
    if nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         "but got -3)")
    if nd > 4:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{_shape(input._data.shape)}")
    k, s, p, d = _pool_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    oh, ow = _pool_checks(input, k, s, p, d, ceil_mode, "avg_pool2d")
    h, w = input._data.shape[-2:]
    divisor = _avg_divisor(h, w, k, s, p, oh, ow, count_include_pad, divisor_override)
    return AvgPool2DBackward0.apply(input, k, s, p, (oh, ow), divisor)
