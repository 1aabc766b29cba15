"""torch.cdist: p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M). As in PyTorch,
p == 2 with more than 25 rows on either side (compute_mode default) goes through the matrix-product
formula (_euclidean_dist, then a view); everything else through _cdist_forward (CdistBackward0)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ..pointwise import _long, quietly, where
from ..registry import register


def _pnorm_np(x1, x2, p):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return np.sqrt((diff * diff).sum(-1))
    if math.isinf(p):
        return diff.max(-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], x1.dtype)
    return ((diff ** x1.dtype.type(p)).sum(-1)) ** x1.dtype.type(1 / p)


class CdistBackward0(Op):
    """_cdist_forward; the backward is PyTorch's _cdist_backward per p (0 where the distance is 0)."""
    save_output = True

    @staticmethod
    def forward(ctx, x1, x2, p):
        ctx.save_for_backward(x1, x2)
        ctx.p = p
        return np.asarray(quietly(_pnorm_np, x1._data, x2._data, p), dtype=x1._data.dtype)

    @staticmethod
    def backward(ctx, g):
        x1, x2, dist = ctx.saved_tensors
        p = ctx.p
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        d, gg = dist.unsqueeze(-1), g.unsqueeze(-1)
        if p == 0:
            term = diff * 0
        elif p == 1:
            term = gg * diff.sign()
        elif p == 2:
            term = where(d == 0, 0.0, gg * diff / d)
        elif math.isinf(p):
            term = gg * diff.sign() * (diff.abs() == d).to(g.dtype)
        elif p < 1:
            term = where((d == 0) | (diff == 0), 0.0, diff.sign() * diff.abs() ** (p - 1) * gg / d ** (p - 1))
        elif p < 2:
            term = where(d == 0, 0.0, diff.sign() * diff.abs() ** (p - 1) * gg / d ** (p - 1))
        else:
            term = where(d == 0, 0.0, diff * diff.abs() ** (p - 2) * gg / d ** (p - 1))
        return term.sum(-2), -term.sum(-3)


class EuclideanDistBackward0(Op):
    """_euclidean_dist: sqrt(clamp_min(|x1|^2 - 2 x1.x2 + |x2|^2, 0)) via one matrix product."""
    save_output = True

    @staticmethod
    def forward(ctx, x1, x2):
        ctx.save_for_backward(x1, x2)
        return quietly(_euclid_np, x1._data, x2._data)

    @staticmethod
    def backward(ctx, g):
        x1, x2, res = ctx.saved_tensors
        ratio = (g / res).masked_fill(res == 0, 0)
        g1 = x1 * ratio.sum(-1, True) - ratio.matmul(x2)
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-1, -2).matmul(x1)
        return g1, g2


def _euclid_np(x1, x2):
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = np.concatenate([x1 * x1.dtype.type(-2), n1, np.ones_like(n1)], -1)
    b = np.concatenate([x2, np.ones_like(n2), n2], -1)
    return np.sqrt(np.maximum(a @ np.swapaxes(b, -1, -2), 0)).astype(x1.dtype, copy=False)


def _check(x1, x2, p):
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.dim()}D")
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_long(t.dtype)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_long(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


@register(category="linalg")
def cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise p-norm distances between the rows of x1 and x2 (batch dims broadcast)."""
    _check(x1, x2, p)
    r1, r2 = x1.shape[-2], x2.shape[-2]
    mm = compute_mode == "use_mm_for_euclid_dist" or (compute_mode in (None, "use_mm_for_euclid_dist_if_necessary")
                                                      and (r1 > 25 or r2 > 25))
    if p == 2 and mm:
        batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
        a = x1.expand(*batch, r1, x1.shape[-1]).reshape(-1, r1, x1.shape[-1]) if batch else x1
        b = x2.expand(*batch, r2, x2.shape[-1]).reshape(-1, r2, x2.shape[-1]) if batch else x2
        return EuclideanDistBackward0.apply(a, b).view(*batch, r1, r2)
    if compute_mode not in (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return CdistBackward0.apply(x1, x2, float(p))
