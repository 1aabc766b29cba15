"""Casting (`_to_dtype`, ToCopyBackward0), clone (preserve_format), and the in-place writers
zero_, fill_ and copy_ (PyTorch's nodes ZeroBackward0 / FillBackward2/3 / CopyBackwards), and the Python-callable
writers apply_ / map_."""
from __future__ import annotations

import numpy as np

from ... import _memory_format as _mf
from ...autograd.function import Op
from ...creation import _fill_scalar, fill_value
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from .. import registry
from ..inplace import check_inplace, rebase, snapshot, write_result
from ..registry import register

class ToCopyBackward0(Op):
    @staticmethod
    def forward(ctx, a, dt):
        return a._data.astype(dt.np)

    @staticmethod
    def backward(ctx, g):
        return g


def _to_dtype(t, dt):
    """Differentiable dtype conversion (the backward casts the gradient back)."""
    r = ToCopyBackward0.apply(t, dt)
    if not dt.is_floating_point and r._requires_grad:
        r._requires_grad = False
        r.grad_fn = None
    return r


class CloneBackward0(Op):
    @staticmethod
    def forward(ctx, a, memory_format=None):
        if memory_format is None or memory_format is _mf.preserve_format:
            return a._data.copy(order="K")   # preserve_format: a dense input keeps its strides
        return _mf.laid_out(a._data, memory_format)

    @staticmethod
    def backward(ctx, g):
        return g


@register(category="pointwise", methods=("clone",))
def clone(input, *, memory_format=None):
    """A copy that stays in the graph (gradient flows back unchanged), laid out in memory_format."""
    if memory_format is None:
        return CloneBackward0.apply(input)
    return CloneBackward0.apply(input, _mf.check(memory_format, "clone"))


# -- in-place helpers that are not derived from an out-of-place op ---------------------------------

def zero_(self):
    """Fill with zeros in place."""
    return fill_(self, 0, _zero=True)


class FillBackward2(Op):
    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return np.full(a._data.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape)


class ZeroBackward0(FillBackward2):
    pass


class FillBackward3(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, value):
        return np.full(a._data.shape, value._data, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape), g.sum()


def fill_(self, value, *, _zero=False):
    """Fill with a scalar (or 0-d tensor) in place."""
    check_inplace(self)
    if not isinstance(value, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got ({type(value).__name__}), "
                        "but expected one of:\n * (Tensor value)\n * (Number value)\n")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    if STATE.grad_enabled and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        node = FillBackward3 if isinstance(value, Tensor) else (ZeroBackward0 if _zero else FillBackward2)
        r = node.apply(snapshot(self), value)
        write_result(self, r, "fill_")
        rebase(self, r)
        return self
    if isinstance(value, Tensor):
        self._data[...] = value._data
    else:   # c10's checked conversion of the Scalar: out of range for the dtype is torch's error
        self._data[...] = fill_value(_fill_scalar(value, "fill_", self.dtype), self._data.dtype, self._data.size)
    if not self._inference:
        self._vc[0] += 1
    return self


class CopyBackwards(Op):
    grads_per_arg = True

    def name(self):
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src._data.dtype
        return np.broadcast_to(src._data, a._data.shape).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape), g


def copy_(self, src, non_blocking=False):
    """Copy src into self (broadcasting src, casting to self's dtype), in place."""
    check_inplace(self)
    if not isinstance(src, Tensor):
        src = Tensor._make(np.asarray(src))
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must match "
                           f"the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
                           f"non-singleton dimension {max(self._data.ndim - 1, 0)}") from None
    if STATE.grad_enabled and (self._requires_grad or src._requires_grad):
        r = CopyBackwards.apply(snapshot(self), src)
        np.copyto(self._data, r._data)
        self._vc[0] += 1
        rebase(self, r)
        return self
    np.copyto(self._data, src._data, casting="unsafe")
    if not self._inference:
        self._vc[0] += 1
    return self


registry.method("zero_", zero_)
registry.export(zero_)   # torch.zero_(t), the function form
registry.method("fill_", fill_)
registry.method("copy_", copy_)



def _python_values(self, values):
    """Write Python callables' results into self (converted as torch converts a Python scalar)."""
    for v in values:
        if not isinstance(v, (int, float, np.number, np.bool_)):
            raise TypeError(f"must be real number, not {type(v).__name__}")
    self._data[...] = np.array(values, dtype=np.float64 if self._data.dtype.kind == "f" else object).astype(
        self._data.dtype).reshape(self._data.shape)
    if not self._inference:
        self._vc[0] += 1
    return self


@registry.method("apply_")
def apply_(self, callable):
    """Tensor.apply_(fn): self[i] = fn(self[i]) element by element on Python numbers (CPU only, no grad)."""
    if self._requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
    return _python_values(self, [callable(x) for x in self._data.ravel().tolist()])


@registry.method("map_")
def map_(self, tensor, callable):
    """Tensor.map_(other, fn): self[i] = fn(self[i], other[i]), other broadcast to self's shape and of
    self's dtype (torch's TypeError otherwise)."""
    if self._requires_grad:
        raise RuntimeError("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected {self.type()} for 'other' (got {tensor.type()})")
    other = tensor.expand(self.shape)._data.ravel().tolist()
    return _python_values(self, [callable(a, b) for a, b in zip(self._data.ravel().tolist(), other)])
