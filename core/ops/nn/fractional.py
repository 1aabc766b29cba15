"""fractional_max_pool2d/3d (Graham's fractional max-pooling): window starts per plane come from one
uniform sample per spatial dim (drawn as torch does: rand(N, C, dims) from the default generator, so
they equal torch's under the same seed), spaced by alpha = (in - k) / (out - 1) in the input's dtype
(ATen's generate_intervals). Max with NaN winning, flat indices; FractionalMaxPool{2,3}DBackward0."""
from __future__ import annotations

import itertools

import numpy as np

from ...autograd.function import Op
from ..random import rand
from ..registry import register
from ._util import _make, _shape
from .pool_nd import _scatter_np

_INTS = {2: "Ints", 3: "three Ints"}


def _intervals(sample, in_size, out_size, k):
    """ATen's generate_intervals for every plane at once: sample [P] -> starts [P, out]."""
    ft = sample.dtype.type
    seq = np.empty(sample.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = ft(in_size - k) / ft(out_size - 1)
        i = np.arange(out_size - 1).astype(ft)
        first = (sample * alpha).astype(np.int64)[..., None]
        seq[..., :-1] = ((i + sample[..., None]) * alpha).astype(np.int64) - first
    if out_size > 0:
        seq[..., -1] = in_size - k
    return seq


def _fractional_np(x, k, out, samples, order):
    """(values, flat indices) over the trailing len(k) dims; samples [N, C, len(k)] in ATen's order."""
    nsp = len(k)
    size = x.shape[-nsp:]
    lead = x.shape[:-nsp]
    starts = [_intervals(samples[..., order[i]], size[i], out[i], k[i]) for i in range(nsp)]
    flat_x = x.reshape(lead + (int(np.prod(size)),))
    best = idx = None
    for off in itertools.product(*(range(v) for v in k)):
        flat = np.zeros(lead + (1,) * nsp, dtype=np.int64)
        for i in range(nsp):
            pos = starts[i] + off[i]
            shape = lead + tuple(out[i] if j == i else 1 for j in range(nsp))
            flat = flat * size[i] + pos.reshape(shape)
        flat = np.broadcast_to(flat, lead + tuple(out)).reshape(lead + (int(np.prod(out)),))
        v = np.take_along_axis(flat_x, flat, -1)
        if best is None:
            best, idx = v.copy(), flat.copy()
            continue
        take = (v > best) | np.isnan(v) if x.dtype.kind == "f" else v > best
        np.copyto(best, v, where=take)
        np.copyto(idx, flat, where=take)
    return best.reshape(lead + tuple(out)), idx.reshape(lead + tuple(out))


def _op_pair(nd):
    def forward(ctx, input, k, out, samples):
        x = input._data
        batched = x.ndim == nd + 2
        xb = x if batched else x[None]
        order = (1, 0) if nd == 2 else (0, 1, 2)   # ATen: 2-D reads sample[0] for W, sample[1] for H
        vals, idx = _fractional_np(xb, k, out, samples._data, order)
        if not batched:
            vals, idx = vals[0], idx[0]
        ctx.save_for_backward(_make(idx))
        ctx.shape = x.shape
        return vals, idx

    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        return bwd.apply(g, idx, ctx.shape), None

    def b_forward(ctx, g, idx, shape):
        ctx.save_for_backward(idx)
        return _scatter_np(g._data, idx._data, shape, nd)

    def b_backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        lead = idx._data.shape[:-nd]
        flat = gg._data.reshape(lead + (int(np.prod(gg._data.shape[-nd:])),))
        picks = idx._data.reshape(lead + (int(np.prod(idx._data.shape[-nd:])),))
        return _make(np.take_along_axis(flat, picks, -1).reshape(idx._data.shape)), None

    name = f"FractionalMaxPool{nd}D"
    bwd = type(name + "BackwardBackward0", (Op,), {"forward": staticmethod(b_forward),
                                                   "backward": staticmethod(b_backward)})
    return type(name + "Backward0", (Op,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


FractionalMaxPool2DBackward0, FractionalMaxPool3DBackward0 = _op_pair(2), _op_pair(3)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _checks(input, k, out, samples, nd):
    """ATen's fractional_max_pool{2,3}d checks, then its _random_samples checks."""
    name = f"fractional_max_pool{nd}d" + ("()" if nd == 2 else "_out()")
    shp = input._data.shape
    if len(shp) not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {_shape(shp)}")
    for i in range(1, len(shp)):
        if shp[i] == 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{_shape(shp)} with dimension {i} being empty.")
    names = ("height", "width") if nd == 2 else ("time", "height", "width")
    for i in range(nd):
        if out[i] + k[i] - 1 > shp[-nd + i]:
            raise RuntimeError(f"{name}: pool {names[i]} {k[i]} too large relative to input {names[i]} "
                               f"{shp[-nd + i]}")
    ss = samples._data.shape
    n = shp[0] if len(shp) == nd + 2 else 1
    if len(ss) != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {len(ss)}D tensor")
    if ss[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {ss[2]}.")
    if ss[1] != shp[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if ss[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less than input batch size.")


def _fractional(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:   # (a float ratio fails here in torch too: TypeError)
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _tuple(output_ratio, nd)
        output_size = [int(input._data.shape[-nd + i] * ratio[i]) for i in range(nd)]
    k, out = _tuple(kernel_size, nd), _tuple(output_size, nd)
    dims = input._data.ndim
    if dims < nd + 1:   # torch reads input.size(-nd-1) for the samples' shape first
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(dims, 1)}, {max(dims, 1) - 1}], "
                         f"but got {-nd - 1})")
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {_INTS[nd]}")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {_INTS[nd]}")
    k, out = tuple(int(v) for v in k), tuple(int(v) for v in out)
    if _random_samples is None:
        n = 1 if input._data.ndim == nd + 1 else input._data.shape[0]
        _random_samples = rand(n, input._data.shape[-nd - 1], nd, dtype=input.dtype)
    _checks(input, k, out, _random_samples, nd)
    return (FractionalMaxPool2DBackward0 if nd == 2 else FractionalMaxPool3DBackward0).apply(
        input, k, out, _random_samples)


@register(category="nn", function=False)
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max over kh x kw windows at pseudo-random fractional strides, to output_size (or input * output_ratio)
    (FractionalMaxPool2DBackward0); samples come from the default generator unless _random_samples is given."""
    vals, idx = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return (vals, idx) if return_indices else vals


@register(category="nn", function=False)
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """fractional_max_pool2d over [N, C, T, H, W] (FractionalMaxPool3DBackward0); indices are flat t*H*W + h*W + w."""
    vals, idx = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return (vals, idx) if return_indices else vals


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """F.fractional_max_pool2d_with_indices: (values, indices)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """F.fractional_max_pool3d_with_indices: (values, indices)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
