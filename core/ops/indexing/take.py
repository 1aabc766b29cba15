"""take (input read as 1-D at an index of any shape), put / put_ (its writing twin) and take_along_dim
(gather after broadcasting)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from .. import registry
from ..registry import register
from ._common import (_I64, _assert_no_overlap, _broadcast_pair, _fast_inplace, _first_bad, _out_arg, _out_of_range,
                      _sname, _wrap_negative)
from .gather_scatter import gather

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


@register(category="indexing", methods=("take",), kind="gather")
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
    return _out_arg(TakeBackward0.apply(input, index=index, idx=idx), out, "take", input, index)


@register(category="indexing", methods=("take_along_dim",), kind="gather")
def take_along_dim(input, indices, dim=None, *, out=None):
    """Gather along dim after broadcasting input and indices; dim=None works on the flattened input.

    With a dim, indices are taken modulo input.size(dim), as PyTorch 2.13 does."""
    if dim is None:
        r = gather(input.reshape(-1), 0, indices.reshape(-1))
        return _out_arg(r, out, "take_along_dim")
    a, i = input._data, indices._data
    if a.ndim != i.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {a.ndim} dimensions for input, and {i.ndim} dimensions for indices")
    if i.dtype != _I64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_sname(i)}")
    d = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _out_arg(gather(input, 0, indices), out, "take_along_dim")
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
    return _out_arg(r, out, "take_along_dim")


# -- put ----------------------------------------------------------------------------------------------------------

def _put_checks(name, self, index, source):
    """put_'s checks in PyTorch's order; returns the flat indices (int64, negatives wrapped)."""
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' (position 2) must be Tensor, not {type(source).__name__}")
    a, idx, s = self._data, index._data, source._data
    if idx.dtype != _I64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_sname(idx)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_sname(a)} and source.dtype = {_sname(s)}")
    if s.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {s.size}, index.numel() = {idx.size}")
    n = a.size
    if n == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if _out_of_range(idx, n, True):
        raise IndexError(f"out of range: tried to access index {_first_bad(idx, -n, n)} on a tensor of {n} elements.")
    return _wrap_negative(idx.reshape(-1), n)


def _put_np(out, flat, src, accumulate):
    """out.flatten()[flat] = src (or += with duplicates accumulating), in place, in out's logical order."""
    if flat.size == 0:
        return
    vals = np.ascontiguousarray(src).reshape(-1)
    if out.flags.c_contiguous:
        target, where = out.reshape(-1), flat
    else:
        target, where = out, np.unravel_index(flat, out.shape)
    if accumulate:
        np.add.at(target, where, vals)
    else:
        target[where] = vals


class PutBackward0(Op):
    contiguous_output = False   # put is clone(preserve_format) + put_: the input's strides are kept

    @staticmethod
    def forward(ctx, a, source, *, index, flat, accumulate):
        ctx.save_for_backward(index)
        ctx.accumulate, ctx.src_shape = accumulate, source._data.shape
        out = a._data.copy(order="K")
        _put_np(out, flat, source._data, accumulate)
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        gs = take(g, index).reshape(ctx.src_shape) if ctx.needs_input_grad[1] else None
        if ctx.accumulate:
            return g, gs
        return put(g, index, Tensor._make(np.zeros(ctx.src_shape, g._data.dtype))), gs


@register(category="indexing", methods=("put",), kind="scatter")
def put(input, index, source, accumulate=False):
    """Copy of input with source written at the flat (row-major) positions index; negative indices count
    from the end. accumulate=True adds instead (duplicates accumulate); otherwise the last write wins."""
    flat = _put_checks("put", input, index, source)
    return PutBackward0.apply(input, source, index=index, flat=flat, accumulate=bool(accumulate))


def _put_direct(self, index, source, accumulate=False):
    flat = _put_checks("put_", self, index, source)
    _assert_no_overlap(self._data, index._data, source._data)
    _put_np(self._data, flat, source._data, bool(accumulate))


registry.add_inplace("put", "put_", _fast_inplace(put, "put_", _put_direct))

