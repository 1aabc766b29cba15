"""pdist: the p-norm distance between every pair of rows (i < j) of a 2-D input (PdistBackward0),
with ATen's special cases p = 0, 1, 2, inf and its subgradients."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ..registry import register


def _pairs(n):
    return np.triu_indices(n, 1)


def _pdist_np(x, p):
    i, j = _pairs(x.shape[0])
    d = np.abs(x[i] - x[j])
    if d.shape[0] == 0:
        return np.zeros(0, x.dtype)
    if p == 0:
        r = (d != 0).sum(1).astype(x.dtype)
    elif p == 1:
        r = d.sum(1)
    elif p == 2:
        r = np.sqrt((d * d).sum(1))
    elif math.isinf(p):
        r = d.max(1) if d.shape[1] else np.zeros(d.shape[0], x.dtype)
    else:
        t = x.dtype.type
        r = ((d ** t(p)).sum(1)) ** t(1 / p)
    return r.astype(x.dtype, copy=False)


def _pdist_grad_np(x, p, dist, g):
    n = x.shape[0]
    i, j = _pairs(n)
    diff = x[i] - x[j]
    dd, gg = dist[:, None], g[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            c = np.zeros_like(diff)
        elif p == 1:
            c = np.sign(diff) * gg
        elif p < 2:
            c = np.where((dd == 0) | ((diff == 0) & (p < 1)), 0,
                         np.sign(diff) * np.abs(diff) ** (p - 1) * gg / dd ** (p - 1))
        elif p == 2:
            c = np.where(dd == 0, 0, gg * diff / dd)
        elif math.isinf(p):
            c = np.sign(diff) * (np.abs(diff) == dd) * gg
        else:
            c = np.where(dd == 0, 0, diff * np.abs(diff) ** (p - 2) * gg / dd ** (p - 1))
    out = np.zeros_like(x)
    np.add.at(out, i, c)
    np.add.at(out, j, -c)
    return out.astype(x.dtype, copy=False)


class PdistBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, p):
        ctx.save_for_backward(input)
        ctx.p = p
        return _pdist_np(input._data, p)

    @staticmethod
    def backward(ctx, g):
        x, dist = ctx.saved_tensors
        return PdistBackwardBackward0.apply(g, x, ctx.p, dist)


class PdistBackwardBackward0(Op):
    """_pdist_backward(grad, self, p, result): its own derivative is not implemented in torch (backward raises)."""

    @staticmethod
    def forward(ctx, g, x, p, dist):
        return _pdist_grad_np(x._data, p, dist._data, g._data)

    @staticmethod
    def backward(ctx, gg):
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


@register(category="nn")
def pdist(input, p=2):
    """||x[i] - x[j]||_p for every pair of rows i < j, as a 1-D tensor of n (n - 1) / 2 (PdistBackward0)."""
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return PdistBackward0.apply(input.contiguous(), float(p))
