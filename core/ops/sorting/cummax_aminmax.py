"""cummax / cummin (index of the last occurrence among ties, NaN propagates) and aminmax."""
from __future__ import annotations

import numpy as np

from ... import return_types
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..indexing import _scatter_into_zeros
from ..pointwise import quietly
from ..reduce import _expand_back
from ..registry import register
from ._rows import _contig, _from_rows, _to_rows
from ._select import _out_tuple


def _cummaxmin_np(d, dim, is_max):
    """cummax_cummin_helper: a value >= (<=) the running one takes over (so ties move the index
    forward); a NaN always takes over and then sticks."""
    if d.ndim == 0:
        return d.copy(), np.zeros((), np.int64)
    if d.size == 0:
        return d.copy(), np.zeros(d.shape, np.int64)
    rows, moved = _to_rows(d, dim)
    n = rows.shape[1]
    acc = (np.maximum if is_max else np.minimum).accumulate(rows, axis=1)   # propagates NaN
    prev = np.empty_like(acc)
    prev[:, 1:] = acc[:, :-1]
    take = quietly(np.greater_equal if is_max else np.less_equal, rows, prev)
    if rows.dtype.kind == "f":
        take = np.isnan(rows) | (~np.isnan(prev) & take)
    take[:, 0] = True
    idx = np.maximum.accumulate(np.where(take, np.arange(n, dtype=np.int64), 0), axis=1)
    vals = np.take_along_axis(rows, idx, 1)
    return _from_rows(vals, moved, dim), _from_rows(idx, moved, dim)


class CummaxBackward0(Op):
    is_max = True

    @classmethod
    def forward(cls, ctx, a, dim):
        vals, idx = _cummaxmin_np(a._data, dim, cls.is_max)
        ctx.dim, ctx.shape = dim, a._data.shape
        idx = _contig(idx)
        ctx.save_for_backward(a, Tensor._make(idx))     # PyTorch saves self too (cummaxmin_backward)
        return _contig(vals), idx

    @staticmethod
    def backward(ctx, g, gi=None):
        _, idx = ctx.saved_tensors
        if len(ctx.shape) == 0:
            return g
        return _scatter_into_zeros(g, ctx.dim, idx, ctx.shape)


class CumminBackward0(CummaxBackward0):
    is_max = False


@register(category="sorting", methods=("cummax",))
def cummax(input, dim, *, out=None):
    """Running maximum along dim -> (values, indices); ties take the later index, NaN propagates."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = CummaxBackward0.apply(input, d)
    return _out_tuple(return_types.cummax(vals, idx), out, "cummax")


@register(category="sorting", methods=("cummin",))
def cummin(input, dim, *, out=None):
    """Running minimum along dim -> (values, indices); ties take the later index, NaN propagates."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = CumminBackward0.apply(input, d)
    return _out_tuple(return_types.cummin(vals, idx), out, "cummin")


# ---------------------------------------------------------------------------------------------
# aminmax
# ---------------------------------------------------------------------------------------------

class AminmaxBackward0(Op):
    """(min, max) in one pass; each gradient is shared evenly between the tied extrema (as amin/amax)."""

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        d = a._data
        ax = None if (dim is None or d.ndim == 0) else dim
        mn = np.asarray(np.min(d, axis=ax, keepdims=keepdim))
        mx = np.asarray(np.max(d, axis=ax, keepdims=keepdim))
        if keepdim and ax is None:
            mn, mx = mn.reshape((1,) * d.ndim), mx.reshape((1,) * d.ndim)
        mn, mx = _contig(mn), _contig(mx)
        ctx.dims = None if ax is None else (ax,)
        ctx.keepdim, ctx.shape = keepdim, d.shape
        ctx.save_for_backward(a, Tensor._make(mn), Tensor._make(mx))
        return mn, mx

    @staticmethod
    def backward(ctx, gmin, gmax):
        a, mn, mx = ctx.saved_tensors
        dims = list(ctx.dims) if ctx.dims is not None else None
        res = None
        for g, o in ((gmin, mn), (gmax, mx)):
            mask = (a == _expand_back(o, ctx.shape, ctx.dims, ctx.keepdim)).to(g.dtype)
            count = mask.sum(dim=dims, keepdim=True)
            part = _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * mask / count
            res = part if res is None else res + part
        return res


@register(category="sorting", methods=("aminmax",))
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """(min, max) over all elements or along dim; NaN propagates to both."""
    d = input._data
    if dim is None:
        if d.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        dd = None
    else:
        dd = _wrap_dim(dim, d.ndim)
        if d.ndim and d.shape[dd] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dd} to have non-zero size.")
    mn, mx = AminmaxBackward0.apply(input, dd, bool(keepdim))
    return _out_tuple(return_types.aminmax(mn, mx), out, "aminmax")
