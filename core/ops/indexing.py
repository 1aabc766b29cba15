"""Indexing and data-movement ops with PyTorch's semantics, error messages and gradients.

Covered: gather / scatter (+ reduce) / scatter_add / scatter_reduce, index_select, index_add,
index_fill, index_put, masked_select / masked_fill, take / take_along_dim, nonzero / argwhere,
one_hot, triu / tril (+ indices), diagonal / diag / diag_embed, and `Tensor.__getitem__` /
`__setitem__` (basic indexing returns views; advanced indexing follows NumPy/PyTorch placement).

Speed: gather/scatter-like ops on C-contiguous arrays use flat offsets (`np.take` on the raveled
array, fancy assignment, `np.add.at` on 1-D flat indices) instead of `take_along_axis` /
multi-dimensional `ufunc.at`. Index tensors are not differentiable inputs, so they are passed to
`Op.apply` as keywords (PyTorch's grad_fn lists edges only for self/src/values, never for indices).
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op, _mark_view
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, _wrap_dim
from .registry import OPS as _OPS
from .inplace import VIEW_LEAF_INPLACE_MSG, _any_requires_grad, check_inplace, make_inplace, rebase
from .registry import export, register

# -- small helpers -------------------------------------------------------------------------------------------

_INT_IDX = (np.dtype(np.int64), np.dtype(np.int32))
_I64 = np.dtype(np.int64)
_OVERLAP_MSG = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.")
from ..dtypes import CPP_NAMES as _CPP_NAME, SCALAR_NAMES as _SCALAR_NAME


def _sname(arr_or_dtype) -> str:
    """PyTorch's ScalarType name ('Float', 'Long', ...) of a NumPy array or dtype."""
    d = arr_or_dtype.dtype if hasattr(arr_or_dtype, "dtype") else np.dtype(arr_or_dtype)
    return _SCALAR_NAME[d.name]


def _lst(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _nonempty_dim(n):
    return n if n > 0 else 1


def _nonempty_size(arr, d):
    """PyTorch's ensure_nonempty_size: 1 for 0-d tensors, else size(d) (IndexError when d is out of range)."""
    if arr.ndim == 0:
        return 1
    if d >= arr.ndim:
        n = arr.ndim
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return arr.shape[d]


def _c_strides(shape):
    st = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        st[d] = acc
        acc *= int(shape[d])
    return st


def _first_bad(idx, lo, hi):
    """First element of idx (C order) outside [lo, hi)."""
    flat = np.asarray(idx).reshape(-1)
    bad = np.flatnonzero((flat < lo) | (flat >= hi))
    return int(flat[bad[0]])


def _out_of_range(idx, size, allow_negative):
    """True if some element of idx lies outside [0, size) (or [-size, size) when negatives are allowed)."""
    if idx.size == 0:
        return False
    if allow_negative:
        return bool(idx.min() < -size or idx.max() >= size)
    # one pass: negative values become huge when viewed as unsigned
    u = idx.view(np.uint64 if idx.dtype.itemsize == 8 else np.uint32)
    return bool(u.max() >= size)


def _wrap_negative(idx, size):
    """idx as int64 with negative entries wrapped (bounds already checked)."""
    if idx.dtype != _I64:
        idx = idx.astype(np.int64)
    if idx.size and idx.min() < 0:
        idx = np.where(idx < 0, idx + size, idx)
    return idx


def _is_dense(a):
    """Non-overlapping and dense (any dim order), as PyTorch's overlap checks require."""
    if a.size <= 1:
        return True
    span = a.itemsize + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides))
    return span == a.nbytes


def _ranges_overlap(a, b):
    """PyTorch's get_overlap_status != NO for two arrays (TOO_HARD counts as no overlap)."""
    if not np.may_share_memory(a, b):   # cheap bounds test first
        return False
    if a.size == 0 or b.size == 0 or not _is_dense(a) or not _is_dense(b):
        return False
    pa = a.__array_interface__["data"][0] + sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    pb = b.__array_interface__["data"][0] + sum(min(0, (n - 1) * s) for n, s in zip(b.shape, b.strides))
    return pa < pb + b.nbytes and pb < pa + a.nbytes


def _assert_no_overlap(dst, *srcs):
    for s in srcs:
        if s is not None and _ranges_overlap(dst, s):
            raise RuntimeError(_OVERLAP_MSG)


def _value_scalar(value, npdt):
    """A Python number (or 0-d tensor) as a NumPy scalar of dtype npdt (cast like PyTorch's fill)."""
    v = value._data if isinstance(value, Tensor) else value
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(npdt)[()]


def _contiguous_target(arr):
    """(work array, needs copy-back): a C-contiguous array to write flat offsets into."""
    if arr.flags.c_contiguous:
        return arr, False
    return np.ascontiguousarray(arr), True


def _out_arg(result, out):
    if out is None:
        return result
    from .pointwise import _out
    return _out(result, out)


def _check_alloc(shape, dtype):
    from ..creation import check_alloc
    check_alloc(shape, dtype)


# -- index-mapping rules for `tensorcli --explain` ----------------------------------------------------------

_VARS = "ijklmnpqrs"


def _vars(ndim):
    return [(_VARS[k] if k < len(_VARS) else f"i{k}") for k in range(max(int(ndim), 1))]


def _sub(v):
    return "".join(f"[{x}]" for x in v)


def _rule_dim(ndim, dim):
    n = max(int(ndim), 1)
    d = int(dim) if dim is not None else n - 1
    d = d + n if d < 0 else d
    return min(max(d, 0), n - 1)


def _along(v, d, index_name):
    s = list(v)
    s[d] = f"{index_name}{_sub(v)}"
    return s


def _gather_rule(ndim, dim):
    v = _vars(ndim)
    return f"out{_sub(v)} = input{_sub(_along(v, _rule_dim(ndim, dim), 'index'))}"


def _scatter_rule(ndim, dim):
    v = _vars(ndim)
    return f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))} = src{_sub(v)}"


def _scatter_add_rule(ndim, dim):
    v = _vars(ndim)
    return f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))} += src{_sub(v)}"


def _scatter_reduce_rule(ndim, dim, reduce="sum", include_self=True):
    v = _vars(ndim)
    dst = f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))}"
    if reduce == "sum":
        return f"{dst} += src{_sub(v)}"
    how = {"prod": "product", "mean": "mean", "amax": "maximum", "amin": "minimum"}.get(reduce, reduce)
    own = "" if include_self else " (self's own value excluded)"
    return f"{dst} = {how} of the src{_sub(v)} scattered to it{own}"


def _take_along_dim_rule(ndim, dim):
    if dim is None:
        return "out[i] = input.flatten()[indices.flatten()[i]]"
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"indices{_sub(v)}"
    return f"out{_sub(v)} = input{_sub(s)}"


def _index_select_rule(ndim, dim):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    return f"out{_sub(v)} = input{_sub(s)}"


def _index_add_rule(ndim, dim, alpha=1):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    scale = "" if alpha == 1 else f"{alpha} * "
    return f"self{_sub(s)} += {scale}source{_sub(v)}"


def _index_fill_rule(ndim, dim):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    return f"self{_sub(s)} = value"


def _index_put_rule(ndim, dim=None, accumulate=False):
    n = max(int(ndim), 1)
    dst = "".join(f"[indices[{k}][i]]" for k in range(n))
    return f"self{dst} {'+=' if accumulate else '='} values[i]  (one index tensor per dim)"


def _take_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)} = input.flatten()[index{_sub(v)}]"


def _masked_select_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out[n] = input{_sub(v)} where {_sub(v)} is the n-th True position of mask (row-major)"


def _masked_fill_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)} = value if mask{_sub(v)} else input{_sub(v)}"


def _plus(var, k):
    return var if k == 0 else f"{var} + {k}"


def _diagonal_rule(ndim, dim=None, offset=0, dim1=0, dim2=1):
    n = max(int(ndim), 2)
    d1, d2 = _rule_dim(n, dim1), _rule_dim(n, dim2)
    rest = list("jklmnpqrs")[:n - 2]
    ins, it = [], iter(rest)
    for d in range(n):
        if d == d1:
            ins.append(_plus("i", max(0, -offset)))
        elif d == d2:
            ins.append(_plus("i", max(0, offset)))
        else:
            ins.append(next(it))
    return f"out{_sub(rest + ['i'])} = input{_sub(ins)}"


def _triu_rule(ndim, dim=None):
    return "out[i][j] = input[i][j] if j - i >= diagonal else 0"


def _tril_rule(ndim, dim=None):
    return "out[i][j] = input[i][j] if j - i <= diagonal else 0"


def _one_hot_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)}[c] = 1 if input{_sub(v)} == c else 0"


def _diag_embed_rule(ndim, dim=None, offset=0, dim1=-2, dim2=-1):
    n = max(int(ndim), 1) + 1
    d1, d2 = _rule_dim(n, dim1), _rule_dim(n, dim2)
    v = _vars(n - 1)
    t, rest = v[-1], iter(v[:-1])
    outs = []
    for d in range(n):
        if d == d1:
            outs.append(_plus(t, max(0, -offset)))
        elif d == d2:
            outs.append(_plus(t, max(0, offset)))
        else:
            outs.append(next(rest))
    return f"out{_sub(outs)} = input{_sub(v)}"


# -- flat-offset kernels (C-contiguous arrays) -----------------------------------------------------------------

def _flat_along(shape, dim, idx):
    """Flat C-order offsets into an array of `shape`: position p of idx addresses the element whose
    coordinates are p with coordinate `dim` replaced by idx[p] (idx may be smaller than shape)."""
    st = _c_strides(shape)
    base = None
    nd = idx.ndim
    for d in range(nd):
        if d == dim or idx.shape[d] == 1:
            continue
        r = np.arange(idx.shape[d], dtype=np.int64) * st[d]
        r = r.reshape([-1 if k == d else 1 for k in range(nd)])
        base = r if base is None else base + r
    if st[dim] == 1:
        if base is None:
            return idx if idx.dtype == _I64 else idx.astype(np.int64)
        return np.add(idx, base, dtype=np.int64)
    flat = np.multiply(idx, st[dim], dtype=np.int64)
    if base is not None:
        flat += base
    return flat


def _src_region(src, ishape):
    """src restricted to the leading ishape block (scatter uses only that part of a larger src)."""
    if src.shape == tuple(ishape):
        return src
    return src[tuple(slice(0, s) for s in ishape)]


def _gather_np(a, dim, idx):
    """out[p] = a[p with p[dim] = idx[p]] for validated idx (0 <= idx < a.shape[dim]); a is >= 1-d."""
    if idx.size == 0:
        return np.empty(idx.shape, a.dtype)
    if a.flags.c_contiguous:
        return np.take(a.reshape(-1), _flat_along(a.shape, dim, idx), mode="wrap")
    sub = a[tuple(slice(None) if d == dim else slice(0, idx.shape[d]) for d in range(a.ndim))]
    return np.take_along_axis(sub, idx, dim)


def _scatter_np(out, dim, idx, src, how):
    """Write src (array, index-shaped region used) or a scalar into `out` in place along dim.
    how: 'set' | 'add' | 'multiply' | 'amax' | 'amin'."""
    if idx.size == 0:
        return
    work, copy_back = _contiguous_target(out)
    flat = _flat_along(work.shape, dim, idx).reshape(-1)
    wv = work.reshape(-1)
    vals = src if np.ndim(src) == 0 else np.ascontiguousarray(_src_region(src, idx.shape)).reshape(-1)
    if how == "set":
        wv[flat] = vals
    else:
        ufunc = {"add": np.add, "multiply": np.multiply, "amax": np.maximum, "amin": np.minimum}[how]
        ufunc.at(wv, flat, vals)
    if copy_back:
        np.copyto(out, work)


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
    size = _nonempty_size(a, dim)
    if _out_of_range(idx, size, False):
        raise RuntimeError(f"index {_first_bad(idx, 0, size)} is out of bounds for dimension {dim} with size {size}")
    return dim, idx


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


@register(category="indexing", methods=("gather",), kind="gather", rule=_gather_rule, cli=True)
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Collect values along dim: out[i][j] = input[i][index[i][j]] for dim=1 (shape of index).

    index may be smaller than input in the other dims; indices must lie in [0, input.size(dim)).
    sparse_grad=True is accepted; the gradient is returned dense (same values)."""
    d, idx = _gather_checks("gather", input, dim, index)
    return _out_arg(GatherBackward0.apply(input, d, index=index, idx=idx), out)


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
    size = _nonempty_size(a, dim)
    if _out_of_range(idx, size, False):
        raise RuntimeError(f"index {_first_bad(idx, 0, size)} is out of bounds for dimension {dim} with size {size}")
    return dim, idx


def _scatter_apply(a, dim, idx, src, how):
    """Write into array `a` in place (handles 0-d)."""
    if idx is None:
        return
    if a.ndim == 0:
        view = a.reshape(1)
        s = src if np.ndim(src) == 0 else np.asarray(src).reshape(-1)
        _scatter_np(view, dim, idx.reshape(-1), s, how)
        return
    s = src
    if np.ndim(src) != 0 and np.ndim(src) < a.ndim:
        s = np.asarray(src).reshape((1,) * (a.ndim - np.ndim(src)) + np.shape(src))
    _scatter_np(a, dim, idx if idx.ndim else idx.reshape((1,) * a.ndim), s, how)


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
_REDUCE_WARNING = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                   "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.")


@register(category="indexing", methods=("scatter",), kind="scatter", rule=_scatter_rule, cli=True)
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
            warnings.warn(_REDUCE_WARNING, UserWarning, stacklevel=2)
        args = (input, source) if is_tensor else (input,)
        r = _ScatterNotImplemented.apply(*args, dim=d, index=index, idx=idx, src=source, how=reduce)
    elif is_tensor:
        r = ScatterBackward0.apply(input, source, d, index=index, idx=idx)
    else:
        r = ScatterBackward1.apply(input, d, index=index, idx=idx, value=source)
    return _out_arg(r, out)


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


@register(category="indexing", methods=("scatter_add",), kind="scatter", rule=_scatter_add_rule, cli=True)
def scatter_add(input, dim, index, src, *, out=None):
    """Add src into a copy of input at index along dim (duplicate indices accumulate).

    self[i][index[i][j]] += src[i][j] for dim=1."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(input, dim, index, src)
    return _out_arg(ScatterAddBackward0.apply(input, src, d, index=index, idx=idx), out)


def _reduce_identity(how, npdt):
    if how in ("sum", "mean"):
        return np.zeros((), npdt)[()]
    if how == "prod":
        return np.ones((), npdt)[()]
    if npdt.kind == "f":
        return npdt.type(-np.inf if how == "amax" else np.inf)
    if npdt.kind == "b":
        return np.bool_(how == "amin")
    info = np.iinfo(npdt)
    return npdt.type(info.min if how == "amax" else info.max)


def _scatter_reduce_np(a, dim, idx, src, how, include_self):
    out = a.copy()
    if idx is None:
        return out
    if out.ndim == 0:
        return _scatter_reduce_np(out.reshape(1), dim, idx.reshape(-1), src.reshape(-1), how, include_self).reshape(())
    if idx.ndim == 0:
        idx = idx.reshape((1,) * out.ndim)
    if src.ndim < out.ndim:
        src = src.reshape((1,) * (out.ndim - src.ndim) + src.shape)
    if not include_self:
        _scatter_np(out, dim, idx, _reduce_identity(how, out.dtype), "set")
    ufunc_how = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "amax", "amin": "amin"}[how]
    _scatter_np(out, dim, idx, src, ufunc_how)
    if how == "mean":
        counts = np.zeros(out.shape, np.int64)
        _scatter_np(counts, dim, idx, np.ones((), np.int64), "add")
        if include_self:
            counts += 1
        counts[counts == 0] = 1
        if out.dtype.kind == "f":
            out /= counts.astype(out.dtype)
        else:
            np.floor_divide(out, counts, out=out, casting="unsafe")
    return out


class ScatterReduceBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, src, dim, *, index, idx, reduce, include_self):
        ctx.save_for_backward(a, src, index)
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        return _scatter_reduce_np(a._data, dim, idx, src._data, reduce, include_self)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's scatter_reduce_backward (FunctionsManual.cpp), written with core ops.
        from .pointwise import where
        self_, src, index, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if reduce == "sum":
            grad_self, grad_src = grad, grad.gather(dim, index)
        elif reduce == "prod":
            masked_self = self_.masked_fill(self_ == 0, 1)
            masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
            grad_self = grad * masked_self_result / masked_self
            src_zero = src == 0
            src_num_zeros = _zeros_like(self_).scatter_add(dim, index, src_zero.to(self_.dtype)).gather(dim, index)
            src_single_zero = src_zero & (src_num_zeros == 1)
            masked_src = src.masked_fill(src_single_zero, 1)
            masked_src_result = self_.scatter_reduce(dim, index, masked_src, reduce, include_self=include_self)
            grad_src = where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                             (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
        elif reduce == "mean":
            n = _ones_like(grad) if include_self else _zeros_like(grad)
            n = n.scatter_add(dim, index, _ones_like(src))
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = grad.gather(dim, index) / n.gather(dim, index)
        else:  # amax / amin: split the gradient evenly among all elements equal to the result
            value = result.gather(dim, index)
            self_is_result = (self_ == result).to(self_.dtype)
            src_is_result = (src == value).to(self_.dtype)
            n_to_distribute = self_is_result.scatter_add(dim, index, src_is_result)
            grad_distributed = grad / n_to_distribute
            grad_self = (self_ == result) * grad_distributed
            grad_src = (src == value) * grad_distributed.gather(dim, index)
        if not include_self:
            grad_self = grad_self.scatter(dim, index, 0)
        return grad_self, grad_src


def _zeros_like(t):
    return Tensor._make(np.zeros(t._data.shape, t._data.dtype))


def _ones_like(t):
    return Tensor._make(np.ones(t._data.shape, t._data.dtype))


@register(category="indexing", methods=("scatter_reduce",), kind="scatter", rule=_scatter_reduce_rule, cli=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduce src into a copy of input at index along dim (sum, prod, mean, amax or amin).

    include_self=False leaves input's own values out at the positions that are scattered to. Gradients as
    PyTorch's: amax/amin split the gradient evenly among all elements equal to the result."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(input, dim, index, src)
    if reduce not in _REDUCE_NEW:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    r = ScatterReduceBackward0.apply(input, src, d, index=index, idx=idx, reduce=reduce,
                                     include_self=bool(include_self))
    return _out_arg(r, out)


def _fast_inplace(outofplace, name, direct):
    """In-place method: the generic snapshot/rebase path when a graph is recorded, else `direct(self, ...)`
    writes straight into self's array (no copy). `direct` validates like the out-of-place op."""
    generic = make_inplace(outofplace, name)

    def method(self, *args, **kwargs):
        if STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs)):
            _inplace_overlap_check(self, args, kwargs)
            return generic(self, *args, **kwargs)
        check_inplace(self)
        direct(self, *args, **kwargs)
        if not self._inference:
            self._vc[0] += 1
        return self

    method.__name__ = name
    method.__doc__ = f"In-place version of {outofplace.__name__}."
    return method


def _inplace_overlap_check(self, args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            _assert_no_overlap(self._data, a._data)


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
            warnings.warn(_REDUCE_WARNING, UserWarning, stacklevel=3)
        how = reduce
    s = source._data if is_tensor else _value_scalar(source, self._data.dtype)
    _scatter_apply(self._data, d, idx, s, how)


def _scatter_add_direct(self, dim, index, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add_(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(self, dim, index, src)
    _assert_no_overlap(self._data, index._data, src._data)
    _scatter_apply(self._data, d, idx, src._data, "add")


def _scatter_reduce_direct(self, dim, index, src, reduce, *, include_self=True):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce_(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(self, dim, index, src)
    if reduce not in _REDUCE_NEW:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _assert_no_overlap(self._data, index._data, src._data)
    np.copyto(self._data, _scatter_reduce_np(self._data, d, idx, src._data, reduce, bool(include_self)))


Tensor.scatter_ = _fast_inplace(scatter, "scatter_", _scatter_direct)
Tensor.scatter_add_ = _fast_inplace(scatter_add, "scatter_add_", _scatter_add_direct)
Tensor.scatter_reduce_ = _fast_inplace(scatter_reduce, "scatter_reduce_", _scatter_reduce_direct)
for _n in ("scatter", "scatter_add", "scatter_reduce"):
    _OPS[_n].inplace = _n + "_"


# -- index_select / index_add / index_fill ---------------------------------------------------------------------

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


@register(category="indexing", methods=("index_select",), kind="gather", rule=_index_select_rule, cli=True)
def index_select(input, dim, index, *, out=None):
    """Pick whole slices along dim: out[i][j] = input[index[i]][j] for dim=0 (index is 0-d or 1-d)."""
    d, idx = _index_vector_checks("index_select", input, dim, index)
    a = input._data
    size = _nonempty_size(a, d)
    if _out_of_range(idx, size, False):
        if a.ndim > 1 and d == 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={_first_bad(idx, 0, size)} axis_dim={size}")
        raise IndexError("index out of range in self")
    return _out_arg(IndexSelectBackward0.apply(input, d, index=index, idx=idx), out)


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
        raise IndexError(f"{opname}_(): Indexing dim {dim} is out of bounds of the source tensor with dim {s.ndim}")
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


def _index_add_np(out, dim, idx, src, alpha):
    """out[..., idx[k], ...] += alpha * src[..., k, ...] along dim, in place (duplicates accumulate)."""
    if idx.size == 0:
        return
    if out.ndim == 0:
        s = src.reshape(())
        if out.dtype.kind != "f":
            alpha = int(alpha)
        out[...] = out + (s * alpha if alpha != 1 else s)
        return
    s = src if src.ndim else src.reshape((1,) * out.ndim)
    if out.dtype.kind != "f":
        alpha = int(alpha)  # PyTorch converts alpha to the integer type first
    if alpha != 1:
        with np.errstate(all="ignore"):
            s = (s * alpha).astype(out.dtype, copy=False)
    _add_slabs(out, dim, idx.reshape(-1), s)


_SLAB_LOOP_MIN = 512   # per-index slab size from which a Python loop of vectorized adds beats np.add.at


def _add_slabs(out, dim, idx, src):
    """out[(:,)*dim + (idx[k],)] += src[(:,)*dim + (k,)] for every k, in place (duplicates accumulate)."""
    if out.size // max(out.shape[dim], 1) >= _SLAB_LOOP_MIN:
        lead = (slice(None),) * dim
        for k, i in enumerate(idx.tolist()):
            out[lead + (i,)] += src[lead + (k,)]
        return
    work, copy_back = _contiguous_target(out)
    along = np.broadcast_to(idx.reshape([-1 if d == dim else 1 for d in range(out.ndim)]), src.shape)
    flat = _flat_along(work.shape, dim, along)
    np.add.at(work.reshape(-1), flat.reshape(-1), np.ascontiguousarray(np.broadcast_to(src, flat.shape)).reshape(-1))
    if copy_back:
        np.copyto(out, work)


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


@register(category="indexing", methods=("index_add",), kind="scatter", rule=_index_add_rule, cli=True)
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Add alpha * source slices into a copy of input at index along dim (duplicates accumulate).

    self[index[i]][j] += alpha * source[i][j] for dim=0."""
    d, idx = _index_add_checks("index_add", input, dim, index, source)
    _index_add_bounds(input, d, idx, alpha)
    return _out_arg(IndexAddBackward0.apply(input, source, d, index=index, idx=idx, alpha=alpha), out)


def _index_add_direct(self, dim, index, source, *, alpha=1):
    d, idx = _index_add_checks("index_add", self, dim, index, source)
    _index_add_bounds(self, d, idx, alpha)
    _assert_no_overlap(self._data, index._data, source._data)
    _index_add_np(self._data, d, idx, source._data, alpha)


Tensor.index_add_ = _fast_inplace(index_add, "index_add_", _index_add_direct)
_OPS["index_add"].inplace = "index_add_"


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


@register(category="indexing", methods=("index_fill",), kind="scatter", rule=_index_fill_rule, cli=True)
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


Tensor.index_fill_ = _fast_inplace(index_fill, "index_fill_", _index_fill_direct)
_OPS["index_fill"].inplace = "index_fill_"


# -- masked_fill / masked_select --------------------------------------------------------------------------------

def _broadcast_pair(a_shape, b_shape):
    """infer_size(a, b) with PyTorch's message (a is named 'tensor a')."""
    try:
        return np.broadcast_shapes(a_shape, b_shape)
    except ValueError:
        n = max(len(a_shape), len(b_shape))
        pa = (1,) * (n - len(a_shape)) + tuple(a_shape)
        pb = (1,) * (n - len(b_shape)) + tuple(b_shape)
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                                   f"non-singleton dimension {i}") from None
        raise


class MaskedFillBackward0(Op):
    """masked_fill with a scalar value."""

    @staticmethod
    def forward(ctx, a, *, mask, value, shape):
        ctx.save_for_backward(mask)
        out = np.array(np.broadcast_to(a._data, shape))
        np.copyto(out, _value_scalar(value, out.dtype), where=np.broadcast_to(mask._data, shape))
        return out

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        return g.masked_fill(mask, 0)


class MaskedFillBackward1(Op):
    """masked_fill with a 0-d tensor value."""

    @staticmethod
    def forward(ctx, a, value, *, mask, shape):
        ctx.save_for_backward(mask)
        out = np.array(np.broadcast_to(a._data, shape))
        np.copyto(out, _value_scalar(value, out.dtype), where=np.broadcast_to(mask._data, shape))
        return out

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        gv = masked_select(g, mask).sum() if ctx.needs_input_grad[1] else None
        return g.masked_fill(mask, 0), gv


def _masked_fill_checks(input, mask, value):
    """Validate like PyTorch's masked_fill; returns the broadcast shape of mask and input."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    shape = _broadcast_pair(mask._data.shape, input._data.shape)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_NAME[mask._data.dtype.name]}")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
    elif not isinstance(value, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"masked_fill(): argument 'value' (position 2) must be Number, not {type(value).__name__}")
    return shape


@register(category="indexing", methods=("masked_fill",), kind="scatter", rule=_masked_fill_rule, cli=True)
def masked_fill(input, mask, value):
    """Copy of input (broadcast with mask) with value written where the bool mask is True.

    value is a number or a 0-d tensor, cast to input's dtype."""
    shape = _masked_fill_checks(input, mask, value)
    if isinstance(value, Tensor):
        return MaskedFillBackward1.apply(input, value, mask=mask, shape=shape)
    return MaskedFillBackward0.apply(input, mask=mask, value=value, shape=shape)


def _masked_fill_direct(self, mask, value):
    shape = _masked_fill_checks(self, mask, value)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {_lst(self._data.shape)} doesn't match the broadcast shape "
                           f"{_lst(shape)}")
    np.copyto(self._data, _value_scalar(value, self._data.dtype), where=np.broadcast_to(mask._data, shape))


Tensor.masked_fill_ = _fast_inplace(masked_fill, "masked_fill_", _masked_fill_direct)
_OPS["masked_fill"].inplace = "masked_fill_"


class MaskedSelectBackward0(Op):
    @staticmethod
    def forward(ctx, a, *, mask, shape):
        ctx.save_for_backward(mask)
        ctx.shape = shape
        m = mask._data
        x = a._data
        if x.shape == shape and m.shape == shape:
            return x[m]
        return np.broadcast_to(x, shape)[np.broadcast_to(m, shape)]

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        return _MaskedScatterIntoZeros.apply(g, mask=mask, shape=ctx.shape)


class _MaskedScatterIntoZeros(Op):
    def name(self):
        return "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, g, *, mask, shape):
        ctx.save_for_backward(mask)
        out = np.zeros(shape, g._data.dtype)
        out[np.broadcast_to(mask._data, shape)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        (mask,) = ctx.saved_tensors
        return masked_select(gg, mask)


@register(category="indexing", methods=("masked_select",), kind="gather", rule=_masked_select_rule, cli=True)
def masked_select(input, mask, *, out=None):
    """1-D tensor of the elements of input (broadcast with mask) where the bool mask is True, in row-major order."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_select(): argument 'mask' (position 2) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast_pair(mask._data.shape, input._data.shape)
    return _out_arg(MaskedSelectBackward0.apply(input, mask=mask, shape=shape), out)


# -- take / take_along_dim ----------------------------------------------------------------------------------------

class TakeBackward0(Op):
    @staticmethod
    def forward(ctx, a, *, index, idx):
        ctx.save_for_backward(index)
        ctx.shape = a._data.shape
        x = a._data
        flat = x.reshape(-1) if x.flags.c_contiguous else np.ascontiguousarray(x).reshape(-1)
        if idx.size == 0:
            return np.empty(idx.shape, x.dtype)
        return np.take(flat, idx, mode="wrap")  # idx validated; 'wrap' maps negatives like PyTorch

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return _PutAccumulateIntoZeros.apply(g, index=index, shape=ctx.shape)


class _PutAccumulateIntoZeros(Op):
    def name(self):
        return "PutBackward0"

    @staticmethod
    def forward(ctx, g, *, index, shape):
        ctx.save_for_backward(index)
        n = math.prod(shape)
        out = np.zeros(n, g._data.dtype)
        idx = _wrap_negative(index._data.reshape(-1), n)
        if idx.size:
            np.add.at(out, idx, np.ascontiguousarray(g._data).reshape(-1))
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, gg):
        (index,) = ctx.saved_tensors
        return take(gg, index)


@register(category="indexing", methods=("take",), kind="gather", rule=_take_rule, cli=True)
def take(input, index, *, out=None):
    """Elements of input treated as 1-D, at index (int64, any shape; negative counts from the end)."""
    idx = index._data
    if idx.dtype != _I64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_sname(idx)}")
    n = input._data.size
    if n == 0 and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    if _out_of_range(idx, n, True):
        raise IndexError(f"out of range: tried to access index {_first_bad(idx, -n, n)} on a tensor of {n} elements.")
    return _out_arg(TakeBackward0.apply(input, index=index, idx=idx), out)


@register(category="indexing", methods=("take_along_dim",), kind="gather", rule=_take_along_dim_rule, cli=True)
def take_along_dim(input, indices, dim=None, *, out=None):
    """Gather along dim after broadcasting input and indices; dim=None works on the flattened input.

    With a dim, indices are taken modulo input.size(dim), as PyTorch 2.13 does."""
    if dim is None:
        r = gather(input.reshape(-1), 0, indices.reshape(-1))
        return _out_arg(r, out)
    a, i = input._data, indices._data
    if a.ndim != i.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {a.ndim} dimensions for input, and {i.ndim} dimensions for indices")
    if i.dtype != _I64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_sname(i)}")
    d = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _out_arg(gather(input, 0, indices), out)
    s1 = list(a.shape)
    s1[d] = i.shape[d]
    ishape = _broadcast_pair(tuple(s1), i.shape)
    s2 = list(i.shape)
    s2[d] = a.shape[d]
    ashape = _broadcast_pair(tuple(s2), a.shape)
    size = ashape[d]
    ib = np.broadcast_to(i, ishape)
    if size > 0:
        ib = ib % size  # wrap negative (and larger) indices like PyTorch's take_along_dim
    r = gather(input.expand(ashape), d, Tensor._make(np.ascontiguousarray(ib)))
    return _out_arg(r, out)


# -- nonzero / argwhere -----------------------------------------------------------------------------------------

@register(category="indexing", methods=("nonzero",), cli=True)
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the nonzero elements: an int64 [n, ndim] tensor, or with as_tuple=True one 1-D tensor per dim."""
    a = input._data
    if as_tuple:
        if a.ndim == 0:
            return (Tensor._make(np.zeros(1 if a.item() else 0, np.int64)),)
        return tuple(Tensor._make(x.astype(np.int64, copy=False)) for x in np.nonzero(a))
    if a.ndim == 0:
        r = np.zeros((1 if a.item() else 0, 0), np.int64)
    else:
        r = np.argwhere(a).astype(np.int64, copy=False)
    return _out_arg(Tensor._make(r), out)


@register(category="indexing", methods=("argwhere",), cli=True)
def argwhere(input):
    """Indices of the nonzero elements as an int64 [n, ndim] tensor (same as nonzero)."""
    return nonzero(input)


# -- one_hot, triangles, diagonals -------------------------------------------------------------------------------

@register(category="indexing", kind=None, rule=_one_hot_rule, cli=True)
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding: out[..., c] = 1 where tensor == c; num_classes=-1 uses max(tensor) + 1."""
    a = tensor._data
    if a.dtype != _I64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = int(num_classes)
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        num_classes = int(a.max()) + 1
    elif a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    shape = a.shape + (num_classes,)
    _check_alloc(shape, _dt.int64)
    out = np.zeros(shape, np.int64)
    if a.size:
        flat = out.reshape(-1, num_classes)
        flat[np.arange(a.size), a.reshape(-1)] = 1
    return Tensor._make(out)


def _tri_indices(name, row, col, offset, dtype, upper):
    for nm, v in (("row", row), ("col", col)):
        if int(v) < 0:
            raise RuntimeError(f"{nm} must be non-negative, got{int(v)}")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    if dt not in (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_SCALAR_NAME[dt.name]}'")
    fn = np.triu_indices if upper else np.tril_indices
    r, c = fn(int(row), int(offset), int(col))
    return Tensor._make(np.stack([r, c]).astype(dt.np).reshape(2, -1))


@register(category="indexing")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """2 x N int64 tensor of the (row, col) coordinates of the upper triangle (j - i >= offset), row-major."""
    return _tri_indices("triu_indices", row, col, offset, dtype, True)


@register(category="indexing")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """2 x N int64 tensor of the (row, col) coordinates of the lower triangle (j - i <= offset), row-major."""
    return _tri_indices("tril_indices", row, col, offset, dtype, False)


class TriuBackward0(Op):
    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return np.triu(a._data, diagonal)

    @staticmethod
    def backward(ctx, g):
        return triu(g, ctx.diagonal)


class TrilBackward0(Op):
    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return np.tril(a._data, diagonal)

    @staticmethod
    def backward(ctx, g):
        return tril(g, ctx.diagonal)


@register(category="indexing", methods=("triu",), inplace="triu_", kind="gather", rule=_triu_rule, cli=True)
def triu(input, diagonal=0, *, out=None):
    """Upper triangle of the last two dims (elements with j - i >= diagonal), zeros elsewhere."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _out_arg(TriuBackward0.apply(input, int(diagonal)), out)


@register(category="indexing", methods=("tril",), inplace="tril_", kind="gather", rule=_tril_rule, cli=True)
def tril(input, diagonal=0, *, out=None):
    """Lower triangle of the last two dims (elements with j - i <= diagonal), zeros elsewhere."""
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _out_arg(TrilBackward0.apply(input, int(diagonal)), out)


def _diag_dims(nd, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_view(arr, offset, d1, d2):
    """Writable NumPy view of the diagonal (like torch.diagonal: remaining dims first, diagonal last)."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = [0] * arr.ndim
        start[d2] = min(offset, n2)
    else:
        length = max(0, min(n1 + offset, n2))
        start = [0] * arr.ndim
        start[d1] = min(-offset, n1)
    sub = arr[tuple(slice(s, None) for s in start)]
    other = [d for d in range(arr.ndim) if d not in (d1, d2)]
    shape = [arr.shape[d] for d in other] + [length]
    strides = [sub.strides[d] for d in other] + [sub.strides[d1] + sub.strides[d2]]
    if length == 0 or any(s == 0 for s in shape):
        return np.empty(shape, arr.dtype)
    return np.lib.stride_tricks.as_strided(sub, shape=shape, strides=strides, writeable=arr.flags.writeable)


class DiagonalBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (a._data.shape, offset, d1, d2)
        return _diag_view(a._data, offset, d1, d2)

    @staticmethod
    def backward(ctx, g):
        shape, offset, d1, d2 = ctx.args
        return _DiagonalIntoZeros.apply(g, shape=shape, offset=offset, d1=d1, d2=d2)


class _DiagonalIntoZeros(Op):
    def name(self):
        return "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, g, *, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = np.zeros(shape, g._data.dtype)
        _diag_view(out, offset, d1, d2)[...] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        offset, d1, d2 = ctx.args
        return diagonal(gg, offset, d1, d2)


@register(category="indexing", methods=("diagonal",), kind="gather", rule=_diagonal_rule, cli=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """View of the diagonals of the (dim1, dim2) planes; the diagonal becomes the last dim.

    offset > 0 is above the main diagonal, offset < 0 below."""
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    return DiagonalBackward0.apply(input, int(offset), d1, d2)


class DiagonalBackward0_copy(Op):  # noqa: N801 - PyTorch's node name for diag() of a matrix
    @staticmethod
    def forward(ctx, a, offset):
        ctx.args = (a._data.shape, offset)
        return _diag_view(a._data, offset, 0, 1).copy()

    @staticmethod
    def backward(ctx, g):
        shape, offset = ctx.args
        return _DiagonalIntoZeros.apply(g, shape=shape, offset=offset, d1=0, d2=1)


class DiagEmbedBackward0(Op):
    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        x = a._data
        n = (x.shape[-1] if x.ndim else 1) + abs(offset)
        other = list(x.shape[:-1])
        shape = []
        it = iter(other)
        for d in range(len(other) + 2):
            shape.append(n if d in (d1, d2) else next(it))
        _check_alloc(shape, _dt._FROM_NP[x.dtype])
        out = np.zeros(shape, x.dtype)
        _diag_view(out, offset, d1, d2)[...] = x
        return out

    @staticmethod
    def backward(ctx, g):
        offset, d1, d2 = ctx.args
        return diagonal(g, offset, d1, d2)


@register(category="indexing", methods=("diag_embed",), kind="scatter", rule=_diag_embed_rule, cli=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensor whose (dim1, dim2) diagonals (at offset) are the last dim of input; zeros elsewhere."""
    nd = input._data.ndim + 1
    d1, d2 = _diag_dims(nd, dim1, dim2)
    return DiagEmbedBackward0.apply(input, int(offset), d1, d2)


@register(category="indexing", methods=("diag",), cli=True)
def diag(input, diagonal=0, *, out=None):
    """1-D input: square matrix with input on the given diagonal; 2-D input: that diagonal as a 1-D copy."""
    nd = input._data.ndim
    if nd == 1:
        return _out_arg(DiagEmbedBackward0.apply(input, int(diagonal), 0, 1), out)
    if nd == 2:
        return _out_arg(DiagonalBackward0_copy.apply(input, int(diagonal)), out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


# -- advanced indexing machinery (index, index_put, __getitem__, __setitem__) -----------------------------------

_UINT8_WARNING = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _prep_adv(shape, entries):
    """Validate advanced indices like PyTorch's make_info and return one int64 array (broadcast, negative
    entries wrapped) or None per dim of `shape`. `entries` is [(dim, ndarray)] in dim order."""
    for _, arr in entries:
        if arr.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    per_dim = [None] * len(shape)
    used = 0
    for dim, arr in entries:
        if arr.dtype == np.bool_ or arr.dtype == np.uint8:
            if arr.dtype == np.uint8:
                warnings.warn(_UINT8_WARNING, UserWarning, stacklevel=4)
                arr = arr.astype(bool)
            for j in range(arr.ndim):
                src = dim + j
                if src >= len(shape) or arr.shape[j] != shape[src]:
                    if src >= len(shape):
                        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
                    raise IndexError(f"The shape of the mask {_lst(arr.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {_lst(shape)} at index {src}")
            for j, nz in enumerate(np.nonzero(arr)):
                per_dim[dim + j] = nz
            used = max(used, dim + arr.ndim)
        else:
            if dim >= len(shape):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {dim + 1})")
            per_dim[dim] = arr
            used = max(used, dim + 1)
    arrays = [a for a in per_dim if a is not None]
    if not arrays:
        return per_dim
    try:
        bshape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_lst(a.shape) for a in arrays)) from None
    # PyTorch reports the first bad element of the broadcast result (then the first index tensor), and names
    # the index tensor's ordinal among the advanced indices as "dimension"
    rest = 1
    for d, a in enumerate(per_dim):
        if a is None:
            rest *= shape[d]
    if rest * math.prod(bshape) == 0:   # empty result: PyTorch's kernel never looks at the indices
        return [None if a is None else np.zeros(bshape, np.int64) for a in per_dim]
    bad = None  # (flat position, ordinal, value, size)
    k = -1
    for d, a in enumerate(per_dim):
        if a is None:
            continue
        k += 1
        size = shape[d]
        if _out_of_range(a, size, True):
            ab = np.broadcast_to(a, bshape).reshape(-1)
            pos = int(np.flatnonzero((ab < -size) | (ab >= size))[0])
            if bad is None or pos < bad[0]:
                bad = (pos, k, int(ab[pos]), size)
    if bad is not None:
        raise IndexError(f"index {bad[2]} is out of bounds for dimension {bad[1]} with size {bad[3]}")
    for d, a in enumerate(per_dim):
        if a is not None:
            per_dim[d] = np.broadcast_to(_wrap_negative(a, shape[d]), bshape)
    return per_dim


def _index_np(arr, per_dim):
    """arr[per_dim] (NumPy placement rule); empty results are built without indexing."""
    rshape = _positions_shape(arr.shape, per_dim)
    if math.prod(rshape) == 0:
        return np.empty(rshape, arr.dtype)
    return arr[_np_adv_tuple(per_dim)]


def _np_adv_tuple(per_dim):
    last = max(d for d, a in enumerate(per_dim) if a is not None)
    return tuple(slice(None) if a is None else a for a in per_dim[:last + 1])


def _positions(shape, per_dim):
    """Flat C-order offsets (into an array of `shape`) of the elements `arr[per_dim]` selects, laid out like
    the indexing result (advanced dims in place if adjacent, else first - NumPy's and PyTorch's rule)."""
    nd = len(shape)
    st = _c_strides(shape)
    adv = [d for d in range(nd) if per_dim[d] is not None]
    bshape = per_dim[adv[0]].shape
    off = None
    for d in adv:
        term = np.multiply(per_dim[d], st[d], dtype=np.int64)
        off = term if off is None else off + term
    rest = [d for d in range(nd) if per_dim[d] is None]
    if adv == list(range(adv[0], adv[-1] + 1)):
        pre = [d for d in rest if d < adv[0]]
        post = [d for d in rest if d > adv[-1]]
    else:
        pre, post = [], rest
    rshape = tuple(shape[d] for d in pre) + tuple(bshape) + tuple(shape[d] for d in post)
    nr = len(rshape)
    pos = off.reshape((1,) * len(pre) + tuple(bshape) + (1,) * len(post))
    axes = list(range(len(pre))) + list(range(len(pre) + len(bshape), nr))
    for ax, d in zip(axes, pre + post):
        r = (np.arange(shape[d], dtype=np.int64) * st[d]).reshape([-1 if k == ax else 1 for k in range(nr)])
        pos = pos + r
    return np.broadcast_to(pos, rshape)


def _accumulate_into(arr, per_dim, values):
    """arr[per_dim] += values (duplicates accumulate), in place."""
    if not any(p is not None for p in per_dim):
        np.add(arr, values, out=arr, casting="unsafe")
        return
    adv = [d for d, p in enumerate(per_dim) if p is not None]
    if adv == list(range(len(adv))):     # leading advanced dims: add whole slabs (row-like blocks)
        k = len(adv)
        tail = arr.shape[k:]
        if math.prod(tail) >= _SLAB_LOOP_MIN:
            bshape = per_dim[0].shape
            st = _c_strides(arr.shape[:k])
            lin = sum(np.multiply(per_dim[d], st[d], dtype=np.int64) for d in adv)
            rows = arr.reshape((-1,) + tail) if arr.flags.c_contiguous else None
            v = np.broadcast_to(values, tuple(bshape) + tail).reshape((-1,) + tail)
            if rows is not None:
                for j, r in enumerate(np.asarray(lin).reshape(-1).tolist()):
                    rows[r] += v[j]
                return
    work, copy_back = _contiguous_target(arr)
    pos = _positions(work.shape, per_dim)
    if pos.size:
        v = values if np.ndim(values) == 0 else np.broadcast_to(values, pos.shape)
        v = v if np.ndim(v) == 0 else np.ascontiguousarray(v).reshape(-1)
        np.add.at(work.reshape(-1), np.ascontiguousarray(pos).reshape(-1), v)
    if copy_back:
        np.copyto(arr, work)


class IndexBackward0(Op):
    """Advanced indexing (integer arrays / masks); the result is a copy."""

    @staticmethod
    def forward(ctx, a, *, per_dim):
        ctx.shape = a._data.shape
        ctx.per_dim = per_dim
        ctx.save_for_backward(*[Tensor._make(p) for p in per_dim if p is not None])
        return _index_np(a._data, per_dim)

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors  # version/freed checks
        return _IndexPutIntoZeros.apply(g, per_dim=ctx.per_dim, shape=ctx.shape)


class _IndexPutIntoZeros(Op):
    def name(self):
        return "IndexPutBackward0"

    @staticmethod
    def forward(ctx, g, *, per_dim, shape):
        ctx.per_dim = per_dim
        out = np.zeros(shape, g._data.dtype)
        _accumulate_into(out, per_dim, g._data)
        return out

    @staticmethod
    def backward(ctx, gg):
        return IndexBackward0.apply(gg, per_dim=ctx.per_dim)


def _strip_leading_ones(shape):
    shape = tuple(shape)
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return shape[k:]


class _RegionWrite(Op):
    """Writes `value` into a region of `self` (setitem / index_put). Backward: self's gradient is zeroed where
    overwritten (kept everywhere when accumulating); value's gradient is the region of grad (summed to value's
    shape by the engine). The region is saved as flat positions + a bool mask."""

    @staticmethod
    def forward(ctx, a, value, *, write, inplace, positions=None, accumulate=False):
        target = a._data if inplace else a._data.copy()
        if positions is None:
            ctx.full = True
            ctx.save_for_backward()
        else:
            ctx.full = False
            mask = np.zeros(a._data.shape, bool)
            mask.reshape(-1)[positions.reshape(-1)] = True
            ctx.save_for_backward(Tensor._make(positions), Tensor._make(mask))
        ctx.accumulate = accumulate
        write(target)
        return target

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        if ctx.full:
            return (g if ctx.accumulate else g * 0), g
        pos, mask = saved
        gs = g if ctx.accumulate else g.masked_fill(mask, 0)
        gv = take(g, pos) if ctx.needs_input_grad[1] else None
        return gs, gv


class IndexPutBackward0(_RegionWrite):
    pass


class CopySlices(_RegionWrite):
    def name(self):
        return "torch::autograd::CopySlices"


class CopyBackwards(_RegionWrite):
    def name(self):
        return "torch::autograd::CopyBackwards"


class FillBackward3(_RegionWrite):
    pass


def _region_positions(shape, np_basic, per_dim):
    pos = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    pos = pos[np_basic + (Ellipsis,)]
    if per_dim is not None and any(p is not None for p in per_dim):
        pos = _index_np(pos, per_dim)
    return np.asarray(pos)


def _index_put_entries(input, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    entries = []
    dim = 0
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
        entries.append((dim, t._data))
        dim += t._data.ndim if t._data.dtype in (np.bool_, np.uint8) else 1
    nd = input._data.ndim
    if len(indices) > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {len(indices)})")
    return entries


def _masked_fill_dispatch(entries, value):
    """PyTorch's canDispatchToMaskedFill: a single bool/uint8 mask and a one-element value."""
    if value._data.size != 1 or len(entries) != 1:
        return False
    return entries[0][1].dtype in (np.bool_, np.uint8)


def _check_put_value(per_dim, dst_shape, value, entries):
    """Shape and dtype checks of index_put_ (value broadcast to the indexing result)."""
    if _masked_fill_dispatch(entries, value):
        return value._data.reshape(())
    rshape = _positions_shape(dst_shape, per_dim)
    v = value._data
    try:
        ok = np.broadcast_shapes(v.shape, rshape) == tuple(rshape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_lst(v.shape)} cannot be broadcast to indexing "
                           f"result of shape {_lst(rshape)}")
    return v


def _positions_shape(shape, per_dim):
    adv = [d for d in range(len(shape)) if per_dim[d] is not None]
    if not adv:
        return tuple(shape)
    bshape = tuple(per_dim[adv[0]].shape)
    rest = [d for d in range(len(shape)) if per_dim[d] is None]
    if adv == list(range(adv[0], adv[-1] + 1)):
        return tuple(shape[d] for d in rest if d < adv[0]) + bshape + tuple(shape[d] for d in rest if d > adv[-1])
    return bshape + tuple(shape[d] for d in rest)


def _dtype_match(dst, value, entries):
    if value._data.dtype != dst.dtype and not _masked_fill_dispatch(entries, value):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_sname(dst)} for the "
                           f"destination and {_sname(value._data)} for the source.")


def _put_writer(per_dim, v, accumulate, per_dim_shape):
    tup = _np_adv_tuple(per_dim) if any(p is not None for p in per_dim) else (Ellipsis,)

    empty = any(p is not None for p in per_dim) and math.prod(_positions_shape(per_dim_shape, per_dim)) == 0

    def write(target):
        if empty:
            return
        if accumulate:
            _accumulate_into(target, per_dim, v)
        else:
            target[tup] = v
    return write


@register(category="indexing", methods=("index_put",), kind="scatter", rule=_index_put_rule, cli=True)
def index_put(input, indices, values, accumulate=False):
    """Copy of input with values written where a tuple of index tensors points (accumulate=True adds).

    Index tensors (int or bool) address the leading dims and broadcast together; with accumulate=True
    duplicate positions accumulate."""
    entries = _index_put_entries(input, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if not entries:
        raise RuntimeError("index_put(): expected at least one index tensor")
    per_dim = _prep_adv(input._data.shape, entries)
    v = _check_put_value(per_dim, input._data.shape, values, entries)
    _dtype_match(input._data, values, entries)
    write = _put_writer(per_dim, v, accumulate, input._data.shape)
    if STATE.grad_enabled and (input._requires_grad or values._requires_grad):
        pos = _region_positions(input._data.shape, (), per_dim) if any(p is not None for p in per_dim) else None
        return IndexPutBackward0.apply(input, values, write=write, inplace=False, positions=pos,
                                       accumulate=bool(accumulate))
    out = input._data.copy()
    write(out)
    return Tensor._make(out)


def index_put_(self, indices, values, accumulate=False):
    """In-place index_put (see index_put)."""
    entries = _index_put_entries(self, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put_(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if not entries:
        raise RuntimeError("index_put_(): expected at least one index tensor")
    check_inplace(self)
    per_dim = _prep_adv(self._data.shape, entries)
    v = _check_put_value(per_dim, self._data.shape, values, entries)
    _dtype_match(self._data, values, entries)
    _assert_no_overlap(self._data, values._data)
    write = _put_writer(per_dim, v, accumulate, self._data.shape)
    _write_inplace(self, values, IndexPutBackward0, write, (), per_dim, bool(accumulate))
    return self


export(index_put_)
Tensor.index_put_ = index_put_
_OPS["index_put"].inplace = "index_put_"


def _write_inplace(self, value, node_cls, write, np_basic, per_dim, accumulate=False, full=False):
    """Run `write(self._data)`; when a graph is recorded, make self the output of a `node_cls` node."""
    if STATE.grad_enabled and (self._requires_grad or value._requires_grad):
        if self._base is not None:
            from .shape import check_view_inplace
            check_view_inplace(self)
        pos = None if full else _region_positions(self._data.shape, np_basic, per_dim)
        r = node_cls.apply(self, value, write=write, inplace=True, positions=pos, accumulate=accumulate)
        rebase(self, r)
    else:
        write(self._data)
    if not self._inference:
        self._vc[0] += 1


# -- __getitem__ / __setitem__ -----------------------------------------------------------------------------------

def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _seq_to_index(obj):
    """A Python sequence / ndarray used as an index -> ndarray (bool/uint8 kept, everything else int64)."""
    try:
        arr = np.asarray(obj)
    except ValueError:
        raise ValueError("expected sequence of equal length for an index") from None
    if arr.dtype == np.bool_ or arr.dtype == np.uint8:
        return arr
    if arr.dtype.kind in "iuf" or arr.size == 0:
        return arr.astype(np.int64)
    raise TypeError(f"new(): invalid data type '{type(arr.reshape(-1)[0].item()).__name__}'")


def _as_tuple(index):
    """PyTorch's treatSequenceAsTuple."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, (Tensor, np.ndarray)) or not isinstance(index, (list, str, range)):
        return (index,)
    if len(index) >= 32:
        return (index,)
    for obj in index:
        if isinstance(obj, (Tensor, list, tuple, slice, str, np.ndarray, range)) or obj is None or obj is Ellipsis:
            warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=4)
            return tuple(index)
    return (index,)


def _invalid_index(obj):
    return IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                      f"indices (got {type(obj).__name__})")


class _Parsed:
    __slots__ = ("steps", "np_basic", "entries")

    def __init__(self):
        self.steps = []      # ('select', dim, i) | ('slice', dim, start, stop, step) | ('unsqueeze', dim) | ('alias',)
        self.np_basic = []   # the same basic indexing as one NumPy tuple on the original array
        self.entries = []    # advanced indices: (dim in the basic result, ndarray)


def _select_index(i, pos, size):
    """Wrap an int index; PyTorch's error names the index's position in the index tuple as the dimension."""
    if i < -size or i >= size:
        raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {size}")
    return i + size if i < 0 else i


def _slice_bounds(sl, size):
    """(start, stop, step, is_full) for a slice applied to a dim of `size` (PyTorch: step must be > 0)."""
    step = 1 if sl.step is None else operator.index(sl.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    raw_start = 0 if sl.start is None else operator.index(sl.start)
    raw_stop = None if sl.stop is None else operator.index(sl.stop)
    start, stop, _ = slice(raw_start, raw_stop, step).indices(size)
    if stop < start:
        stop = start
    full = raw_start == 0 and step == 1 and (raw_stop is None or raw_stop >= size)
    return start, stop, step, full


def _size_at(shape, dim):
    """Size for a select at `dim` (past the last dim only after several Ellipses: PyTorch then sees size 0,
    or fails to wrap the dim)."""
    if dim < len(shape):
        return shape[dim]
    if dim > len(shape):
        n = len(shape)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return 0


def _parse(t, index, *, single_slice_view):
    """Translate a Python index into basic steps + advanced indices, following PyTorch's applySlicing."""
    shape = list(t._data.shape)
    nd = len(shape)
    p = _Parsed()
    # single (non-tuple) int / slice fast paths, as PyTorch's THPVariable_getitem / set_item
    if _is_int(index):
        if nd == 0:
            if int(index) == 0:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            raise IndexError(f"index {int(index)} is out of bounds for dimension 0 with size 0")
        i = _select_index(int(index), 0, shape[0])
        p.steps.append(("select", 0, i))
        p.np_basic.append(i)
        return p
    if isinstance(index, slice):
        if nd == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        start, stop, step, full = _slice_bounds(index, shape[0])
        if single_slice_view or not full:
            p.steps.append(("slice", 0, start, stop, step))
        p.np_basic.append(slice(start, stop, step))
        return p
    items = _as_tuple(index)
    # count specified dims (PyTorch's count_specified_dimensions)
    conv = []
    count = 0
    for obj in items:
        if isinstance(obj, Tensor):
            arr = obj._data
            count += arr.ndim if arr.dtype in (np.bool_, np.uint8) else 1
            conv.append(obj)
        elif isinstance(obj, (list, tuple, np.ndarray, range, str)):
            arr = _seq_to_index(obj)
            conv.append(Tensor._make(arr))
            count += 1
        else:
            if not (obj is None or obj is Ellipsis or isinstance(obj, (bool, np.bool_))):
                count += 1
            conv.append(obj)
    if count > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    dim = 0      # dim in the (partially indexed) result
    odim = 0     # dim in the original tensor
    for pos, obj in enumerate(conv):
        # (several Ellipses can push `dim` past the last dim; PyTorch then fails as below)
        if obj is None or isinstance(obj, (bool, np.bool_)) or (isinstance(obj, Tensor) and obj._data.ndim == 0
                                                                and obj._data.dtype in (np.bool_, np.uint8)):
            if dim > len(shape):
                n = len(shape)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], but got {dim})")
        if obj is None:
            p.steps.append(("unsqueeze", dim))
            p.np_basic.append(None)
            shape.insert(dim, 1)
            dim += 1
        elif obj is Ellipsis:
            n = nd - count
            take = max(0, min(n, nd - odim))
            p.np_basic.extend([slice(None)] * take)
            dim += n
            odim += n
        elif isinstance(obj, (bool, np.bool_)):
            p.steps.append(("unsqueeze", dim))
            p.np_basic.append(None)
            shape.insert(dim, 1)
            p.entries.append((dim, np.zeros(1 if obj else 0, np.int64)))
            dim += 1
        elif _is_int(obj):
            size = _size_at(shape, dim)
            i = _select_index(int(obj), pos, size)
            p.steps.append(("select", dim, i))
            p.np_basic.append(i)
            del shape[dim]
            odim += 1
        elif isinstance(obj, slice):
            if dim >= len(shape):
                if _slice_bounds(obj, 0)[3]:
                    dim += 1
                    continue
                n = len(shape)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
            start, stop, step, full = _slice_bounds(obj, shape[dim])
            if not full:
                p.steps.append(("slice", dim, start, stop, step))
                shape[dim] = len(range(start, stop, step))
            p.np_basic.append(slice(start, stop, step))
            dim += 1
            odim += 1
        elif isinstance(obj, Tensor):
            arr = obj._data
            if arr.ndim == 0 and arr.dtype.kind in "iu" and arr.dtype != np.uint8:
                size = _size_at(shape, dim)
                i = _select_index(int(arr), pos, size)
                p.steps.append(("select", dim, i))
                p.np_basic.append(i)
                del shape[dim]
                odim += 1
            elif arr.ndim == 0 and arr.dtype in (np.bool_, np.uint8):
                p.steps.append(("unsqueeze", dim))
                p.np_basic.append(None)
                shape.insert(dim, 1)
                p.entries.append((dim, np.zeros(1 if arr.item() else 0, np.int64)))
                dim += 1
            else:
                p.entries.append((dim, arr))
                k = arr.ndim if arr.dtype in (np.bool_, np.uint8) else 1
                p.np_basic.extend([slice(None)] * max(0, min(k, nd - odim)))
                dim += k
                odim += k
        else:
            raise _invalid_index(obj)
    return p


class SelectBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, i):
        ctx.args = (a._data.shape, (slice(None),) * dim + (i,))
        return a._data[ctx.args[1] + (Ellipsis,)]

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SelectBackwardBackward0.apply(g, shape=shape, key=key)


class SliceBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, start, stop, step):
        ctx.args = (a._data.shape, (slice(None),) * dim + (slice(start, stop, step),))
        return a._data[ctx.args[1]]

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SliceBackwardBackward0.apply(g, shape=shape, key=key)


class AliasBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return a._data.view()

    @staticmethod
    def backward(ctx, g):
        return g


class _EmbedBackward(Op):
    """zeros(shape) with g written at a basic-index key (select/slice backward); backward reads the key back."""

    @staticmethod
    def forward(ctx, g, *, shape, key):
        ctx.key = key
        out = np.zeros(shape, g._data.dtype)
        out[key + (Ellipsis,)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _BasicRead.apply(gg, key=ctx.key)


class SelectBackwardBackward0(_EmbedBackward):
    pass


class SliceBackwardBackward0(_EmbedBackward):
    pass


class _BasicRead(Op):
    def name(self):
        return "SelectBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.args = (a._data.shape, key)
        return a._data[key + (Ellipsis,)].copy()

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SelectBackwardBackward0.apply(g, shape=shape, key=key)


def _apply_steps(t, steps):
    r = t
    for s in steps:
        if s[0] == "select":
            r = SelectBackward0.apply(r, s[1], s[2])
        elif s[0] == "slice":
            r = SliceBackward0.apply(r, s[1], s[2], s[3], s[4])
        else:
            r = r.unsqueeze(s[1])
    if t._view_meta is not None and r is not t:
        r._view_meta = t._view_meta
    return r


def _apply_alias(t):
    r = AliasBackward0.apply(t)
    if t._view_meta is not None:
        r._view_meta = t._view_meta
    return r


def _getitem(self, index):
    """Tensor indexing with PyTorch's semantics: ints, slices (step > 0), None, Ellipsis, bools, masks and
    integer tensors/lists. Basic indexing returns a view; advanced indexing returns a copy."""
    p = _parse(self, index, single_slice_view=True)
    record = STATE.grad_enabled and self._requires_grad
    if record:
        r = _apply_steps(self, p.steps) if p.steps else None
        if not p.entries:
            return r if r is not None else _apply_alias(self)
        base = r if r is not None else self
        per_dim = _prep_adv(base._data.shape, p.entries)
        return IndexBackward0.apply(base, per_dim=per_dim)
    v = self._data[tuple(p.np_basic) + (Ellipsis,)]
    if p.entries:
        if len(p.entries) == 1:
            r = _single_index_fast(v, *p.entries[0])
            if r is not None:
                return Tensor._make(r)
        per_dim = _prep_adv(v.shape, p.entries)
        return Tensor._make(_index_np(v, per_dim))
    r = Tensor._make(v)
    _mark_view(r, self)
    r._inference = self._inference
    if self._view_meta is not None:
        r._view_meta = self._view_meta
    return r


def _single_index_fast(v, dim, arr):
    """v[..., arr] for one bool mask or one integer index array (the common cases), or None to take the
    general path (which also produces the errors)."""
    k = arr.ndim
    if arr.dtype == np.bool_:
        if k and v.shape[dim:dim + k] == arr.shape:
            return v[(slice(None),) * dim + (arr,)]
        return None
    if arr.dtype.kind in "iu" and arr.dtype != np.uint8 and dim < v.ndim and k:
        size = v.shape[dim]
        if arr.size and v.size and not _out_of_range(arr, size, True):
            return np.take(v, arr, axis=dim)
    return None


def _type_name(value):
    tp = type(value)
    return tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"


def _setitem_value(self, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)) or isinstance(value, np.integer):
        with np.errstate(all="ignore"):
            return Tensor._make(np.asarray(value).astype(self._data.dtype))
    raise TypeError(f"can't assign a {_type_name(value)} to a {self.type()}")


def _expand_check(vshape, dshape, tname):
    """PyTorch's expand(value, dst) error messages for setitem."""
    if len(vshape) > len(dshape):
        raise RuntimeError(f"expand({tname}{{{_lst(vshape)}}}, size={_lst(dshape)}): the number "
                           f"of sizes provided ({len(dshape)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(vshape)})")
    lead = len(dshape) - len(vshape)
    for i, s in enumerate(vshape):
        if s != 1 and s != dshape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({dshape[lead + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {lead + i}.  Target sizes: {_lst(dshape)}.  "
                               f"Tensor sizes: {_lst(vshape)}")


def _setitem(self, index, value):
    """Tensor item assignment with PyTorch's semantics (in place; a view target gives grad_fn CopySlices)."""
    if index is False:
        return
    if type(value) in (int, float, bool) and not (STATE.grad_enabled and self._requires_grad) \
            and (type(index) is int or type(index) is slice):
        # fast path: a number into an int / slice region, no graph to record
        p = _parse(self, index, single_slice_view=False)
        check_inplace(self)
        dst = self._data[tuple(p.np_basic) + (Ellipsis,)]
        dst[...] = _value_scalar(value, dst.dtype)
        if not self._inference:
            self._vc[0] += 1
        return
    v = _setitem_value(self, value)
    if index is Ellipsis:
        p = _Parsed()
    elif index is None or index is True:
        p = _Parsed()
        p.steps.append(("unsqueeze", 0))
        p.np_basic.append(None)
    else:
        p = _parse(self, index, single_slice_view=False)
    made_view = bool(p.steps)
    np_basic = tuple(p.np_basic)
    dst = self._data[np_basic + (Ellipsis,)]
    if not p.entries:
        dshape, vshape = dst.shape, v._data.shape
        if vshape == dshape:
            src, cls = v._data, CopyBackwards
        elif v._data.ndim == 0:
            src, cls = v._data, FillBackward3
        else:
            stripped = _strip_leading_ones(vshape)
            _expand_check(stripped, dshape, v.type())
            src, cls = v._data.reshape(stripped), CopyBackwards
        if made_view:
            cls = CopySlices
        _inplace_checks(self, made_view)
        _assert_no_partial_overlap(dst, v._data)

        def write(target):
            np.copyto(target[np_basic + (Ellipsis,)], src, casting="unsafe")

        _write_inplace(self, v, cls, write, np_basic, None, full=not made_view)
        return
    _inplace_checks(self, made_view)
    per_dim = _prep_adv(dst.shape, p.entries)
    vs = v
    stripped = _strip_leading_ones(v._data.shape)
    if stripped != v._data.shape:
        vs = Tensor._make(v._data.reshape(stripped))
    val = _check_put_value(per_dim, dst.shape, vs, p.entries)
    _dtype_match(dst, vs, p.entries)
    tup = _np_adv_tuple(per_dim)
    empty = math.prod(_positions_shape(dst.shape, per_dim)) == 0

    def write(target):
        if empty:
            return
        with np.errstate(all="ignore"):
            target[np_basic + (Ellipsis,)][tup] = val

    _write_inplace(self, v, CopySlices if made_view else IndexPutBackward0, write, np_basic, per_dim)


def _assert_no_partial_overlap(dst, src):
    if _ranges_overlap(dst, src):
        same = (dst.__array_interface__["data"][0] == src.__array_interface__["data"][0]
                and dst.shape == src.shape and dst.strides == src.strides)
        if not same:
            raise RuntimeError(_OVERLAP_MSG)


def _inplace_checks(self, made_view):
    if made_view and STATE.grad_enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError(VIEW_LEAF_INPLACE_MSG)
    check_inplace(self)


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
