"""torch.convolution, the generic entry conv1d/2d/3d and the transposed convs call (dispatched here to
those ops: ConvolutionBackward0), and torch.conv_tbc, the time-batch-channel 1-D convolution
(ConvTbcBackward0), computed as ATen's CPU kernel computes it (bias, then one addmm per kernel tap)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from .conv import conv1d, conv2d
from .conv3d import conv3d
from .conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from .padding import pad as _pad

class _Required:
    """Default of the arguments torch requires (a stable repr: signatures are compared across imports)."""

    def __repr__(self):
        return "<required>"


_MISSING = _Required()
_NAMES = ("bias", "stride", "padding", "dilation", "transposed", "output_padding", "groups")


def _ints(name, pos, v):
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)
    raise TypeError(f"convolution(): argument '{name}' (position {pos}) must be tuple of ints, not {type(v).__name__}")


@register(category="nn")
def convolution(input, weight, bias=_MISSING, stride=_MISSING, padding=_MISSING, dilation=_MISSING,
                transposed=_MISSING, output_padding=_MISSING, groups=_MISSING):
    """torch.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups): the
    N-d (transposed) convolution the weight's dimension selects, every argument required as in torch."""
    given = (bias, stride, padding, dilation, transposed, output_padding, groups)
    missing = [n for n, v in zip(_NAMES, given) if v is _MISSING]
    if missing:
        raise TypeError(f"convolution() missing {len(missing)} required positional argument: "
                        + ", ".join(f'"{n}"' for n in missing))
    stride, padding = _ints("stride", 4, stride), _ints("padding", 5, padding)
    dilation, output_padding = _ints("dilation", 6, dilation), _ints("output_padding", 8, output_padding)
    nd = weight.dim()
    if input.dim() != nd:
        raise RuntimeError(f"Expected {nd}-dimensional input for {nd}-dimensional weight {list(weight.shape)}, but "
                           f"got {input.dim()}-dimensional input of size {list(input.shape)} instead")
    if transposed:
        fn = {3: conv_transpose1d, 4: conv_transpose2d, 5: conv_transpose3d}[nd]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = {3: conv1d, 4: conv2d, 5: conv3d}[nd]
    return fn(input, weight, bias, stride, padding, dilation, groups)


class ConvTbcBackward0(Op):
    @staticmethod
    def forward(ctx, input, weight, bias, pad):
        ctx.save_for_backward(input, weight)
        ctx.pad = pad
        x, w = input._data, weight._data
        t_in, batch, _ = x.shape
        k_w, _, c_out = w.shape
        t_out = t_in + 2 * pad - k_w + 1
        if t_out < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t_out}: [{t_out}, {batch}, {c_out}]")
        out = np.empty((t_out, batch, c_out), dtype=x.dtype)
        out[...] = bias._data
        for k in range(k_w):        # ATen: output[oShift:oShift+t] += input[iShift:iShift+t] @ weight[k]
            i_shift, o_shift = max(0, k - pad), max(0, pad - k)
            t = min(t_in + pad - k, t_out) - o_shift
            if t > 0:
                o = out[o_shift:o_shift + t].reshape(t * batch, c_out)
                o += x[i_shift:i_shift + t].reshape(t * batch, -1) @ w[k]
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        pad, k_w = ctx.pad, w.shape[0]
        xs, ws, gs = x.permute(1, 2, 0), w.permute(2, 1, 0), g.permute(1, 2, 0)   # conv1d layout: (B, C, T)
        gx = conv_transpose1d(gs, ws, None, 1, pad).permute(2, 0, 1) if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            xp = xs if pad == 0 else _pad(xs, (pad, pad))
            taps = xp.unfold(2, k_w, 1)                              # (B, Cin, Tout, K)
            gw = (taps.unsqueeze(1) * gs.unsqueeze(2).unsqueeze(-1)).sum((0, 3)).permute(2, 1, 0)
        gb = g.sum((0, 1)) if ctx.needs_input_grad[2] else None
        return gx, gw, gb


@register(category="nn")
def conv_tbc(input, weight, bias=_MISSING, pad=0):
    """1-D convolution over time of (time, batch, channels) input with a (kernel, in, out) weight and a bias,
    `pad` zeros on both ends of time, as torch.conv_tbc."""
    if bias is _MISSING:
        raise TypeError('conv_tbc() missing 1 required positional arguments: "bias"')
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    return ConvTbcBackward0.apply(input, weight, bias, int(pad))
