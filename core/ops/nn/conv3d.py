"""conv3d: N-D im2col + one batched matmul (ConvolutionBackward0, as PyTorch), arguments checked in
PyTorch's order (input rank, 'same' with strides, groups, padding, stride, dilation, weight, channels, bias)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor
from ..registry import register
from ._util import _alloc, _shape, check_conv_dtypes
from .conv import _expand_param
from .im2col import Col2ImNdBackward0, Im2ColNdBackward0, _col2im_nd, _im2col_nd


class ConvolutionBackward0(Op):
    """N-D convolution: columns of every window, then one matmul per group; backward is col2im of W^T g
    (input) and g @ columns^T (weight)."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, s, lo, d, groups, nwin):
        x, w = input._data, weight._data
        n, o, k = x.shape[0], w.shape[0], tuple(w.shape[2:])
        kk, L = w.shape[1] * int(np.prod(k)), int(np.prod(nwin))
        _alloc((n, o) + tuple(nwin), input.dtype)
        cols = _im2col_nd(x, k, d, lo, s, nwin)
        out = np.matmul(w.reshape(groups, o // groups, kk), cols.reshape(n, groups, kk, L)).reshape((n, o) + nwin)
        if bias is not None:
            out += bias._data.reshape((o,) + (1,) * len(k))
        ctx.save_for_backward(input, weight)
        ctx.meta = (s, lo, d, groups, nwin, bias is not None)
        return out

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        s, lo, d, groups, nwin, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, c = input.shape[:2]
        o, k = weight.shape[0], tuple(weight.shape[2:])
        kk, L = weight.shape[1] * int(np.prod(k)), int(np.prod(nwin))
        gm = g.reshape(n, groups, o // groups, L)
        gi = gw = gb = None
        if need[0]:
            gcols = weight.reshape(groups, o // groups, kk).transpose(1, 2).matmul(gm).reshape(n, groups * kk, L)
            gi = Col2ImNdBackward0.apply(gcols, c, tuple(input.shape[2:]), k, d, lo, s, nwin)
        if need[1]:
            cols = Im2ColNdBackward0.apply(input, k, d, lo, s, nwin).reshape(n, groups, kk, L)
            gw = gm.matmul(cols.transpose(2, 3)).sum(0).reshape(weight.shape)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0,) + tuple(range(2, g.dim())))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        input, weight = ctx.saved_tensors
        s, lo, d, groups, nwin, has_bias = ctx.meta
        need = ctx.needs_input_grad
        x, w = input._data, weight._data
        n, c = x.shape[:2]
        o, k = w.shape[0], tuple(w.shape[2:])
        kk, L = w.shape[1] * int(np.prod(k)), int(np.prod(nwin))
        gm = g.reshape(n, groups, o // groups, L)
        gi = gw = gb = None
        if need[0]:
            gcols = np.matmul(w.reshape(groups, o // groups, kk).transpose(0, 2, 1), gm).reshape(n, groups * kk, L)
            gi = _col2im_nd(gcols, c, x.shape[2:], k, d, lo, s, nwin)
        if need[1]:
            cols = _im2col_nd(x, k, d, lo, s, nwin).reshape(n, groups, kk, L)
            gw = np.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(0).reshape(w.shape)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0,) + tuple(range(2, g.ndim)))
        return gi, gw, gb


def _conv_nd_checks(input, weight, bias, stride, padding, dilation, groups):
    """PyTorch's convolution checks after the parameters are expanded; returns the leading pads."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(v <= 0 for v in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v <= 0 for v in dilation):
        raise RuntimeError("dilation should be greater than zero")
    ws, xs = weight._data.shape, input._data.shape
    if len(ws) != len(xs):
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_shape(ws)}, but "
                           f"got {len(xs)}-dimensional input of size {_shape(xs)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_shape(ws)} instead")
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size {_shape(ws)} instead")
    if xs[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape(ws)}, expected input{_shape(xs)} to have "
                           f"{ws[1] * groups} channels, but got {xs[1]} channels instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_shape(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_shape(bias._data.shape)} instead")
    nsp = len(ws) - 2
    ek = [dilation[i] * (ws[2 + i] - 1) + 1 for i in range(nsp)]
    if isinstance(padding, str):
        lo = tuple((ek[i] - 1) // 2 if padding == "same" else 0 for i in range(nsp))
        tot = tuple(ek[i] - 1 if padding == "same" else 0 for i in range(nsp))
    else:
        lo, tot = tuple(padding), tuple(2 * p for p in padding)
    padded = [xs[2 + i] + tot[i] for i in range(nsp)]
    if any(padded[i] < ek[i] for i in range(nsp)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, ek))}). Kernel size can't be greater than actual input size")
    check_conv_dtypes(input, weight, bias)
    nwin = tuple((padded[i] - ek[i]) // stride[i] + 1 for i in range(nsp))
    return lo, nwin


def _same_checks(input, weight, stride, groups):
    """PyTorch's _convolution_same checks (before any parameter is expanded)."""
    ws, xs = weight._data.shape, input._data.shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if len(ws) != len(xs):
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight{_shape(ws)}, but "
                           f"got {len(xs)}-dimensional input of size {_shape(xs)} instead")
    if len(stride) not in (1, len(ws) - 2):
        raise RuntimeError(f"stride cannot broadcast to {len(ws) - 2} dimensions")
    if any(v != 1 for v in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")


def _three(v):
    """An int argument as PyTorch's parser expands it for conv3d (IntArrayRef[3])."""
    return (int(v),) * 3 if isinstance(v, (int, np.integer)) else v


@register(category="nn")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation of input [N, C, D, H, W] (or unbatched [C, D, H, W]) with weight
    [O, C/groups, kd, kh, kw] (ConvolutionBackward0); padding may be an int, a triple, 'valid' or 'same'."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"conv3d(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    nd = input._data.ndim
    if nd not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{_shape(input._data.shape)}")
    if nd == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if isinstance(padding, str) and padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if padding == "same":
        _same_checks(input, weight, _three(stride), int(groups))
    kdims = weight._data.ndim - 2
    stride = _expand_param("stride", _three(stride), kdims)
    dilation = _expand_param("dilation", _three(dilation), kdims)
    if not isinstance(padding, str):
        padding = _expand_param("padding", _three(padding), kdims)
    lo, nwin = _conv_nd_checks(input, weight, bias, stride, padding, dilation, int(groups))
    return ConvolutionBackward0.apply(input, weight, bias, stride, lo, dilation, int(groups), nwin)
