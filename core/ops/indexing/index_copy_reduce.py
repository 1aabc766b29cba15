"""index_copy (+ index_copy_) and index_reduce (+ index_reduce_): whole slices of source copied into, or
reduced (prod, mean, amax, amin) into, the slices of input at a vector of indices along dim."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from .. import registry
from ..pointwise import where
from ..registry import register
from ._common import (_I64, _assert_no_overlap, _fast_inplace, _first_bad, _nonempty_size, _ones_like, _out_arg,
                      _out_of_range, _sname, _zeros_like)
from .index_select_add_fill import _index_add_checks
from .kernels import _scatter_reduce_np

# -- index_copy -------------------------------------------------------------------------------------------------


def _index_copy_checks(input, dim, index, source):
    """PyTorch's index_copy meta checks, in its order; returns (dim, idx as a 1-D array)."""
    if not isinstance(source, Tensor):
        raise TypeError(f"index_copy(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}")
    a, s, idx = input._data, source._data, index._data
    dim = _wrap_dim(dim, a.ndim)
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if s.ndim == 0 and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {idx.size})")
    if s.ndim != a.ndim and s.ndim != 0 and a.ndim != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({s.ndim}), destination dimensionality ({a.ndim})")
    if idx.dtype != _I64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_sname(idx)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_sname(a)} and (source) {_sname(s)}")
    ss = [n for d, n in enumerate(a.shape) if d != dim]
    sr = [n for d, n in enumerate(s.shape) if d != dim]
    if ss != sr:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, ss))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, sr))} at dimension 0.")
    if s.ndim and idx.size != s.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                         f"({s.shape[dim]})")
    size = _nonempty_size(a, dim)
    if a.size and _out_of_range(idx, size, False):   # the kernel only looks at indices when it copies
        raise IndexError(f"index_copy_(): index {_first_bad(idx, 0, size)} is out of bounds for dimension {dim} "
                         f"with size {size}")
    return dim, idx.reshape(-1)


def _index_copy_np(out, dim, idx, src):
    """out[(:,)*dim + (idx[k],)] = src[(:,)*dim + (k,)] in place (the last of duplicate indices wins)."""
    if idx.size == 0 or out.size == 0:
        return
    if out.ndim == 0:
        out[...] = src.reshape(())
        return
    out[(slice(None),) * dim + (idx,)] = src if src.ndim else src.reshape(1)


class IndexCopyBackward0(Op):
    @staticmethod
    def forward(ctx, a, source, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim, ctx.src_shape = dim, source._data.shape
        out = a._data.copy()
        _index_copy_np(out, dim, idx, source._data)
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        gs = None
        if ctx.needs_input_grad[1]:
            gs = g.index_select(ctx.dim, index).reshape(ctx.src_shape)
        return g.index_fill(ctx.dim, index, 0), gs


@register(category="indexing", methods=("index_copy",), kind="scatter")
def index_copy(input, dim, index, source, *, out=None):
    """Copy of input with the slices of source written at index along dim: self[index[i]][j] = source[i][j]
    for dim=0. index is int64, 0-d or 1-d, within [0, input.size(dim)); for duplicates the last write wins."""
    d, idx = _index_copy_checks(input, dim, index, source)
    return _out_arg(IndexCopyBackward0.apply(input, source, d, index=index, idx=idx), out, "index_copy")


def _index_copy_direct(self, dim, index, source):
    d, idx = _index_copy_checks(self, dim, index, source)
    _assert_no_overlap(self._data, index._data, source._data)
    _index_copy_np(self._data, d, idx, source._data)


registry.add_inplace("index_copy", "index_copy_", _fast_inplace(index_copy, "index_copy_", _index_copy_direct))


# -- index_reduce -----------------------------------------------------------------------------------------------

_INDEX_REDUCE = ("prod", "mean", "amax", "amin")
_BETA_WARNING = "index_reduce() is in beta and the API may change at any time."
_warned = []


def _index_reduce_checks(input, dim, index, source, reduce, include_self):
    """PyTorch's order: the reduce name, index_add's meta checks, then the bounds (IndexError): with
    include_self=False torch first index_fill_s the indexed slices, whose check allows negative indices."""
    if not isinstance(source, Tensor):
        raise TypeError(f"index_reduce(): argument 'source' (position 3) must be Tensor, not "
                        f"{type(source).__name__}")
    warn_aten(_BETA_WARNING, "aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523", once=_warned)
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d, idx = _index_add_checks("index_reduce", input, dim, index, source)
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
    size = _nonempty_size(input._data, d)
    if not include_self and _out_of_range(idx, size, True):
        raise IndexError(f"index {_first_bad(idx, -size, size)} is out of bounds for dimension {d} with size {size}")
    if _out_of_range(idx, size, False):
        raise IndexError("index out of range in self")
    return d, idx.reshape(-1)


def _index_reduce_np(a, dim, idx, src, how, include_self):
    """index_reduce as scatter_reduce with the index spread over source's shape; float16 means are
    accumulated in float32 as PyTorch does."""
    if idx.size == 0:
        return a.copy()
    if how == "mean" and a.dtype == np.float16:
        r = _index_reduce_np(a.astype(np.float32), dim, idx, src.astype(np.float32), how, include_self)
        return r.astype(np.float16)
    if a.ndim == 0:
        return _scatter_reduce_np(a, 0, idx, src.reshape(-1), how, include_self)
    src = src if src.ndim else src.reshape(1)
    full = np.broadcast_to(idx.reshape([-1 if k == dim else 1 for k in range(a.ndim)]), src.shape)
    return _scatter_reduce_np(a, dim, np.ascontiguousarray(full), src, how, include_self)


class IndexReduceBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, source, dim, *, index, idx, reduce, include_self):
        ctx.save_for_backward(a, source, index)
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        return _index_reduce_np(a._data, dim, idx, source._data, reduce, include_self)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's index_reduce_backward (FunctionsManual.cpp), written with core ops.
        self_, src, index, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if reduce == "prod":
            grad_self, grad_src = _prod_grads(grad, self_, src, index, result, dim, include_self)
        elif reduce == "mean":
            n = _ones_like(grad) if include_self else _zeros_like(grad)
            n = n.index_add(dim, index, _ones_like(src))
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = grad.index_select(dim, index) / n.index_select(dim, index)
        else:  # amax / amin: the gradient is split evenly among all elements equal to the result
            value = result.index_select(dim, index)
            self_is_result = (self_ == result).to(self_.dtype)
            src_is_result = (src == value).to(self_.dtype)
            grad_distributed = grad / self_is_result.index_add(dim, index, src_is_result)
            grad_self = self_is_result * grad_distributed
            grad_src = src_is_result * grad_distributed.index_select(dim, index)
        if not include_self:
            grad_self = grad_self.index_fill(dim, index, 0)
        return grad_self, grad_src.reshape(src.shape)


def _prod_grads(grad, self_, src, index, result, dim, include_self):
    masked_self = self_.masked_fill(self_ == 0, 1)
    masked_self_result = masked_self.index_reduce(dim, index, src, "prod", include_self=include_self)
    grad_self = grad * masked_self_result / masked_self
    src_zero = src == 0
    src_num_zeros = _zeros_like(self_).index_add(dim, index, src_zero.to(self_.dtype)).index_select(dim, index)
    src_single_zero = src_zero & (src_num_zeros == 1)
    masked_src = src.masked_fill(src_single_zero, 1)
    masked_src_result = self_.index_reduce(dim, index, masked_src, "prod", include_self=include_self)
    grad_src = where(src_single_zero, (grad * masked_src_result).index_select(dim, index),
                     (grad * result).index_select(dim, index) / src.masked_fill(src_zero, 1))
    return grad_self, grad_src


@register(category="indexing", methods=("index_reduce",), kind="scatter")
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Reduce the slices of source into a copy of input at index along dim (prod, mean, amax or amin).

    include_self=False leaves input's own values out at the indexed slices. Gradients as PyTorch's:
    amax/amin split the gradient evenly among all elements equal to the result."""
    d, idx = _index_reduce_checks(input, dim, index, source, reduce, include_self)
    r = IndexReduceBackward0.apply(input, source, d, index=index, idx=idx, reduce=reduce,
                                   include_self=bool(include_self))
    return _out_arg(r, out)


def _index_reduce_direct(self, dim, index, source, reduce, *, include_self=True):
    d, idx = _index_reduce_checks(self, dim, index, source, reduce, include_self)
    _assert_no_overlap(self._data, index._data, source._data)
    np.copyto(self._data, _index_reduce_np(self._data, d, idx, source._data, reduce, bool(include_self)))


registry.add_inplace("index_reduce", "index_reduce_",
                     _fast_inplace(index_reduce, "index_reduce_", _index_reduce_direct))
