"""addcmul / addcdiv: input + value * tensor1 * tensor2 (or / tensor2), the three tensors promoted together
and `value` cast to the result dtype, as PyTorch's kernels do; integer division is rejected."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...creation import full_like
from ...tensor import Tensor
from ..registry import register
from . import _fma
from ._common import _broadcast_error, _long, _out, quietly

_INT_DIV = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")


class AddcmulBackward0(Op):
    divide = False

    @classmethod
    def forward(cls, ctx, a, t1, t2, value):
        dt = _dt.result_type(a, t1, t2)
        if dt is _dt.bool_:
            raise NotImplementedError(f"\"{'addcdiv' if cls.divide else 'addcmul'}_cpu_out\" not implemented for "
                                      f"'{_long(dt)}'")
        ng = ctx.needs_input_grad
        if ng:
            ctx.save_for_backward(t1 if (ng[2] or cls.divide) else None, t2 if (ng[1] or cls.divide) else None)
        x, y, z = (t._data.astype(dt.np, copy=False) for t in (a, t1, t2))
        try:
            np.broadcast_shapes(x.shape, y.shape, z.shape)
        except ValueError:
            raise _broadcast_error(np.empty(np.broadcast_shapes(y.shape, z.shape)) if _fits(y, z) else y,
                                   x if _fits(y, z) else z) from None
        v = dt.np.type(value)
        ctx.value = value
        return np.asarray(quietly(_addc_np, x, y, z, v, cls.divide), dtype=dt.np)

    @classmethod
    def backward(cls, ctx, g):
        t1, t2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        v = ctx.value
        if cls.divide:
            # derivatives.yaml's `value / tensor2` is C++'s Scalar / Tensor: a true division by tensor2 (Python's
            # v / t2 would be t2.reciprocal() * v)
            return (g if n[0] else None, g * (full_like(t2, v) / t2) if n[1] else None,
                    -g * (v * t1 / (t2 * t2)) if n[2] else None)
        return g if n[0] else None, g * (t2 * v) if n[1] else None, g * (t1 * v) if n[2] else None


class AddcdivBackward0(AddcmulBackward0):
    divide = True


def _fits(y, z):
    try:
        np.broadcast_shapes(y.shape, z.shape)
        return True
    except ValueError:
        return False


def _addc_np(x, y, z, v, divide):
    """addcdiv: x + v * y / z, rounded after each step; addcmul: fma(v * y, z, x) for float32/float64, one
    rounding after the product as ATen's vectorised kernel (and its contracted scalar tail) computes it."""
    if divide:
        return x + v * y / z
    if x.dtype in (np.float32, np.float64) and y.dtype == x.dtype:
        return _fma.fma(v * y, z, x, x.dtype)
    return x + v * y * z


def _check(name, input, tensor1, tensor2, value):
    for pos, (arg, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(t).__name__}")
    if not isinstance(value, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{name}(): argument 'value' must be Number, not {type(value).__name__}")


@register(category="pointwise", methods=("addcmul",), inplace="addcmul_")
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """input + value * tensor1 * tensor2, broadcasting all three."""
    _check("addcmul", input, tensor1, tensor2, value)
    return _out(AddcmulBackward0.apply(input, tensor1, tensor2, value), out)


@register(category="pointwise", methods=("addcdiv",), inplace="addcdiv_")
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """input + value * tensor1 / tensor2 (integer tensor1 and tensor2 are rejected, as in PyTorch)."""
    _check("addcdiv", input, tensor1, tensor2, value)
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError(_INT_DIV)
    return _out(AddcdivBackward0.apply(input, tensor1, tensor2, value), out)
