"""conv_transpose2d: the adjoint of conv2d with respect to its input (weight [C_in, C_out/groups, kh, kw]):
one batched matmul W^T x into columns, then col2im onto the (H-1)*s - 2p + d*(k-1) + output_padding + 1
output; grad_fn ConvolutionBackward0, as in PyTorch."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _pair, _shape
from .conv import _check_dtypes
from .im2col import Im2ColBackward0, _col2im_np, _im2col_np


class ConvolutionBackward0(Op):
    """Transposed 2-D convolution; groups split C_in (input) and C_out (output) alike."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, out_hw):
        x, w = input._data, weight._data
        n, cin, h, wd = x.shape
        _, cout_g, kh, kw = w.shape
        kk = cout_g * kh * kw
        pads = (padding[0], padding[0], padding[1], padding[1])
        _alloc((n, cout_g * groups * kh * kw, h * wd), input.dtype)
        cols = np.matmul(w.reshape(groups, cin // groups, kk).transpose(0, 2, 1),
                         x.reshape(n, groups, cin // groups, h * wd)).reshape(n, groups * kk, h * wd)
        out = _col2im_np(cols, cout_g * groups, out_hw[0], out_hw[1], (kh, kw), dilation, pads, stride)
        if bias is not None:
            out += bias._data.reshape(-1, 1, 1)
        ctx.save_for_backward(input, weight)
        ctx.meta = (stride, pads, dilation, groups, bias is not None)
        return out

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, cin, h, w = input.shape
        _, cout_g, kh, kw = weight.shape
        kk = cout_g * kh * kw
        gcols = Im2ColBackward0.apply(g, (kh, kw), dilation, pads, stride).reshape(n, groups, kk, h * w)
        gi = gw = gb = None
        if need[0]:
            gi = weight.reshape(groups, cin // groups, kk).matmul(gcols).reshape(n, cin, h, w)
        if need[1]:
            xg = input.reshape(n, groups, cin // groups, h * w)
            gw = xg.matmul(gcols.transpose(2, 3)).sum(0).reshape(cin, cout_g, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        input, weight = ctx.saved_tensors
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        x, w = input._data, weight._data
        n, cin, h, wd = x.shape
        _, cout_g, kh, kw = w.shape
        kk = cout_g * kh * kw
        gcols = _im2col_np(g, (kh, kw), dilation, pads, stride)[0].reshape(n, groups, kk, h * wd)
        gi = gw = gb = None
        if need[0]:
            gi = np.matmul(w.reshape(groups, cin // groups, kk), gcols).reshape(n, cin, h, wd)
        if need[1]:
            xg = x.reshape(n, groups, cin // groups, h * wd)
            gw = np.matmul(xg, gcols.transpose(0, 1, 3, 2)).sum(0).reshape(cin, cout_g, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb


def _check_transpose_args(input, weight, bias, s, p, op, d, groups):
    ws = weight._data.shape
    if len(ws) != 4:
        raise RuntimeError(f"Expected 4-dimensional input for 4-dimensional weight {_shape(ws)}, but got "
                           f"{input._data.ndim}-dimensional input of size {_shape(input._data.shape)} instead")
    if min(s) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(d) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if min(p) < 0:
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(op[i] >= s[i] and op[i] >= d[i] for i in range(2)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: {s[0]} "
                           f"stride_width: {s[1]} dilation_height: {d[0]} dilation_width: {d[1]}")
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape(ws)}] instead")
    c = input._data.shape[1]
    if c != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_shape(ws)}, expected input"
                           f"{_shape(input._data.shape)} to have {ws[0]} channels, but got {c} channels instead")
    cout = ws[1] * groups
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != cout):
        raise RuntimeError(f"Given transposed=1, weight of size {_shape(ws)}, expected bias to be 1-dimensional with "
                           f"{cout} elements, but got bias of size {_shape(bias._data.shape)} instead")


@register(category="nn", cli=True,
          cli_params={"stride": "ints", "padding": "ints", "output_padding": "ints", "dilation": "ints"},
          cli_example="tensorcli conv-transpose2d '[[[[1.0,2],[3,4]]]]' --weight '[[[[1.0,0],[0,-1]]]]' --stride 2")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution ("deconvolution") of [N, C_in, H, W] (or unbatched [C_in, H, W]) input with
    weight [C_in, C_out/groups, kh, kw] (ConvolutionBackward0)."""
    nd = input._data.ndim
    if nd not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of "
                           f"size: {_shape(input._data.shape)}")
    if nd == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    s, p, op, d = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    _check_transpose_args(input, weight, bias, s, p, op, d, groups)
    _check_dtypes(input, weight, bias)
    if any(op[i] >= s[i] for i in range(2)):   # allowed by torch when below the dilation
        raise NotImplementedError("conv_transpose2d: output_padding >= stride (with a larger dilation) is not "
                                  "supported by core yet")
    k = weight._data.shape[2:]
    h, w = input._data.shape[2:]
    out_hw = tuple(((h, w)[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(2))
    if min(out_hw) <= 0:
        raise RuntimeError(f"Given input size per channel: ({h} x {w}). Calculated output size per channel: "
                           f"({out_hw[0]} x {out_hw[1]}). Output size is too small")
    return ConvolutionBackward0.apply(input, weight, bias, s, p, d, int(groups), out_hw)
