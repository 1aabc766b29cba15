"""The complex-number ops on core's real tensors, as PyTorch runs them on real tensors: positive, conj,
conj_physical, resolve_conj, resolve_neg and real return input itself (the same Tensor object, so its
autograd history is input's); imag raises torch's RuntimeError; isreal is all True; angle is 0 for x >= 0,
pi for x < 0, NaN at NaN (default float dtype for integer and bool inputs, gradient zero)."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from .. import registry
from ..pointwise._common import _out
from ..pointwise.unary import _unary
from ..registry import register


def _check(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


@register(category="pointwise", methods=("positive",))
def positive(input):
    """+input: input itself (RuntimeError for bool, as torch)."""
    _check("positive", input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _identity(name, doc):
    def fn(input):
        _check(name, input)
        return input
    fn.__name__, fn.__doc__ = name, doc
    return register(category="pointwise", methods=(name,))(fn)


conj = _identity("conj", "Complex conjugate (a view); a real tensor is returned itself.")
resolve_conj = _identity("resolve_conj", "Materialise a conjugate view; a real tensor is returned itself.")
resolve_neg = _identity("resolve_neg", "Materialise a negative view; a real tensor is returned itself.")
real = _identity("real", "The real part; a real tensor is returned itself.")


@register(category="pointwise", methods=("conj_physical",), inplace="conj_physical_")
def conj_physical(input, *, out=None):
    """Complex conjugate (a copy for complex tensors); a real tensor is returned itself."""
    _check("conj_physical", input)
    return input if out is None else _out(input.detach(), out)


def imag(input):
    """The imaginary part: torch raises for real tensors."""
    _check("imag", input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


registry.export(imag)


@register(category="logical", methods=("isreal",))
def isreal(input):
    """True where the imaginary part is 0: everywhere for a real tensor (a bool tensor)."""
    _check("isreal", input)
    return Tensor._make(np.ones(input._data.shape, dtype=np.bool_))


def _angle(x):
    """0 for x >= 0, pi for x < 0, NaN at NaN (torch's angle_impl for real values)."""
    return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(np.pi), x.dtype.type(0)))


angle, AngleBackward0 = _unary("angle", _angle, lambda g, a, o: g.new_zeros(g.shape), save=None, inplace=False,
                               doc="The argument of each element: 0 for x >= 0, pi for x < 0 (gradient zero).")
registry.method("real", property(lambda self: self))
registry.method("imag", property(imag))
registry.method("is_conj", lambda self: False)
registry.method("is_neg", lambda self: False)
