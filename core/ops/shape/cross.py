"""Cross product of 3-vectors along a dim: torch.cross (dim defaults to the first size-3 dim, with a
one-time deprecation warning) and torch.linalg.cross (dim defaults to -1), registered as "linalg.cross"
without a core.<name> function (torch has no top-level linalg_cross): a `core.linalg` namespace exposes it."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ..._warn import warn_aten
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..pointwise import _out
from ..registry import register
from ._util import _check_alloc, _int

_CROSS_WARNED = [False]


class LinalgCrossBackward0(Op):
    """Saves each operand only when the other one needs a gradient (derivatives.yaml)."""

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        ng = ctx.needs_input_grad
        if ng:
            ctx.save_for_backward(a if ng[1] else None, b if ng[0] else None)
        return np.cross(a._data, b._data, axis=dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ng = ctx.needs_input_grad
        ga = linalg_cross(b, g, dim=ctx.dim) if ng[0] else None
        gb = linalg_cross(g, a, dim=ctx.dim) if ng[1] else None
        return ga, gb


def _broadcast_shape(sa, sb):
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                               f"non-singleton dimension {i}")
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(pa, pb))


def _check_operands(input, other):
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise TypeError(f"cross(): argument 'other' must be Tensor, not {type(t).__name__}")


@register("linalg.cross", category="linalg", function=False)
def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along dim (default -1) of inputs with the same number of dims,
    broadcasting the other dims (torch.linalg.cross)."""
    _check_operands(input, other)
    dim = _int(dim, "dim")
    sa, sb = input._data.shape, other._data.shape
    if len(sa) != len(sb):
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, len(sa))
    if sa[d] != 3 or sb[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {sa[d]} and {sb[d]}")
    shape = _broadcast_shape(sa, sb)
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                           f"{_dt.scalar_name(other.dtype)}")
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    _check_alloc(shape, input.dtype)
    r = LinalgCrossBackward0.apply(input, other, d)   # np.cross broadcasts; the engine reduces the grads
    return r if out is None else _out(r, out)


@register(category="linalg", methods=("cross",))
def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along dim; without dim, the first dim of size 3 (deprecated by torch:
    pass dim, or use linalg.cross whose default is -1)."""
    _check_operands(input, other)
    if dim is None:
        warn_aten("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
                  "that of linalg.cross in a future release.", "aten/src/ATen/native/Cross.cpp:63", once=_CROSS_WARNED)
        dim = next((i for i, s in enumerate(input._data.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim, out=out)
