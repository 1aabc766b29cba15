"""conv_transpose1d/2d/3d: the adjoint of convolution with respect to its input (weight
[C_in, C_out/groups, *k]): one batched matmul W^T x into columns, then N-D col2im onto the
(L-1)*s - 2p + d*(k-1) + output_padding + 1 output; grad_fn ConvolutionBackward0, as in PyTorch."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _shape, check_conv_dtypes
from .im2col import Im2ColNdBackward0, _col2im_nd, _im2col_nd

_AXES = {1: ("height", "width"), 2: ("height", "width"), 3: ("depth", "height", "width")}


class ConvolutionBackward0(Op):
    """Transposed N-D convolution; groups split C_in (input) and C_out (output) alike."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, s, p, d, groups, out_size):
        x, w = input._data, weight._data
        n, cin, nwin = x.shape[0], x.shape[1], tuple(x.shape[2:])
        cout_g, k = w.shape[1], tuple(w.shape[2:])
        kk, L = cout_g * int(np.prod(k)), int(np.prod(nwin))
        _alloc((n, groups * kk, L), input.dtype)
        cols = np.matmul(w.reshape(groups, cin // groups, kk).transpose(0, 2, 1),
                         x.reshape(n, groups, cin // groups, L)).reshape(n, groups * kk, L)
        out = _col2im_nd(cols, cout_g * groups, out_size, k, d, p, s, nwin)
        if bias is not None:
            out += bias._data.reshape((-1,) + (1,) * len(k))
        ctx.save_for_backward(input, weight)
        ctx.meta = (s, p, d, groups, bias is not None)
        return out

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        s, p, d, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, cin, nwin = input.shape[0], input.shape[1], tuple(input.shape[2:])
        cout_g, k = weight.shape[1], tuple(weight.shape[2:])
        kk, L = cout_g * int(np.prod(k)), int(np.prod(nwin))
        gcols = Im2ColNdBackward0.apply(g, k, d, p, s, nwin).reshape(n, groups, kk, L)
        gi = gw = gb = None
        if need[0]:
            gi = weight.reshape(groups, cin // groups, kk).matmul(gcols).reshape(input.shape)
        if need[1]:
            xg = input.reshape(n, groups, cin // groups, L)
            gw = xg.matmul(gcols.transpose(2, 3)).sum(0).reshape(weight.shape)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0,) + tuple(range(2, g.dim())))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        input, weight = ctx.saved_tensors
        s, p, d, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        x, w = input._data, weight._data
        n, cin, nwin = x.shape[0], x.shape[1], tuple(x.shape[2:])
        cout_g, k = w.shape[1], tuple(w.shape[2:])
        kk, L = cout_g * int(np.prod(k)), int(np.prod(nwin))
        gcols = _im2col_nd(g, k, d, p, s, nwin).reshape(n, groups, kk, L)
        gi = gw = gb = None
        if need[0]:
            gi = np.matmul(w.reshape(groups, cin // groups, kk), gcols).reshape(x.shape)
        if need[1]:
            xg = x.reshape(n, groups, cin // groups, L)
            gw = np.matmul(xg, gcols.transpose(0, 1, 3, 2)).sum(0).reshape(w.shape)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0,) + tuple(range(2, g.ndim)))
        return gi, gw, gb


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        vals = tuple(int(x) for x in v)
        return vals * n if len(vals) == 1 else vals
    return (int(v),) * n


def _check_output_padding(op, s, d):
    if not any(op[i] >= s[i] and op[i] >= d[i] for i in range(len(op))):
        return
    if len(op) == 1:   # PyTorch runs 1-D as 2-D over a unit height
        op, s, d = (0,) + op, (1,) + s, (1,) + d
    axes = _AXES[len(op)]
    parts = [f"{what}_{ax}: {v[i]}" for what, v in (("output_padding", op), ("stride", s), ("dilation", d))
             for i, ax in enumerate(axes)]
    raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


def _check_transpose_args(input, weight, bias, s, p, op, d, groups):
    ws, xs = weight._data.shape, input._data.shape
    if min(s) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(d) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if min(p) < 0:
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if len(ws) != len(xs):
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_shape(ws)}, but "
                           f"got {len(xs)}-dimensional input of size {_shape(xs)} instead")
    _check_output_padding(op, s, d)
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape(ws)}] instead")
    if xs[1] != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_shape(ws)}, expected input{_shape(xs)} to have "
                           f"{ws[0]} channels, but got {xs[1]} channels instead")
    cout = ws[1] * groups
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != cout):
        raise RuntimeError(f"Given transposed=1, weight of size {_shape(ws)}, expected bias to be 1-dimensional with "
                           f"{cout} elements, but got bias of size {_shape(bias._data.shape)} instead")
    check_conv_dtypes(input, weight, bias)


def _conv_transpose(nsp, input, weight, bias, stride, padding, output_padding, groups, dilation):
    """conv_transpose{nsp}d after PyTorch's rank check: expand, check, compute the output size, apply."""
    nd = input._data.ndim
    if nd not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to conv_transpose{nsp}d, "
                           f"but got input of size: {_shape(input._data.shape)}")
    if nd == nsp + 1:
        return _conv_transpose(nsp, input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                               dilation).squeeze(0)
    if isinstance(padding, str):
        raise TypeError(f"conv_transpose{nsp}d(): argument 'padding' must be tuple of ints, not str")
    s, p, op, d = (_ntuple(v, nsp) for v in (stride, padding, output_padding, dilation))
    _check_transpose_args(input, weight, bias, s, p, op, d, int(groups))
    k, size = weight._data.shape[2:], input._data.shape[2:]
    out = tuple((size[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(nsp))
    if min(out) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). Calculated output size per "
                           f"channel: ({' x '.join(map(str, out))}). Output size is too small")
    return ConvolutionBackward0.apply(input, weight, bias, s, p, d, int(groups), out)


@register(category="nn")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-D convolution of [N, C_in, L] (or unbatched [C_in, L]) input with weight
    [C_in, C_out/groups, k] (ConvolutionBackward0)."""
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register(category="nn")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution ("deconvolution") of [N, C_in, H, W] (or unbatched [C_in, H, W]) input with
    weight [C_in, C_out/groups, kh, kw] (ConvolutionBackward0)."""
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register(category="nn")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 3-D convolution of [N, C_in, D, H, W] (or unbatched [C_in, D, H, W]) input with weight
    [C_in, C_out/groups, kd, kh, kw] (ConvolutionBackward0)."""
    return _conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)
