"""Channel <-> space rearrangements: pixel_shuffle, pixel_unshuffle (each the other's backward) and
channel_shuffle; new contiguous tensors, every dtype, as ATen's."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import export, register


def _shuffle_np(x, r):
    *b, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(*b, oc, r, r, h, w)
    n = len(b)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(y.reshape(*b, oc, h * r, w * r))


def _unshuffle_np(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(y.reshape(*b, c * r * r, h // r, w // r))


class PixelShuffleBackward0(Op):
    @staticmethod
    def forward(ctx, input, r):
        ctx.r = r
        return _shuffle_np(input._data, r)

    @staticmethod
    def backward(ctx, g):
        return PixelUnshuffleBackward0.apply(g, ctx.r)


class PixelUnshuffleBackward0(Op):
    @staticmethod
    def forward(ctx, input, r):
        ctx.r = r
        return _unshuffle_np(input._data, r)

    @staticmethod
    def backward(ctx, g):
        return PixelShuffleBackward0.apply(g, ctx.r)


@register(category="nn")
def pixel_shuffle(input, upscale_factor):
    """[*, C * r**2, H, W] -> [*, C, H * r, W * r] (PixelShuffleBackward0)."""
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {nd} "
                           "dimension(s)")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return PixelShuffleBackward0.apply(input, r)


@register(category="nn")
def pixel_unshuffle(input, downscale_factor):
    """[*, C, H * r, W * r] -> [*, C * r**2, H, W] (PixelUnshuffleBackward0)."""
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {nd} "
                           "dimension(s)")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input._data.shape[-2:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h}"
                           f" is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w}"
                           f" is not divisible by {r}")
    return PixelUnshuffleBackward0.apply(input, r)


class ChannelShuffleBackward0(Op):
    @staticmethod
    def forward(ctx, input, groups):
        x = input._data
        n, c = x.shape[:2]
        ctx.back = c // groups
        y = x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2)
        return np.ascontiguousarray(y.reshape(x.shape))

    @staticmethod
    def backward(ctx, g):
        return ChannelShuffleBackward0.apply(g, ctx.back)


@register(category="nn")
def channel_shuffle(input, groups):
    """Split the C channels (dim 1) into groups and interleave them: [N, g, C/g, *] -> [N, C/g, g, *]
    (ChannelShuffleBackward0)."""
    nd = input._data.ndim
    if nd <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input._data.shape)}")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    c = input._data.shape[1]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {g} groups.")
    return ChannelShuffleBackward0.apply(input, g)


@export(name="native_channel_shuffle")
def native_channel_shuffle(input, groups):
    """torch.native_channel_shuffle: channel_shuffle's kernel."""
    return channel_shuffle(input, groups)
