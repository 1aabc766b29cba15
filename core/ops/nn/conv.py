"""conv2d: im2col + one batched matmul (ConvolutionBackward0); arguments bound like PyTorch's parser."""
from __future__ import annotations

import inspect

import numpy as np

from ...tensor import Size, Tensor
from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _cpp_name, _shape, _short, check_conv_dtypes
from .im2col import Col2ImBackward0, Im2ColBackward0, _col2im_np, _conv_input_grad_s1, _im2col_np


class ConvolutionBackward0(Op):
    """2-D convolution as im2col + one batched matmul; groups split the channel axis."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, stride, pads, dilation, groups):
        x, w = input._data, weight._data
        ctx.one_d = x.ndim == 3   # conv1d: a 2-D convolution over a unit height (params already 2-D)
        if ctx.one_d:
            x, w = x[:, :, None], w[:, :, None]
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        k = (kh, kw)
        cols, oh, ow = _im2col_np(x, k, dilation, pads, stride)
        _alloc((n, o, oh, ow), input.dtype)
        kk = cg * kh * kw
        if groups == 1:
            out = np.matmul(w.reshape(o, kk), cols)
        else:
            out = np.matmul(w.reshape(groups, o // groups, kk), cols.reshape(n, groups, kk, oh * ow))
        out = out.reshape(n, o, oh, ow)
        if bias is not None:
            out += bias._data.reshape(o, 1, 1)
        ctx.save_for_backward(input, weight)
        ctx.meta = (stride, pads, dilation, groups, bias is not None)
        return out[:, :, 0] if ctx.one_d else out

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        if ctx.one_d:
            gi, gw, gb = ConvolutionBackward0._grads(ctx, g.unsqueeze(2), input.unsqueeze(2), weight.unsqueeze(2))
            return (None if gi is None else gi.squeeze(2)), (None if gw is None else gw.squeeze(2)), gb
        return ConvolutionBackward0._grads(ctx, g, input, weight)

    @staticmethod
    def _grads(ctx, g, input, weight):
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, c, h, w = input.shape
        o, cg, kh, kw = weight.shape
        k = (kh, kw)
        oh, ow = g.shape[2], g.shape[3]
        kk = cg * kh * kw
        gm = g.reshape(n, groups, o // groups, oh * ow)
        gi = gw = gb = None
        if need[0]:
            wt = weight.reshape(groups, o // groups, kk).transpose(1, 2)
            gcols = wt.matmul(gm).reshape(n, groups * kk, oh * ow)
            gi = Col2ImBackward0.apply(gcols, c, (h, w), k, dilation, pads, stride)
        if need[1]:
            cols = Im2ColBackward0.apply(input, k, dilation, pads, stride).reshape(n, groups, kk, oh * ow)
            gw = gm.matmul(cols.transpose(2, 3)).sum(0).reshape(o, cg, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        input, weight = ctx.saved_tensors
        x, w = input._data, weight._data
        if ctx.one_d:
            gi, gw, gb = ConvolutionBackward0._grads_np(ctx, g[:, :, None], x[:, :, None], w[:, :, None])
            return (None if gi is None else gi[:, :, 0]), (None if gw is None else gw[:, :, 0]), gb
        return ConvolutionBackward0._grads_np(ctx, g, x, w)

    @staticmethod
    def _grads_np(ctx, g, x, w):
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        k = (kh, kw)
        oh, ow = g.shape[2], g.shape[3]
        kk, og, L = cg * kh * kw, o // groups, oh * ow
        gi = gw = gb = None
        if groups == 1:
            gm = g.reshape(n, o, L)
            if need[0]:
                if stride == (1, 1):
                    gi = _conv_input_grad_s1(g, w, c, h, wd, dilation, pads)
                else:
                    gi = _col2im_np(np.matmul(w.reshape(o, kk).T, gm), c, h, wd, k, dilation, pads, stride)
            if need[1]:
                cols = _im2col_np(x, k, dilation, pads, stride)[0]
                gw = (gm[0] @ cols[0].T if n == 1 else np.tensordot(gm, cols, axes=([0, 2], [0, 2])))
                gw = gw.reshape(o, cg, kh, kw)
        else:
            gm = g.reshape(n, groups, og, L)
            if need[0]:
                gcols = np.matmul(w.reshape(groups, og, kk).transpose(0, 2, 1), gm).reshape(n, groups * kk, L)
                gi = _col2im_np(gcols, c, h, wd, k, dilation, pads, stride)
            if need[1]:
                cols = _im2col_np(x, k, dilation, pads, stride)[0].reshape(n, groups, kk, L)
                gw = np.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(0).reshape(o, cg, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb


_CONV_SIGNATURES = (
    "conv2d() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, "
    "tuple of ints dilation = 1, int groups = 1)\n"
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", "
    "tuple of ints dilation = 1, int groups = 1)\n")


def _argtype(a):
    if isinstance(a, Tensor):
        return type(a).__name__   # 'Tensor' or 'Parameter', as PyTorch's argument parser prints
    if isinstance(a, (tuple, list)):
        return f"{type(a).__name__} of ({', '.join(_argtype(x) for x in a)})"
    return type(a).__name__


def _int_or_ints(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (tuple, list, Size)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                      for x in v)


def _conv2d_impl(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d's signature (conv2d binds its arguments by hand to report them like PyTorch's parser)."""


def _expand_param(name, v, k):
    vals = [int(v)] * 2 if isinstance(v, (int, np.integer)) else [int(x) for x in v]
    if len(vals) == 1:
        vals = vals * k
    if len(vals) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} values to match the "
                           f"convolution dimensions, but got {name}=[{', '.join(map(str, vals))}]")
    return tuple(vals)


@register(category="nn")
def conv2d(*args, **kwargs):
    """2-D cross-correlation of input [N, C, H, W] (or unbatched [C, H, W]) with weight [O, C/groups, kh, kw]
    (ConvolutionBackward0); padding may be an int, a pair, 'valid' or 'same'."""
    vals = dict(zip(_CONV_NAMES, args))
    for k, v in kwargs.items():
        if k in vals or k not in _CONV_DEFAULTS:
            raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
        vals[k] = v
    if len(args) > len(_CONV_NAMES) or "input" not in vals or "weight" not in vals:
        raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
    input, weight, bias, stride, padding, dilation, groups = (vals.get(k, _CONV_DEFAULTS[k]) for k in _CONV_NAMES)
    ok = (isinstance(input, Tensor) and isinstance(weight, Tensor) and (bias is None or isinstance(bias, Tensor))
          and _int_or_ints(stride) and (_int_or_ints(padding) or isinstance(padding, str)) and _int_or_ints(dilation)
          and isinstance(groups, (int, np.integer)) and not isinstance(groups, bool))
    if not ok:
        raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
    nd = input._data.ndim
    if nd not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{_shape(input._data.shape)}")
    if nd == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    kdims = weight._data.ndim - 2
    stride = _expand_param("stride", stride, kdims)
    dilation = _expand_param("dilation", dilation, kdims)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _expand_param("padding", padding, kdims)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(x <= 0 for x in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws = weight._data.shape
    if kdims != 2:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {kdims} values to match the "
                           f"convolution dimensions, but got stride=[{', '.join(map(str, stride))}]")
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape(ws)}] instead")
    c = input._data.shape[1]
    if c != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape(ws)}, expected input"
                           f"{_shape(input._data.shape)} to have {ws[1] * groups} channels, but got {c} channels "
                           "instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_shape(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_shape(bias._data.shape)} instead")
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        else:
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            tot = [dilation[i] * (ws[2 + i] - 1) for i in range(2)]
            pads = (tot[0] // 2, tot[0] - tot[0] // 2, tot[1] // 2, tot[1] - tot[1] // 2)
    else:
        pads = (padding[0], padding[0], padding[1], padding[1])
    h, w = input._data.shape[2:]
    ph, pw = h + pads[0] + pads[1], w + pads[2] + pads[3]
    ekh, ekw = dilation[0] * (ws[2] - 1) + 1, dilation[1] * (ws[3] - 1) + 1
    if ph < ekh or pw < ekw:
        raise RuntimeError(f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({ekh} x {ekw}). "
                           "Kernel size can't be greater than actual input size")
    check_conv_dtypes(input, weight, bias)
    return ConvolutionBackward0.apply(input, weight, bias, stride, pads, dilation, int(groups))


_CONV_SIG = inspect.signature(_conv2d_impl)
_CONV_NAMES = tuple(_CONV_SIG.parameters)
_CONV_DEFAULTS = {k: (None if p.default is inspect.Parameter.empty else p.default)
                  for k, p in _CONV_SIG.parameters.items()}
conv2d.__signature__ = _CONV_SIG


def _got(args, kwargs):
    return ", ".join([_argtype(a) for a in args] + [f"{k}={_argtype(v)}" for k, v in kwargs.items()])


def _expand_1d(name, v):
    return (int(v),) if isinstance(v, (int, np.integer)) else _expand_param(name, v, 1)


def _conv1d_padding(padding, stride, dilation, k):
    """(left, right) padding of a 1-D convolution from an int/list or 'valid'/'same'."""
    if not isinstance(padding, str):
        (p,) = _expand_1d("padding", padding)
        if p < 0:
            raise RuntimeError("negative padding is not supported")
        return p, p
    if padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if padding == "valid":
        return 0, 0
    if stride != 1:
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = dilation * (k - 1)
    return total // 2, total - total // 2


@register(category="nn")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of input [N, C, L] (or unbatched [C, L]) with weight [O, C/groups, k]
    (ConvolutionBackward0); padding may be an int, 'valid' or 'same'."""
    nd = input._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{_shape(input._data.shape)}")
    if nd == 2:
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    ws = weight._data.shape
    if len(ws) != 3:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_shape(ws)}, but "
                           f"got 3-dimensional input of size {_shape(input._data.shape)} instead")
    (s,), (d,) = _expand_1d("stride", stride), _expand_1d("dilation", dilation)
    if s <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if d <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    pl, pr = _conv1d_padding(padding, s, d, ws[2])
    _check_channels_and_bias(input, weight, bias, groups)
    padded, ek = input._data.shape[2] + pl + pr, d * (ws[2] - 1) + 1
    if padded < ek:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel size: ({ek}). Kernel size "
                           "can't be greater than actual input size")
    _check_dtypes(input, weight, bias)
    return ConvolutionBackward0.apply(input, weight, bias, (1, s), (0, 0, pl, pr), (1, d), int(groups))


def _check_channels_and_bias(input, weight, bias, groups):
    ws = weight._data.shape
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape(ws)}] instead")
    c = input._data.shape[1]
    if c != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape(ws)}, expected input"
                           f"{_shape(input._data.shape)} to have {ws[1] * groups} channels, but got {c} channels "
                           "instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_shape(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_shape(bias._data.shape)} instead")


def _check_dtypes(input, weight, bias):
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {_short(input.dtype)} but found {_short(weight.dtype)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_cpp_name(input.dtype)}) and bias type ({_cpp_name(bias.dtype)}) should "
                           "be the same")
