"""maximum/minimum (ties split the gradient), the comparison operators (bool results, never
differentiable), isnan/isinf/isfinite, equal, allclose, isclose."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import register
from ._common import _Binary, _binary, _check_operand, _long, _out, _tensor_first

def _tie_split(g, a, b, a_loses, b_loses):
    """PyTorch's max/min backward: where(a == b, g / 2, g), zeroed where that side loses; with a NaN
    neither side loses, so both get the full gradient."""
    share = g * (1 - (a == b).to(g.dtype) * 0.5)
    return share.masked_fill(a_loses, 0), share.masked_fill(b_loses, 0)


def _maximum_first(a, b):
    """ATen's max(a, b): NaN from either side, else a unless b > a, so a tie of -0.0 and 0.0 keeps a
    (NumPy's maximum keeps its second operand on ties: hence the swap)."""
    return np.maximum(b, a)


def _minimum_first(a, b):
    return np.minimum(b, a)


class MaximumBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(a, b, _maximum_first)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return _tie_split(g, a, b, a < b, a > b)


class MinimumBackward0(_Binary):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(a, b, _minimum_first)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return _tie_split(g, a, b, a > b, a < b)


@register(category="pointwise", methods=("maximum",))
def maximum(input, other, *, out=None):
    """Elementwise max of two tensors (NaN propagates; ties split the gradient)."""
    _tensor_first("maximum", input, other)
    if not isinstance(other, Tensor):
        raise TypeError(f"maximum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(MaximumBackward0.apply(input, other), out)


@register(category="pointwise", methods=("minimum",))
def minimum(input, other, *, out=None):
    """Elementwise min of two tensors."""
    _tensor_first("minimum", input, other)
    if not isinstance(other, Tensor):
        raise TypeError(f"minimum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(MinimumBackward0.apply(input, other), out)



# -- comparisons and logic (never differentiable) -----------------------------------------------

def _compare(np_fn, name):
    def fn(input, other, *, out=None):
        _tensor_first(name, input, other)
        _check_operand(other, name)
        dt = _dt.result_type(input, other)
        return _out(Tensor._make(np.asarray(_binary(input, other, np_fn, dt))), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} comparison; returns a bool tensor."
    return fn


eq = register(category="comparison", methods=("eq", "__eq__"), inplace="eq_")(_compare(np.equal, "eq"))
ne = register(category="comparison", methods=("ne", "not_equal", "__ne__"), inplace="ne_")(_compare(np.not_equal, "ne"))
lt = register(category="comparison", methods=("lt", "less", "__lt__"), inplace="lt_")(_compare(np.less, "lt"))
le = register(category="comparison", methods=("le", "less_equal", "__le__"), inplace="le_")(_compare(np.less_equal, "le"))
gt = register(category="comparison", methods=("gt", "greater", "__gt__"), inplace="gt_")(_compare(np.greater, "gt"))
ge = register(category="comparison", methods=("ge", "greater_equal", "__ge__"), inplace="ge_")(_compare(np.greater_equal, "ge"))
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


@register(category="logical", methods=("isnan",))
def isnan(input):
    """True where input is NaN."""
    return Tensor._make(np.isnan(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


@register(category="logical", methods=("isinf",))
def isinf(input):
    """True where input is +-inf."""
    return Tensor._make(np.isinf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


@register(category="logical", methods=("isfinite",))
def isfinite(input):
    """True where input is finite."""
    return Tensor._make(np.isfinite(input._data) if input._data.dtype.kind == "f" else np.ones(input._data.shape, bool))


@register(category="comparison", methods=("equal",))
def equal(input, other):
    """True if both tensors have the same size and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


@register(category="comparison", methods=("allclose",))
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |input - other| <= atol + rtol * |other| everywhere (isclose's checks apply)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@register(category="comparison", methods=("isclose",))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |input - other| <= atol + rtol * |other| as a bool tensor. As PyTorch: both tensors of one
    dtype (RuntimeError "Float did not match Double"), rtol and atol >= 0."""
    for i, (name, v) in enumerate((("input", input), ("other", other))):
        if not isinstance(v, Tensor):
            raise TypeError(f"isclose(): argument '{name}' (position {i + 1}) must be Tensor, not {type(v).__name__}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_long(input.dtype)} did not match {_long(other.dtype)}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v}")
    return Tensor._make(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


