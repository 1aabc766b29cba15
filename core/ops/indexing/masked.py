"""masked_fill (+ masked_fill_) and masked_select: a bool mask, broadcast with the input, selects where a
value is written or which elements are read (row-major order)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...dtypes import CPP_NAMES as _CPP_NAME
from ...tensor import Tensor
from .. import registry
from ..registry import register
from ._common import _broadcast_pair, _fast_inplace, _lst, _out_arg, _value_scalar
from .rules import _masked_fill_rule, _masked_select_rule


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


@register(category="indexing", methods=("masked_fill",), kind="scatter", rule=_masked_fill_rule, cli=True,
          cli_example="tensorcli masked-fill '[[1,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]' "
                      "--value 0")
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


@register(category="indexing", methods=("masked_select",), kind="gather", rule=_masked_select_rule, cli=True,
          cli_example="tensorcli masked-select '[[1,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]' "
                      "--explain")
def masked_select(input, mask, *, out=None):
    """1-D tensor of the elements of input (broadcast with mask) where the bool mask is True, in row-major order."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_select(): argument 'mask' (position 2) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast_pair(mask._data.shape, input._data.shape)
    return _out_arg(MaskedSelectBackward0.apply(input, mask=mask, shape=shape), out)



