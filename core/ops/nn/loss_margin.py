"""Margin losses with ATen kernels of their own: soft_margin_loss (SoftMarginLossBackward0),
multi_margin_loss (MultiMarginLossBackward0) and multilabel_margin_loss (MultilabelMarginLossBackward0).
Sums accumulate in double as ATen's CPU kernels do (acc_type), then round to the input's dtype."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ..pointwise import _broadcast_error
from ..registry import register
from ._util import _reduce_np, _reduction, _shape, _short


def _not_differentiable(fn, name, t):
    """ATen's check for an argument derivatives.yaml marks non-differentiable."""
    if t is not None and t._requires_grad and STATE.grad_enabled:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{name}'. This input "
                           "cannot have requires_grad True.")


def _float_only(input, kernel):
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")


# -- soft_margin_loss ---------------------------------------------------------------------------------

class SoftMarginLossBackward0(Op):
    """log(1 + exp(-target * input)), reduced."""

    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        x, t = input._data, target._data
        with np.errstate(over="ignore"):
            loss = np.log1p(np.exp(-x * t)).astype(np.result_type(x, t), copy=False)
        ctx.numel = loss.size
        return _reduce_np(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        norm = 1.0 / ctx.numel if ctx.reduction == "mean" else 1.0
        z = (-(t * x)).exp()
        return (z / (1 + z)) * g * (-norm) * t, None


@register(category="nn", function=False)
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """mean/sum of log(1 + exp(-target * input)) (SoftMarginLossBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    try:
        np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        raise _broadcast_error(input._data, target._data) from None
    _not_differentiable("soft_margin_loss", "target", target)
    return SoftMarginLossBackward0.apply(input, target, reduction)


# -- multi_margin_loss --------------------------------------------------------------------------------

def _frames(input):
    x = input._data
    if x.ndim <= 1:
        return x.reshape(1, -1)
    return x


def _multi_margin_terms(x2, t, p, margin, w):
    """Per-element hinge terms h[n, d] (zero at the target class) and z > 0 mask, in double."""
    xd = x2.astype(np.float64)
    xt = np.take_along_axis(xd, t[:, None], 1)
    z = margin - xt + xd
    pos = z > 0
    not_target = np.ones(xd.shape, bool)
    np.put_along_axis(not_target, t[:, None], False, 1)
    pos &= not_target
    h = np.where(pos, z if p == 1 else z * z, 0.0)
    if w is not None:
        h = h * w.astype(np.float64)[t][:, None]
    return h, z, pos


class MultiMarginLossBackward0(Op):
    """sum over d != y of max(0, margin - x[y] + x[d])**p (times weight[y]) / C, per sample, reduced."""

    @staticmethod
    def forward(ctx, input, target, p, margin, weight, reduction):
        x2 = _frames(input)
        t = target._data.reshape(-1).astype(np.int64)
        n, c = x2.shape
        if ((t < 0) | (t >= c)).any():
            raise RuntimeError("target out of range")
        w = None if weight is None else weight._data.reshape(-1)
        ctx.save_for_backward(input)
        h, z, pos = _multi_margin_terms(x2, t, p, margin, w)
        per = h.sum(1) / c
        ctx.saved = (z, pos, t, w, input._data.shape, (n, c), p, reduction)
        dt = input._data.dtype
        if reduction == "none":
            return per.astype(dt).reshape(target._data.shape if input._data.ndim > 1 or target._data.ndim else ())
        s = per.sum()
        return np.asarray(s / n if reduction == "mean" else s, dtype=dt)

    @staticmethod
    def backward(ctx, g):
        z, pos, t, w, shape, (n, c), p, reduction = ctx.saved
        scale = 1.0 / (n * c) if reduction == "mean" else 1.0 / c
        h = np.where(pos, scale if p == 1 else 2 * scale * z, 0.0)
        if w is not None:
            h = h * w.astype(np.float64)[t][:, None]
        np.put_along_axis(h, t[:, None], -h.sum(1, keepdims=True), 1)
        gg = g.reshape(n, 1) if reduction == "none" else g
        return _NotImplementedBackward.apply(gg, ctx.saved_tensors[0], h, shape, "multi_margin_loss_backward"), \
            None, None


class _NotImplementedBackward(Op):
    """The margin losses' backward kernels (grad * coef): torch registers no derivative for them, so a gradient
    built with create_graph has this node (torch::autograd::NotImplemented), whose backward raises."""

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, g, input, coef, shape, kernel):
        ctx.kernel = kernel
        return (coef.astype(g._data.dtype) * g._data).reshape(shape)

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError(f"derivative for aten::{ctx.kernel} is not implemented")


def _multi_margin_checks(input, target, weight):
    nd = input._data.ndim
    shp = input._data.shape
    if not ((nd == 2 and shp[1] != 0) or (nd == 1 and shp[0] != 0) or nd == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{_shape(shp)}")
    nframe, dim = (1, 1 if nd == 0 else shp[0]) if nd <= 1 else shp[:2]
    if not (target._data.ndim <= 1 and target._data.size == nframe):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got "
                           f"{_shape(target._data.shape)}. Input has shape {_shape(shp)}.")
    if weight is not None and not (weight._data.ndim <= 1 and weight._data.size == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {_shape(weight._data.shape)}")


@register(category="nn", function=False)
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-class hinge loss: sum over d != y of max(0, margin - x[y] + x[d])**p / C (MultiMarginLossBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _multi_margin_checks(input, target, weight)
    _float_only(input, "multi_margin_loss_cpu_kernel")
    _not_differentiable("multi_margin_loss", "weight", weight)
    return MultiMarginLossBackward0.apply(input, target, p, margin, weight, reduction)


# -- multilabel_margin_loss ---------------------------------------------------------------------------

def _multilabel_parts(x2, t2):
    """Target classes per frame (up to the first negative entry) as a bool mask [N, C, C]-free form:
    (valid [N, C] over target slots, is_target [N, C] over classes)."""
    n, c = x2.shape
    neg = t2 < 0
    valid = ~np.logical_or.accumulate(neg, axis=1)
    if (valid & (t2 >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    idx = np.where(valid, t2, 0)
    is_target = np.zeros((n, c), bool)
    rows = np.repeat(np.arange(n), c).reshape(n, c)
    is_target[rows[valid], idx[valid]] = True
    return valid, idx, is_target


class MultilabelMarginLossBackward0(Op):
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C, per sample."""

    @staticmethod
    def forward(ctx, input, target, reduction):
        x2 = _frames(input).astype(np.float64)
        t2 = target._data.reshape(x2.shape).astype(np.int64)
        n, c = x2.shape
        valid, idx, is_target = _multilabel_parts(x2, t2)
        xt = np.take_along_axis(x2, idx, 1)                       # [N, slots]
        z = 1 - xt[:, :, None] + x2[:, None, :]                  # [N, slots, C]
        act = (z > 0) & valid[:, :, None] & ~is_target[:, None, :]
        per = np.where(act, z, 0.0).sum((1, 2)) / c
        ctx.save_for_backward(input)
        ctx.saved = (act, idx, input._data.shape, (n, c), reduction)
        dt = input._data.dtype
        if reduction == "none":
            return per.astype(dt).reshape((n,) if input._data.ndim == 2 else ())
        s = per.sum()
        return np.asarray(s / n if reduction == "mean" else s, dtype=dt)

    @staticmethod
    def backward(ctx, g):
        act, idx, shape, (n, c), reduction = ctx.saved
        scale = 1.0 / (n * c) if reduction == "mean" else 1.0 / c
        a = act.astype(np.float64) * scale
        grad = a.sum(1)                                           # +g at each non-target class i
        np.add.at(grad, (np.arange(n)[:, None], idx), -a.sum(2))  # -g at the target class j
        gg = g.reshape(n, 1) if reduction == "none" else g
        return _NotImplementedBackward.apply(gg, ctx.saved_tensors[0], grad, shape, "multilabel_margin_loss_backward"), \
            None


@register(category="nn", function=False)
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss over the target classes listed (up to the first -1) in target
    (MultilabelMarginLossBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    nd, shp, ts = input._data.ndim, input._data.shape, target._data.shape
    if not ((nd == 2 and shp[1] != 0) or (nd == 1 and shp[0] != 0) or nd == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{_shape(shp)}")
    if nd <= 1:
        dim = 1 if nd == 0 else shp[0]
        ok = len(ts) <= 1 and target._data.size == dim
    else:
        ok = len(ts) == 2 and tuple(ts) == tuple(shp)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {_shape(ts)} for input of size: {_shape(shp)}")
    _float_only(input, "multilabel_margin_loss_forward_out_frame")
    return MultilabelMarginLossBackward0.apply(input, target, reduction)
