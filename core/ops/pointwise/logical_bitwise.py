"""logical_and/or/xor/not (nonzero is True; bool results) and bitwise_and/or/xor/not with `~`
(integer and bool tensors only, as in PyTorch)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import registry
from ..inplace import make_inplace
from ..registry import register
from ._common import _binary, _broadcast_error, _check_operand, _long, _out, _tensor_first

def _logical(np_fn, name):
    def fn(input, other, *, out=None):
        _tensor_first(name, input, other)
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        x = input._data if isinstance(input, Tensor) else np.asarray(input)
        y = other._data if isinstance(other, Tensor) else np.asarray(other)
        try:
            return _out(Tensor._make(np.asarray(np_fn(x, y))), out)
        except ValueError:
            raise _broadcast_error(x, y) from None
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}, treating nonzero as True; returns a bool tensor."
    return fn


logical_and = register(category="logical", methods=("logical_and",), inplace="logical_and_")(_logical(np.logical_and, "logical_and"))
logical_or = register(category="logical", methods=("logical_or",), inplace="logical_or_")(_logical(np.logical_or, "logical_or"))
logical_xor = register(category="logical", methods=("logical_xor",), inplace="logical_xor_")(_logical(np.logical_xor, "logical_xor"))


@register(category="logical", methods=("logical_not",), inplace="logical_not_")
def logical_not(input, *, out=None):
    """Elementwise not; returns a bool tensor."""
    return _out(Tensor._make(np.logical_not(input._data)), out)


def _bitwise(np_fn, name, sym):
    def fn(input, other, *, out=None):
        _tensor_first(name, input, other, scalar_self=True)
        _check_operand(other, name)
        dt = _dt.result_type(input, other)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_long(dt)}'")
        return _out(Tensor._make(np.asarray(_binary(input, other, np_fn, dt))), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {sym} of integer or bool tensors."
    return fn


bitwise_and = register(category="logical", methods=("bitwise_and", "__and__", "__rand__"),
                       inplace="__iand__")(_bitwise(np.bitwise_and, "bitwise_and", "&"))
bitwise_or = register(category="logical", methods=("bitwise_or", "__or__", "__ror__"),
                      inplace="__ior__")(_bitwise(np.bitwise_or, "bitwise_or", "|"))
bitwise_xor = register(category="logical", methods=("bitwise_xor", "__xor__", "__rxor__"),
                       inplace="__ixor__")(_bitwise(np.bitwise_xor, "bitwise_xor", "^"))
for _name, _fn in (("bitwise_and", bitwise_and), ("bitwise_or", bitwise_or), ("bitwise_xor", bitwise_xor)):
    registry.method(_name + "_", make_inplace(_fn, _name + "_"))   # the named twin of `&=` / `|=` / `^=`


@register(category="logical", methods=("bitwise_not",), inplace="bitwise_not_")
def bitwise_not(input, *, out=None):
    """~input for bool and integer tensors."""
    if input._data.dtype.kind == "f":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_long(input.dtype)}'")
    return _out(Tensor._make(np.invert(input._data)), out)


def _invert(self):
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


registry.method("__invert__", _invert)


