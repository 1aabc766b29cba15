"""gather, scatter (src / value / reduce='add'|'multiply') and scatter_add, with their in-place forms.

Index tensors are not differentiable inputs, so they are passed to `Op.apply` as keywords (PyTorch's grad_fn
lists edges only for self/src, never for indices). In-place forms write straight into self when no graph is
recorded."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from .. import registry
from ..registry import register
from ._common import (_INT_IDX, _assert_no_overlap, _fast_inplace, _lst, _nonempty_dim, _nonempty_size, _out_arg,
                      _value_scalar)
from .kernels import _gather_np, _scatter_apply


# -- gather ---------------------------------------------------------------------------------------------------

def _gather_checks(opname, input, dim, index):
    """Wrap dim and validate like PyTorch's gather meta; returns (dim, idx array or None when empty)."""
    a = input._data
    dim = _wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.size == 0:
        return dim, None
    if idx.dtype not in _INT_IDX:
        raise RuntimeError(f"{opname}(): Expected dtype int32/int64 for index")
    nd = _nonempty_dim(a.ndim)
    if nd != _nonempty_dim(idx.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(nd):
        if d != dim and _nonempty_size(idx, d) > _nonempty_size(a, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {_lst(idx.shape)} to be no "
                               f"larger than self {_lst(a.shape)} apart from dimension {dim}")
    return dim, idx   # bounds: checked by the kernel, block by block


class GatherBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim, ctx.shape = dim, a._data.shape
        if idx is None:
            return np.empty(index._data.shape, a._data.dtype)
        x = a._data if a._data.ndim else a._data.reshape(1)
        return _gather_np(x, dim, idx if idx.ndim else idx.reshape(1)).reshape(idx.shape)

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return _scatter_into_zeros(g, ctx.dim, index, ctx.shape)


@register(category="indexing", methods=("gather",), kind="gather")
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Collect values along dim: out[i][j] = input[i][index[i][j]] for dim=1 (shape of index).

    index may be smaller than input in the other dims; indices must lie in [0, input.size(dim)).
    sparse_grad=True is accepted; the gradient is returned dense (same values)."""
    d, idx = _gather_checks("gather", input, dim, index)
    return _out_arg(GatherBackward0.apply(input, d, index=index, idx=idx), out, "gather", input, index)


def _scatter_into_zeros(g, dim, index, shape):
    """zeros(shape).scatter_add(dim, index, g) as a differentiable op (gather's backward)."""
    return _ScatterAddIntoZeros.apply(g, dim, index=index, shape=tuple(shape))


class _ScatterAddIntoZeros(Op):
    def name(self):
        return "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, dim, *, index, shape):
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = np.zeros(shape, dtype=g._data.dtype)
        idx = index._data
        if idx.size:
            _scatter_apply(out, dim, idx, g._data, "add")
        return out

    @staticmethod
    def backward(ctx, gg):
        (index,) = ctx.saved_tensors
        return gather(gg, ctx.dim, index)


# -- scatter family ---------------------------------------------------------------------------------------------

def _scatter_checks(input, dim, index, src):
    """PyTorch's scatter meta checks (dtype, ranks, sizes, bounds). Returns (dim, idx array or None when empty)."""
    a = input._data
    dim = _wrap_dim(dim, a.ndim)
    idx = index._data
    s = src._data if isinstance(src, Tensor) else None
    if idx.size and idx.dtype not in _INT_IDX:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if s is not None and s.dtype != a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if idx.size == 0:
        return dim, None
    nd = _nonempty_dim(a.ndim)
    if nd != _nonempty_dim(idx.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and _nonempty_size(idx, d) > _nonempty_size(a, d) for d in range(nd))
    if not wrong and s is not None:
        wrong = any(_nonempty_size(idx, d) > _nonempty_size(s, d) for d in range(nd))
    if s is not None:
        if _nonempty_dim(s.ndim) != _nonempty_dim(idx.ndim):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if wrong:
            raise RuntimeError(f"Expected index {_lst(idx.shape)} to be no larger than self {_lst(a.shape)} apart "
                               f"from dimension {dim} and to be no larger size than src {_lst(s.shape)}")
    elif wrong:
        raise RuntimeError(f"Expected index {_lst(idx.shape)} to be no larger than self {_lst(a.shape)} apart from "
                           f"dimension {dim}")
    return dim, idx   # bounds: checked by the kernel, block by block


class ScatterBackward0(Op):
    """scatter with a src tensor."""

    @staticmethod
    def forward(ctx, a, src, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = a._data.copy()
        _scatter_apply(out, dim, idx, src._data, "set")
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return g.scatter(ctx.dim, index, 0), g.gather(ctx.dim, index)


class ScatterBackward1(Op):
    """scatter with a scalar value."""

    @staticmethod
    def forward(ctx, a, dim, *, index, idx, value):
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = a._data.copy()
        _scatter_apply(out, dim, idx, _value_scalar(value, out.dtype), "set")
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return g.scatter(ctx.dim, index, 0)


class _ScatterNotImplemented(Op):
    """scatter(..., reduce='add'|'multiply'): PyTorch does not differentiate it (grad_fn NotImplemented)."""

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, *rest, dim, index, idx, src, how):
        out = a._data.copy()
        s = src._data if isinstance(src, Tensor) else _value_scalar(src, out.dtype)
        _scatter_apply(out, dim, idx, s, how)
        return out

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::scatter is not implemented")


_REDUCE_OLD = {"add": "add", "multiply": "multiply"}
_REDUCE_NEW = ("sum", "prod", "mean", "amax", "amin")
_REDUCE_SITE = "aten/src/ATen/native/TensorAdvancedIndexing.cpp:225"   # scatter and scatter_ share it (warn once)
_REDUCE_WARNING = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                   "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.")


@register(category="indexing", methods=("scatter",), kind="scatter")
def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """Write src (tensor) or value (number) into a copy of input at index along dim.

    self[i][index[i][j]] = src[i][j] for dim=1; reduce='add'|'multiply' combines instead of overwriting
    (not differentiable, as in PyTorch). Duplicate indices: the last write wins."""
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    source = src if src is not None else value
    is_tensor = isinstance(source, Tensor)
    if not is_tensor and not isinstance(source, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"scatter(): argument 'src' must be Tensor or Number, not {type(source).__name__}")
    d, idx = _scatter_checks(input, dim, index, source if is_tensor else None)
    if reduce is not None:
        if reduce not in _REDUCE_OLD:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warn_aten(_REDUCE_WARNING, _REDUCE_SITE, once=True)
        args = (input, source) if is_tensor else (input,)
        r = _ScatterNotImplemented.apply(*args, dim=d, index=index, idx=idx, src=source, how=reduce)
    elif is_tensor:
        r = ScatterBackward0.apply(input, source, d, index=index, idx=idx)
    else:
        r = ScatterBackward1.apply(input, d, index=index, idx=idx, value=source)
    return _out_arg(r, out, "scatter")


class ScatterAddBackward0(Op):
    @staticmethod
    def forward(ctx, a, src, dim, *, index, idx):
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = a._data.copy()
        _scatter_apply(out, dim, idx, src._data, "add")
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return g, g.gather(ctx.dim, index)


@register(category="indexing", methods=("scatter_add",), kind="scatter")
def scatter_add(input, dim, index, src, *, out=None):
    """Add src into a copy of input at index along dim (duplicate indices accumulate).

    self[i][index[i][j]] += src[i][j] for dim=1."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(input, dim, index, src)
    return _out_arg(ScatterAddBackward0.apply(input, src, d, index=index, idx=idx), out, "scatter_add")



def _scatter_direct(self, dim, index, src=None, value=None, *, reduce=None):
    source = src if src is not None else value
    if source is None:
        raise TypeError("scatter_() missing 1 required positional argument: 'src' or 'value'")
    is_tensor = isinstance(source, Tensor)
    d, idx = _scatter_checks(self, dim, index, source if is_tensor else None)
    _assert_no_overlap(self._data, index._data, source._data if is_tensor else None)
    how = "set"
    if reduce is not None:
        if reduce not in _REDUCE_OLD:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warn_aten(_REDUCE_WARNING, _REDUCE_SITE, once=True)
        how = reduce
    s = source._data if is_tensor else _value_scalar(source, self._data.dtype)
    _scatter_apply(self._data, d, idx, s, how)


def _scatter_add_direct(self, dim, index, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add_(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(self, dim, index, src)
    _assert_no_overlap(self._data, index._data, src._data)
    _scatter_apply(self._data, d, idx, src._data, "add")


registry.add_inplace("scatter", "scatter_", _fast_inplace(scatter, "scatter_", _scatter_direct))
registry.add_inplace("scatter_add", "scatter_add_", _fast_inplace(scatter_add, "scatter_add_", _scatter_add_direct))
