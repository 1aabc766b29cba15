"""index_select, index_add (+ index_add_) and index_fill (+ index_fill_): whole slices along one dim picked,
accumulated into or filled, at a vector of indices."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from .. import registry
from ..registry import register
from ._common import (_I64, _INT_IDX, _assert_no_overlap, _fast_inplace, _first_bad, _lst, _nonempty_size,
                      _out_arg, _out_of_range, _sname, _value_scalar, _wrap_negative)
from .kernels import _index_add_np


def _index_vector_checks(opname, input, dim, index):
    a = input._data
    dim = _wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"{opname}(): Index is supposed to be a vector")
    if a.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"{opname}(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    if idx.dtype not in _INT_IDX:
        raise RuntimeError(f"{opname}(): Expected dtype int32 or int64 for index")
    return dim, idx


class IndexSelectBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim, ctx.shape = dim, a._data.shape
        x = a._data
        if x.ndim == 0:
            return x.copy()
        return np.take(x, idx.reshape(-1), axis=dim)

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        z = Tensor._make(np.zeros(ctx.shape, g._data.dtype))
        return z.index_add(ctx.dim, index.reshape(-1) if index.dim() else index, g)


@register(category="indexing", methods=("index_select",), kind="gather")
def index_select(input, dim, index, *, out=None):
    """Pick whole slices along dim: out[i][j] = input[index[i]][j] for dim=0 (index is 0-d or 1-d)."""
    d, idx = _index_vector_checks("index_select", input, dim, index)
    a = input._data
    size = _nonempty_size(a, d)
    if _out_of_range(idx, size, False):
        if a.ndim > 1 and d == 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={_first_bad(idx, 0, size)} axis_dim={size}")
        raise IndexError("index out of range in self")
    return _out_arg(IndexSelectBackward0.apply(input, d, index=index, idx=idx), out, "index_select", input, index)


def _index_add_checks(opname, input, dim, index, source):
    a = input._data
    if not isinstance(source, Tensor):
        raise TypeError(f"{opname}(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}")
    s = source._data
    dim = _wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"{opname}_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_sname(idx)} and size: {_lst(idx.shape)}")
    if idx.dtype not in _INT_IDX:
        raise RuntimeError(f"{opname}_(): Expected dtype int32/int64 for index but got: {_sname(idx)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"{opname}_(): self ({_sname(a)}) and source ({_sname(s)}) must have the same scalar type")
    if not (dim == 0 or dim < s.ndim):
        raise RuntimeError(f"{opname}_(): Indexing dim {dim} is out of bounds of the source tensor with dim {s.ndim}")
    src_n = 1 if s.ndim == 0 else s.shape[dim]
    if idx.size != src_n:
        raise RuntimeError(f"{opname}_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({src_n}), for dim: {dim}")
    ss, sr = list(a.shape), list(s.shape)
    if s.ndim != 0 and a.ndim != 0:
        del ss[dim]
        del sr[dim]
    if ss != sr:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_lst(a.shape)} source.shape = {_lst(s.shape)}")
    return dim, idx


def _index_add_bounds(input, dim, idx, alpha):
    a = input._data
    size = _nonempty_size(a, dim)
    if _out_of_range(idx, size, False):
        if a.ndim > 1 and alpha == 1:
            bad = _first_bad(idx, 0, size)
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        raise IndexError("index out of range in self")



class IndexAddBackward0(Op):
    @staticmethod
    def forward(ctx, a, source, dim, *, index, idx, alpha):
        ctx.save_for_backward(index)
        ctx.dim, ctx.alpha, ctx.src_shape = dim, alpha, source._data.shape
        out = a._data.copy()
        _index_add_np(out, dim, idx, source._data, alpha)
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        if g.dim() == 0:
            gs = g
        else:
            gs = g.index_select(ctx.dim, index)
            if len(ctx.src_shape) == 0:
                gs = gs.reshape(())
        if ctx.alpha != 1:
            gs = gs * ctx.alpha
        return g, gs


@register(category="indexing", methods=("index_add",), kind="scatter")
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Add alpha * source slices into a copy of input at index along dim (duplicates accumulate).

    self[index[i]][j] += alpha * source[i][j] for dim=0."""
    d, idx = _index_add_checks("index_add", input, dim, index, source)
    _index_add_bounds(input, d, idx, alpha)
    return _out_arg(IndexAddBackward0.apply(input, source, d, index=index, idx=idx, alpha=alpha), out, "index_add")


def _index_add_direct(self, dim, index, source, *, alpha=1):
    d, idx = _index_add_checks("index_add", self, dim, index, source)
    _index_add_bounds(self, d, idx, alpha)
    _assert_no_overlap(self._data, index._data, source._data)
    _index_add_np(self._data, d, idx, source._data, alpha)


registry.add_inplace("index_add", "index_add_", _fast_inplace(index_add, "index_add_", _index_add_direct))


def _index_fill_checks(input, dim, index, value):
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if not isinstance(value, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"index_fill(): argument 'value' must be Number or Tensor, not {type(value).__name__}")
    idx = index._data
    if idx.dtype != _I64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    a = input._data
    dim = _wrap_dim(dim, max(a.ndim, 1))
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = _nonempty_size(a, dim)
    if _out_of_range(idx, size, True):
        raise IndexError(f"index {_first_bad(idx, -size, size)} is out of bounds for dimension {dim} with size {size}")
    return dim, _wrap_negative(idx.reshape(-1), size)


def _index_fill_np(out, dim, idx, v):
    if out.ndim == 0:
        if idx.size:
            out[...] = v
        return
    out[(slice(None),) * dim + (idx,)] = v


class IndexFillBackward0(Op):
    """index_fill with a scalar value."""

    @staticmethod
    def forward(ctx, a, dim, *, index, idx, value):
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = a._data.copy()
        _index_fill_np(out, dim, idx, _value_scalar(value, out.dtype))
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return g.index_fill(ctx.dim, index, 0)


class IndexFillBackward1(Op):
    """index_fill with a 0-d tensor value."""

    @staticmethod
    def forward(ctx, a, value, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim = dim
        ctx.uniq = np.unique(index._data.reshape(-1))  # PyTorch uses the raw (unwrapped) indices here
        out = a._data.copy()
        _index_fill_np(out, dim, idx, _value_scalar(value, out.dtype))
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        gv = None
        if ctx.needs_input_grad[1]:
            if g.dim() == 0:
                gv = g if ctx.uniq.size else g * 0
            else:
                gv = g.index_select(ctx.dim, Tensor._make(ctx.uniq)).sum()
        return g.index_fill(ctx.dim, index, 0), gv


@register(category="indexing", methods=("index_fill",), kind="scatter")
def index_fill(input, dim, index, value):
    """Fill the slices of a copy of input selected by index along dim with value.

    value is a number or a 0-d tensor; negative indices count from the end."""
    d, idx = _index_fill_checks(input, dim, index, value)
    if isinstance(value, Tensor):
        return IndexFillBackward1.apply(input, value, d, index=index, idx=idx)
    return IndexFillBackward0.apply(input, d, index=index, idx=idx, value=value)


def _index_fill_direct(self, dim, index, value):
    d, idx = _index_fill_checks(self, dim, index, value)
    _index_fill_np(self._data, d, idx, _value_scalar(value, self._data.dtype))


registry.add_inplace("index_fill", "index_fill_", _fast_inplace(index_fill, "index_fill_", _index_fill_direct))


