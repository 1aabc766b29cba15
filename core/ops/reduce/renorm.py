"""torch.renorm (RenormBackward0): each slice along dim whose p-norm (over the other dims) exceeds maxnorm
is scaled to norm maxnorm / (norm + 1e-7); the norm is accumulated in the input's float dtype, as torch's
(CUDA-style) accumulate type. The backward is torch's renorm_backward, in core ops."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ...tensor import _wrap_dim
from ..registry import FUNCTIONS, OPS, register


def _norm_np(x, p, axes):
    a = np.abs(x)
    if p == math.inf:
        return a.max(axis=axes, keepdims=True, initial=0)
    if p == 1:
        return a.sum(axis=axes, keepdims=True, dtype=x.dtype)
    if p == 2:
        return np.sqrt(np.square(a).sum(axis=axes, keepdims=True, dtype=x.dtype))
    return np.power(np.power(a, x.dtype.type(p)).sum(axis=axes, keepdims=True, dtype=x.dtype), x.dtype.type(1 / p))


def _norm_backward(go, x, p, norm, axes):
    """d(norm)/dx times go (go and norm keep the reduced dims), as torch's norm_backward."""
    where = FUNCTIONS["where"]
    zero = norm == 0
    if p == 1:
        return x.sgn() * go
    if p == 2:
        return x * where(zero, go * 0, go / norm)
    if p == math.inf:
        mask = (x.abs() == norm)
        return x.sgn() * (go / mask.sum(axes, keepdim=True)) * mask
    if p < 1:
        scaled = where(x == 0, x * 0, x.sgn() * x.abs().pow(p - 1))     # torch masks x == 0 to 0
        return where(zero, x * 0, scaled * go / norm.pow(p - 1))
    return where(zero, x * 0, x * x.abs().pow(p - 2) * go / norm.pow(p - 1))


class RenormBackward0(Op):
    @staticmethod
    def forward(ctx, a, p, dim, maxnorm):
        x = a._data
        axes = tuple(i for i in range(x.ndim) if i != dim)
        with np.errstate(all="ignore"):
            norm = _norm_np(x, p, axes)
            factor = np.where(norm > maxnorm, x.dtype.type(maxnorm) / (norm + x.dtype.type(1e-7)), x.dtype.type(1))
        ctx.save_for_backward(a)
        ctx.meta = (p, axes, maxnorm)
        return (x * factor).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        p, axes, maxnorm = ctx.meta
        norm = OPS["linalg.vector_norm"].fn(x, p, axes, True)
        go = (x * g).sum(axes, keepdim=True)
        nb = _norm_backward(go, x, p, norm, axes)
        invnorm = (norm + 1e-7).reciprocal()
        factor = invnorm * maxnorm
        return FUNCTIONS["where"](norm > maxnorm, factor * g - (maxnorm * invnorm * invnorm) * nb, g)


@register(category="reduction", methods=("renorm",), inplace="renorm_")
def renorm(input, p, dim, maxnorm, *, out=None):
    """Scale each slice along dim whose p-norm exceeds maxnorm down to norm maxnorm."""
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype.name.title().replace('Int64', 'Long').replace('Bool', 'Bool')}")
    d = _wrap_dim(dim, input.dim())
    r = RenormBackward0.apply(input, float(p), d, float(maxnorm))
    if out is not None:
        out.copy_(r.detach())
        return out
    return r
