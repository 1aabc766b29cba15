"""max_unpool1d/2d/3d: the partial inverse of max pooling. Each input value is written at its flat
spatial index of a zero output (later values win on a repeated index, as PyTorch's CPU loop); the
gradient reads the output gradient back at those indices (MaxUnpool2DBackward0 / MaxUnpool3DBackward0).
1-D is PyTorch's: the 2-D op over a unit width, squeezed."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _shape


def _ntuple(v, n):
    """PyTorch's _pair/_triple: an int repeats, a sequence stays as given (a short one fails later, as torch)."""
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _unpool_output_size(input, k, s, p, output_size):
    """PyTorch's _unpool_output_size: the default (L-1)*s + k - 2p per dim, or output_size checked against it."""
    shp = input._data.shape
    n = len(k)
    default = [(shp[-n + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
    return [int(v) for v in output_size]


def _gather(g, idx, nsp):
    lead = idx.shape[:-nsp]
    flat = g.reshape(lead + (int(np.prod(g.shape[-nsp:])),))
    return np.take_along_axis(flat, idx.reshape(lead + (int(np.prod(idx.shape[-nsp:])),)), -1).reshape(idx.shape)


def _unpool_np(x, idx, out):
    nsp = len(out)
    lead = x.shape[:-nsp]
    res = np.zeros(lead + (int(np.prod(out)),), dtype=x.dtype)
    n_in = int(np.prod(x.shape[-nsp:]))
    flat_idx = idx.reshape(lead + (n_in,))
    bad = (flat_idx < 0) | (flat_idx >= res.shape[-1])
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(flat_idx[bad][0])} (output volumes are of size "
                           f"{'x'.join(map(str, out))})")
    np.put_along_axis(res, flat_idx, x.reshape(lead + (n_in,)), -1)
    return res.reshape(lead + tuple(out))


def _unpool_class(nd):
    def forward(ctx, input, idx, out):
        ctx.save_for_backward(idx)
        return _unpool_np(input._data, idx._data, out)

    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        return gather.apply(g, idx), None

    def g_forward(ctx, g, idx):
        ctx.save_for_backward(idx)
        ctx.out = g._data.shape[-nd:]
        return _gather(g._data, idx._data, nd)

    def g_backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        return cls.apply(gg, idx, ctx.out), None

    cls = type(f"MaxUnpool{nd}DBackward0", (Op,), {"forward": staticmethod(forward),
                                                     "backward": staticmethod(backward)})
    gather = type(f"MaxPoolDoubleBackward{nd}D", (Op,), {"forward": staticmethod(g_forward),
                                                          "backward": staticmethod(g_backward)})
    return cls


MaxUnpool2DBackward0, MaxUnpool3DBackward0 = _unpool_class(2), _unpool_class(3)


def _check(input, indices, out, nd):
    names = {2: ("two", "(height, width)"), 3: ("three", "(depth, height, width)")}[nd]
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dt.scalar_name(indices.dtype)}")
    dims = input._data.ndim
    if nd == 3 and dims not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {dims} "
                           "dimensions.")
    if len(out) != nd:
        raise RuntimeError(f"There should be exactly {names[0]} elements {names[1]} in output_size, but got "
                           f"{len(out)} elements.")
    if nd == 2 and dims not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {dims} "
                           "dimensions.")
    if input._data.shape != indices._data.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_shape(input._data.shape)}) but got indices tensor with shape: "
                           f"{_shape(indices._data.shape)}")
    for i in range(1, dims):
        if input._data.shape[i] == 0:
            raise RuntimeError(f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {_shape(input._data.shape)} with dimension {i} being "
                               "empty.")
    _alloc(input._data.shape[:-nd] + tuple(out), input.dtype)


def _args(kernel_size, stride, padding, n):
    k = _ntuple(kernel_size, n)
    return k, (k if stride is None else _ntuple(stride, n)), _ntuple(padding, n)


@register(category="nn", function=False)
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place each value of [N, C, L] (or [C, L]) at its index along a zero output of length
    (L-1)*stride + kernel_size - 2*padding (or output_size): max_unpool2d over a unit width, as PyTorch."""
    k, s, p = _args(kernel_size, stride, padding, 1)
    out = _unpool_output_size(input, k, s, p, output_size) + [1]
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), out).squeeze(-1)


@register(category="nn", function=False)
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place each value of [N, C, H, W] (or [C, H, W]) at its flat h*W_out + w index of a zero output
    (MaxUnpool2DBackward0): the partial inverse of max_pool2d(return_indices=True)."""
    k, s, p = _args(kernel_size, stride, padding, 2)
    return _max_unpool2d(input, indices, _unpool_output_size(input, k, s, p, output_size))


def _max_unpool2d(input, indices, out):
    _check(input, indices, out, 2)
    return MaxUnpool2DBackward0.apply(input, indices, tuple(out))


@register(category="nn", function=False)
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place each value of [N, C, D, H, W] (or [C, D, H, W]) at its flat d*H*W + h*W + w index of a zero
    output (MaxUnpool3DBackward0): the partial inverse of max_pool3d(return_indices=True)."""
    k, s, p = _args(kernel_size, stride, padding, 3)
    out = _unpool_output_size(input, k, s, p, output_size)
    _check(input, indices, out, 3)
    if min(s) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {_shape(s)}")
    return MaxUnpool3DBackward0.apply(input, indices, tuple(out))
