"""Losses PyTorch writes as compositions of other ops (ATen's Loss.cpp or torch/nn/functional.py):
margin_ranking, hinge_embedding, cosine_embedding, triplet_margin (+ with_distance), poisson_nll,
gaussian_nll, multilabel_soft_margin. The same op sequence as torch, so the same values, grad_fn
names (MeanBackward0, SumBackward0, ...) and gradients."""
from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ..pointwise import where
from ..registry import export, register
from ._util import _reduction, _torch_name
from .activation import logsigmoid
from .distance import pairwise_distance

_ENUM = ("none", "mean", "sum")


def _apply_reduction(loss, reduction):
    """ATen's apply_loss_reduction: loss.mean() / loss.sum() / loss."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _enum(reduction):
    """torch.<loss>(..., reduction: int) takes the enum: 0 none, 1 mean, 2 sum."""
    return _ENUM[reduction]


@register(category="nn", function=False)
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), reduced (a composite)."""
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _margin_ranking(input1, input2, target, margin, reduction)


def _margin_ranking(input1, input2, target, margin, reduction):
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@export(name="margin_ranking_loss")
@_torch_name
def torch_margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """torch.margin_ranking_loss(input1, input2, target, margin, reduction: int)
    Omitted, reduction is 0 (unreduced), as torch 2.13's binding gives it."""
    return _margin_ranking(input1, input2, target, margin, _enum(reduction))


@register(category="nn", function=False)
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where target is 1, max(0, margin - x) where target is -1, reduced (a composite)."""
    return _hinge_embedding(input, target, margin, _reduction(reduction, size_average, reduce))


def _hinge_embedding(input, target, margin, reduction):
    zeros = input.new_zeros(input.shape)
    margin_clamp = (margin - input).clamp_min(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _apply_reduction(output, reduction)


@export(name="hinge_embedding_loss")
@_torch_name
def torch_hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """torch.hinge_embedding_loss(input, target, margin, reduction: int)
    Omitted, reduction is 0 (unreduced), as torch 2.13's binding gives it."""
    return _hinge_embedding(input, target, margin, _enum(reduction))


@register(category="nn", function=False)
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos - margin) where target is -1, reduced (a composite)."""
    return _cosine_embedding(input1, input2, target, margin, _reduction(reduction, size_average, reduce))


def _cosine_embedding(input1, input2, target, margin, reduction):
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        s1, s2 = list(input1.shape), list(input2.shape)
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes {s1} and "
                           f"{s2}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + eps
    mag2 = (input2 * input2).sum(td) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = cos.new_zeros(cos.shape)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    output = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _apply_reduction(output, reduction)


@export(name="cosine_embedding_loss")
@_torch_name
def torch_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """torch.cosine_embedding_loss(input1, input2, target, margin, reduction: int)
    Omitted, reduction is 0 (unreduced), as torch 2.13's binding gives it."""
    return _cosine_embedding(input1, input2, target, margin, _enum(reduction))


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def _triplet(anchor, positive, negative, margin, p, eps, swap, reduction):
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((margin + dist_pos - dist_neg).clamp_min(0), reduction)


@register(category="nn", function=False)
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance, reduced (a composite)."""
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(anchor, positive, negative, margin, p, eps, swap, reduction)


@export(name="triplet_margin_loss")
@_torch_name
def torch_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    """torch.triplet_margin_loss(..., reduction: int)
    Omitted, reduction is 0 (unreduced), as torch 2.13's binding gives it."""
    return _triplet(anchor, positive, negative, margin, p, eps, swap, _enum(reduction))


@register(category="nn", function=False)
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with any distance function (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = pairwise_distance if distance_function is None else distance_function
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(dist(positive, negative))
    return _apply_reduction((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def _poisson_nll(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


@register(category="nn", function=False)
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(x) - target * x (log_input) or x - target * log(x + eps), plus Stirling's term when full (a composite)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _poisson_nll(input, target, log_input, full, eps, reduction)


@export(name="poisson_nll_loss")
@_torch_name
def torch_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss(input, target, log_input, full, eps, reduction: int)."""
    return _poisson_nll(input, target, log_input, full, eps, _enum(reduction))


def _gaussian_var(input, var):
    """F.gaussian_nll_loss's checks on var (a float or a tensor of input's shape, or one dim short / size 1)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return var * input.new_ones(input.shape)
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            return var.unsqueeze(-1)
        if not (input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    return var


@register(category="nn", function=False)
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (input - target)**2 / max(var, eps)) (+ log(2 pi) / 2 when full), reduced."""
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


@register(category="nn", function=False)
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) averaged over classes, reduced over samples (a composite)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")

