"""binary_cross_entropy_with_logits (BinaryCrossEntropyWithLogitsBackward0) and its torch.* twin, bit for bit with
ATen: log_sigmoid's and sigmoid's CPU kernels (nn/_sigmoid_kernels.py) in Loss.cpp's and FunctionsManual.cpp's order."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import export, register
from . import _sigmoid_kernels
from ._util import _reduce_np, _reduction, _short, _torch_name

_SLEEF = (np.dtype(np.float32), np.dtype(np.float64))
_REDUCTION_ENUM = ("none", "mean", "sum")


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """binary_cross_entropy_with_logits (Loss.cpp): ls = log_sigmoid(x) (ATen's kernel, nn/_sigmoid_kernels.py),
    times (pos_weight - 1) * t + 1 when pos_weight is given, loss = (1 - t) * x - ls, times weight, reduced."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        x, t = input._data, target._data
        with np.errstate(all="ignore"):
            if x.dtype in _SLEEF and t.dtype == x.dtype:
                ls = _sigmoid_kernels.log_sigmoid(x)[0]
            else:
                ls = (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)
            if pos_weight is not None:
                ls = ls * ((pos_weight._data - 1) * t + 1)
            # (1 - target).mul_(input).sub_(ls), then mul_(weight): in place, so the loss keeps the layout of
            # (1 - target) * input (the sum's order follows it), whatever log_sigmoid's (contiguous) output has
            loss = (1 - t) * x
            if loss.dtype == x.dtype and loss.shape == np.broadcast_shapes(loss.shape, ls.shape):
                loss -= ls
                if weight is not None and loss.shape == np.broadcast_shapes(loss.shape, weight._data.shape):
                    loss *= weight._data
                elif weight is not None:
                    loss = loss * weight._data
            else:
                loss = loss - ls
                if weight is not None:
                    loss = loss * weight._data
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.reduction = reduction
        return _reduce_np(loss.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, g):
        """binary_cross_entropy_with_logits_backward / _target_backward (FunctionsManual.cpp), differentiable."""
        x, t, w, pw = ctx.saved_tensors
        need = ctx.needs_input_grad
        n = x.numel()
        gi = gt = None
        if need[0]:
            gi = (x.sigmoid() - t) * g if pw is None else ((pw * t + 1 - t) * x.sigmoid() - pw * t) * g
            gi = gi * w if w is not None else gi
            gi = gi / n if ctx.reduction == "mean" else gi
        if len(need) > 1 and need[1]:
            gt = -x * g if pw is None else (_log_sigmoid(-x) - _log_sigmoid(x) * pw) * g
            gt = gt * w if w is not None else gt
            gt = gt / n if ctx.reduction == "mean" else gt
        return gi, gt, None, None, None

    @staticmethod
    def backward_np(ctx, g):
        """The same formulas in ATen's order on arrays, sigmoid and log_sigmoid as ATen's kernels compute them."""
        x, t, w, pw = (None if v is None else v._data for v in ctx.saved_tensors)
        need = ctx.needs_input_grad
        exact = x.dtype in _SLEEF and t.dtype == x.dtype and g.dtype == x.dtype
        n = x.dtype.type(x.size)
        gi = gt = None
        with np.errstate(all="ignore"):
            if need[0]:
                sig = _sigmoid_kernels.sigmoid(x) if exact else 1 / (1 + np.exp(-x))
                if pw is None:
                    gi = (sig - t) * g
                else:
                    pt = pw * t
                    gi = (((pt + 1) - t) * sig - pt) * g
                gi = gi * w if w is not None else gi
                gi = gi / n if ctx.reduction == "mean" else gi
            if len(need) > 1 and need[1]:
                if pw is None:
                    gt = np.negative(x) * g
                else:
                    lsp = _sigmoid_kernels.log_sigmoid(x)[0] if exact else _log_sigmoid_np(x)
                    lsn = _sigmoid_kernels.log_sigmoid(np.negative(x))[0] if exact else _log_sigmoid_np(-x)
                    gt = (lsn - lsp * pw) * g
                gt = gt * w if w is not None else gt
                gt = gt / n if ctx.reduction == "mean" else gt
        return gi, gt, None, None, None


def _log_sigmoid_np(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _log_sigmoid(x):
    """log(sigmoid(x)) with core ops (min(x, 0) - log1p(exp(-|x|))), differentiable twice."""
    return x.clamp_max(0) - (-x.abs()).exp().log1p()


@register(category="nn", function=False)
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Sigmoid + binary cross entropy in one numerically stable op (BinaryCrossEntropyWithLogitsBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{_short(input.dtype)}'")
    return BinaryCrossEntropyWithLogitsBackward0.apply(input, target, weight, pos_weight, reduction)


@export(name="binary_cross_entropy_with_logits")
@_torch_name
def torch_binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """torch.binary_cross_entropy_with_logits: reduction as an enum (0 none, 1 mean, 2 sum); omitted, torch 2.13's
    binding gives 0 (unreduced), whatever ATen's schema default says."""
    return binary_cross_entropy_with_logits(input, target, weight, reduction=_REDUCTION_ENUM[reduction],
                                            pos_weight=pos_weight)
