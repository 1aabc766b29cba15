"""torch/nn/_functions.py's CrossMapLRN2d: the legacy cross-channel LRN as a custom autograd Function
(grad_fn CrossMapLRN2dBackward), its forward and backward the same running-window loops as torch's,
on NumPy in the input's dtype."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...tensor import Tensor


def _scale(x, size, alpha, k):
    """k + alpha/size * (running sum of squares over a window of channels), built channel by channel."""
    channels = x.shape[1]
    sq = x * x
    scale = np.empty_like(x)
    pre_pad = int((size - 1) / 2 + 1)
    scale[:, 0] = 0
    for c in range(min(pre_pad, channels)):
        scale[:, 0] += sq[:, c]
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += sq[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= sq[:, c - pre_pad]
    scale *= x.dtype.type(alpha / size)
    scale += x.dtype.type(k)
    return scale


class CrossMapLRN2d(Function):
    """output = input * scale ** -beta over 4-D input [N, C, H, W]."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = input._data
        scale = _scale(x, size, alpha, k)
        ctx.scale = scale
        out = np.power(scale, x.dtype.type(-beta)) * x
        output = Tensor._make(out)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        x, out, g = input._data, output._data, grad_output._data
        n_batch, channels, height, width = x.shape
        size, dt = ctx.size, x.dtype.type
        cache_ratio_value = dt(2 * ctx.alpha * ctx.beta / size)
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:    # torch's padded_ratio.narrow fails (size 1)
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size "
                               f"({channels + size - 1}).")
        grad_input = np.power(ctx.scale, dt(-ctx.beta)) * g
        padded_ratio = np.zeros((channels + size - 1, height, width), dtype=x.dtype)
        for n in range(n_batch):
            padded_ratio[inverse_pre_pad:inverse_pre_pad + channels] = g[n] * out[n] / ctx.scale[n]
            accum_ratio = padded_ratio[:size - 1].sum(0)
            for c in range(channels):
                accum_ratio += padded_ratio[c + size - 1]
                grad_input[n, c] += -cache_ratio_value * (x[n, c] * accum_ratio)
                accum_ratio -= padded_ratio[c]
        return Tensor._make(grad_input), None, None, None, None
