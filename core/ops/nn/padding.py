"""F.pad: constant (ConstantPadNdBackward0), reflect / replicate / circular (gather <-> scatter Ops);
torch.constant_pad_nd."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _shape


class ConstantPadNdBackward0(Op):
    """Pad (or crop, for negative amounts) the trailing dims; pad is (last_lo, last_hi, prev_lo, ...)."""

    @staticmethod
    def forward(ctx, input, pad, value):
        x = input._data
        ctx.pad = pad
        nd = x.ndim
        shape = list(x.shape)
        src, dst = [slice(None)] * nd, [slice(None)] * nd
        for i in range(len(pad) // 2):
            dim = nd - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            size = shape[dim] + lo + hi
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            s0, s1 = max(-lo, 0), x.shape[dim] - max(-hi, 0)
            src[dim] = slice(s0, max(s1, s0))
            dst[dim] = slice(max(lo, 0), max(lo, 0) + max(s1 - s0, 0))
            shape[dim] = size
        _alloc(shape, input.dtype)
        out = np.full(shape, value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, g):
        return ConstantPadNdBackward0.apply(g, tuple(-p for p in ctx.pad), 0)


class _PadGather(Op):
    """out = input indexed along each padded dim by an index map (reflect / replicate / circular)."""

    @staticmethod
    def forward(ctx, input, maps):
        x = input._data
        ctx.maps = maps
        ctx.in_shape = x.shape
        for dim, idx in maps:
            x = np.take(x, idx, axis=dim)
        return x

    @staticmethod
    def backward(ctx, g):
        return ctx.scatter.apply(g, ctx.maps, ctx.in_shape)


class _PadScatter(Op):
    """Adjoint of _PadGather: sums gradients of all output positions that read the same input position."""

    @staticmethod
    def forward(ctx, g, maps, in_shape):
        ctx.maps = maps
        x = g._data
        for dim, idx in reversed(maps):
            m = np.zeros((len(idx), in_shape[dim]), dtype=x.dtype)
            m[np.arange(len(idx)), idx] = 1
            x = np.moveaxis(np.moveaxis(x, dim, -1) @ m, -1, dim)
        return np.ascontiguousarray(x)

    @staticmethod
    def backward(ctx, gg):
        return ctx.gather.apply(gg, ctx.maps)


def _pad_pair(name):
    gather = type(name, (_PadGather,), {})
    scatter = type(name[:-1] + "Backward0" if name != "CopySlices" else "CopySlicesBackward0", (_PadScatter,), {})
    gather.scatter, scatter.gather = scatter, gather
    return gather


_PAD_OPS = {(mode, n): _pad_pair(f"{prefix}{n}DBackward0" if prefix else "CopySlices")
            for mode, prefix in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"), ("circular", ""))
            for n in (1, 2, 3)}

_NP_PAD_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _circular_map(size, lo, hi):
    """Input index of each output position of ATen's _pad_circular along one dim: the (cropped, for
    negative amounts) input in the middle, then the left pad copied from the output's own tail and the
    right pad from its head, so a negative pad on one side crops what the other side wraps."""
    left, right = max(lo, 0), max(hi, 0)
    n = size + lo + hi
    idx = np.empty(max(n, 0), np.int64)
    idx[left:n - right] = np.arange(max(-lo, 0), size - max(-hi, 0))
    if lo > 0:
        idx[:lo] = idx[n - lo - right:n - right]
    if hi > 0:
        idx[n - hi:] = idx[left:left + hi]
    return idx


@register(category="nn", function=False)
def pad(input, pad, mode="constant", value=None):
    """Pad the trailing dims: pad = (last_left, last_right, 2nd_last_left, ...). Modes: constant
    (ConstantPadNdBackward0; negative amounts crop), reflect, replicate, circular."""
    pad = tuple(int(p) for p in pad)
    nd = input._data.ndim
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > nd:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {nd}")
    if mode == "constant":
        return ConstantPadNdBackward0.apply(input, pad, 0 if value is None else value)
    if mode not in _NP_PAD_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    n = len(pad) // 2
    if n not in (1, 2, 3) or nd not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    maps = []
    shp = input._data.shape
    for i in range(n):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = shp[dim]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                               f"{_shape(shp)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and size == 0:
            raise RuntimeError(f"input tensor must have a non-zero size at dimension {dim}")
        if mode == "circular":
            idx = _circular_map(size, lo, hi)
        else:
            idx = np.pad(np.arange(size), (max(lo, 0), max(hi, 0)), mode=_NP_PAD_MODE[mode])
            idx = idx[max(-lo, 0):len(idx) - max(-hi, 0)]
        maps.append((dim, idx))
    return _PAD_OPS[(mode, n)].apply(input, tuple(maps))


@register(category="shape")   # torch.* only (not in F): a shape op
def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd: pad (negative amounts crop) the trailing dims with `value`
    (ConstantPadNdBackward0); pad = (last_lo, last_hi, prev_lo, ...)."""
    pad = tuple(int(p) for p in pad)
    nd = input._data.ndim
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > nd:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {nd}dimensions.")
    return ConstantPadNdBackward0.apply(input, pad, value)
