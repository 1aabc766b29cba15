"""masked_fill (+ masked_fill_), masked_select and masked_scatter (+ masked_scatter_): a bool mask, broadcast
with the input, selects where a value is written, which elements are read, or where the elements of a
source are written (all in row-major order)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...dtypes import CPP_NAMES as _CPP_NAME
from ...tensor import Tensor
from .. import registry
from ..registry import register
from ._common import _broadcast_pair, _expand_check, _fast_inplace, _lst, _out_arg, _sname, _value_scalar


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


# c10's scalar type names, as PyTorch's conversion errors spell them
_C10_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t", "int32": "int",
              "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


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
    elif isinstance(value, (complex, np.complexfloating)) and input._data.dtype.kind not in "cb":   # bool: != 0
        raise RuntimeError(f"value cannot be converted to type {_C10_NAMES.get(input._data.dtype.name, input._data.dtype.name)}"
                           " without overflow")
    elif not isinstance(value, (int, float, bool, complex, np.number, np.bool_)):
        raise TypeError(f"masked_fill(): argument 'value' (position 2) must be Number, not {type(value).__name__}")
    return shape


def _real_value(value):
    """A complex value reaching a bool tensor (the only real dtype that takes one) is value != 0."""
    return bool(value) if isinstance(value, (complex, np.complexfloating)) else value


@register(category="indexing", methods=("masked_fill",), kind="scatter")
def masked_fill(input, mask, value):
    """Copy of input (broadcast with mask) with value written where the bool mask is True.

    value is a number or a 0-d tensor, cast to input's dtype."""
    shape = _masked_fill_checks(input, mask, value)
    value = _real_value(value)
    if isinstance(value, Tensor):
        return MaskedFillBackward1.apply(input, value, mask=mask, shape=shape)
    return MaskedFillBackward0.apply(input, mask=mask, value=value, shape=shape)


def _masked_fill_direct(self, mask, value):
    shape = _masked_fill_checks(self, mask, value)
    value = _real_value(value)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {_lst(self._data.shape)} doesn't match the broadcast shape "
                           f"{_lst(shape)}")
    np.copyto(self._data, _value_scalar(value, self._data.dtype), where=np.broadcast_to(mask._data, shape))


registry.add_inplace("masked_fill", "masked_fill_", _fast_inplace(masked_fill, "masked_fill_", _masked_fill_direct))


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


@register(category="indexing", methods=("masked_select",), kind="gather")
def masked_select(input, mask, *, out=None):
    """1-D tensor of the elements of input (broadcast with mask) where the bool mask is True, in row-major order."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_select(): argument 'mask' (position 2) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast_pair(mask._data.shape, input._data.shape)
    return _out_arg(MaskedSelectBackward0.apply(input, mask=mask, shape=shape), out, "masked_select", input, mask)


# -- masked_scatter ---------------------------------------------------------------------------------------------

def _masked_scatter_checks(self, mask, source):
    """masked_scatter_'s checks on self (already broadcast for the out-of-place op), in PyTorch's order."""
    s, m = self._data, mask._data
    if s.dtype != source._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_sname(s)} and {_sname(source._data)}")
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_sname(m)}")
    _expand_check(m.shape, s.shape, "CPUBoolType")
    if source._data.size < np.count_nonzero(np.broadcast_to(m, s.shape)):
        raise RuntimeError("Number of elements of source < number of ones in mask")


def _arg_types(name, mask, source):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' (position 2) must be Tensor, not {type(source).__name__}")


def _masked_scatter_np(out, mask, src):
    """out[mask] = the first mask.sum() elements of src (row-major), in place; mask broadcasts to out."""
    m = np.broadcast_to(mask, out.shape)
    k = int(np.count_nonzero(m))
    if k:
        out[m] = np.ascontiguousarray(src).reshape(-1)[:k]


class MaskedScatterBackward0(Op):
    @staticmethod
    def forward(ctx, a, source, *, mask, shape):
        ctx.save_for_backward(mask)
        ctx.src_shape = source._data.shape
        out = np.array(np.broadcast_to(a._data, shape))
        _masked_scatter_np(out, mask._data, source._data)
        return out

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        gs = None
        if ctx.needs_input_grad[1]:   # PyTorch's masked_scatter_backward: selected grads, zero-padded
            sel = masked_select(g, mask)
            n = int(np.prod(ctx.src_shape))
            if sel.numel() < n:
                zeros = Tensor._make(np.zeros(n, g._data.dtype))
                sel = zeros.index_copy(0, Tensor._make(np.arange(sel.numel(), dtype=np.int64)), sel)
            gs = sel.reshape(ctx.src_shape)
        return g.masked_fill(mask, 0), gs


@register(category="indexing", methods=("masked_scatter",), kind="scatter")
def masked_scatter(input, mask, source):
    """Copy of input (broadcast with mask) with the elements of source written, in row-major order, where the
    bool mask is True: the n-th True position gets source.flatten()[n]."""
    _arg_types("masked_scatter", mask, source)
    shape = _broadcast_pair(mask._data.shape, input._data.shape)
    probe = Tensor._make(np.broadcast_to(input._data, shape))
    _masked_scatter_checks(probe, mask, source)
    return MaskedScatterBackward0.apply(input, source, mask=mask, shape=shape)


def _masked_scatter_direct(self, mask, source):
    _masked_scatter_np(self._data, mask._data, source._data)


_masked_scatter_inplace = _fast_inplace(masked_scatter, "masked_scatter_", _masked_scatter_direct)


def masked_scatter_(self, mask, source):
    """In-place masked_scatter: mask must broadcast to self's shape."""
    _arg_types("masked_scatter_", mask, source)
    _masked_scatter_checks(self, mask, source)
    return _masked_scatter_inplace(self, mask, source)


registry.add_inplace("masked_scatter", "masked_scatter_", masked_scatter_)

