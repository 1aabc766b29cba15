"""Shared machinery of the elementwise ops: PyTorch's type promotion on NumPy operands, broadcasting
errors in PyTorch's words, `out=` handling, and a cheap way to silence NumPy's floating-point warnings."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ..._warn import _ERRSTATE, _IGNORE, quietly, warn_aten  # noqa: F401  (quietly, _ERRSTATE: the family's)
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from ._out_checks import check_out_overlap

_long = _dt.scalar_name

_F = _dt._FROM_NP


def _broadcast_error(a, b):
    sa, sb = list(np.shape(a)), list(np.shape(b))
    n = max(len(sa), len(sb))
    pa, pb = [1] * (n - len(sa)) + sa, [1] * (n - len(sb)) + sb
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                                f"at non-singleton dimension {i}")
    return RuntimeError(f"shapes {sa} and {sb} cannot be broadcast")


def _operand(x, npdt):
    """NumPy operand of dtype npdt from a Tensor or a Python number."""
    if isinstance(x, Tensor):
        d = x._data
        return d if d.dtype == npdt else d.astype(npdt)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x).astype(npdt)
    try:
        return npdt.type(x)
    except (OverflowError, ValueError, TypeError):
        if isinstance(x, (list, tuple)):
            raise TypeError(f"unsupported operand type: {type(x).__name__}") from None
        return np.array(x).astype(npdt)


def _tensor_first(name, input, other, scalar_self=False):
    """PyTorch's argument parser: `name(number, ...)` matches no overload (TypeError), except for ops
    with a Scalar-self overload (bitwise ops, shifts, remainder, pow), which still need a Tensor other."""
    if isinstance(input, Tensor) or (scalar_self and isinstance(other, Tensor)):
        return
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(input).__name__}, "
                    f"{type(other).__name__}), but expected (Tensor input, Tensor other)")


def _check_operand(x, opname):
    if not isinstance(x, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{opname}(): argument 'other' (position 2) must be Tensor, not {type(x).__name__}")


def _binary(a, b, fn, dt=None, quiet=True):
    """fn(a, b) on NumPy operands promoted to PyTorch's result dtype; broadcasting errors in PyTorch's words."""
    if dt is None:
        # fast paths: same-dtype tensors, or a float tensor with a Python number
        if type(a) is Tensor:
            ad = a._data
            tb = type(b)
            if tb is Tensor and b._data.dtype == ad.dtype:
                return _call(fn, ad, b._data, quiet)
            if (tb is float or tb is int) and ad.dtype.kind == "f":
                return _call(fn, ad, b, quiet)
        dt = _dt.result_type(a, b)
    x, y = _operand(a, dt.np), _operand(b, dt.np)
    return _call(fn, x, y, quiet)


def _call(fn, x, y, quiet):
    try:
        return quietly(fn, x, y) if quiet else fn(x, y)
    except ValueError:
        try:
            np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            raise _broadcast_error(x, y) from None
        raise


def _wrap(r):
    """The Tensor Op.apply makes of an elementwise op's no-grad result: NumPy's layout kept (elementwise ops
    preserve a dense input's strides, as PyTorch's); a NumPy scalar from 0-d operands becomes a 0-d array."""
    return Tensor._make(r)


def _tensors(*xs):
    return [x for x in xs if isinstance(x, Tensor)]


class _Binary(Op):
    grads_per_arg = True


def _g_for(ctx, i):
    n = ctx.needs_input_grad
    return n[i] if i < len(n) else False


def _is_bool(x):
    return x._data.dtype == np.bool_ if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _not_implemented_node(opname):
    """A node standing for an op PyTorch has no derivative for: named like PyTorch's, raising on backward."""

    class NotImplementedBackward(_Binary):
        @staticmethod
        def forward(ctx, fn, *args):
            return fn(*args)

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError(f"derivative for aten::{opname} is not implemented")

        def name(self):
            return "torch::autograd::NotImplemented"

    NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"
    return NotImplementedBackward


def zeros_like_t(t):
    return Tensor._make(np.zeros_like(t._data))


def _out(result, out, *inputs):
    """Implement `out=`: copy into `out` (resizing like PyTorch) and return that same object. ATen's
    overlap checks: `out` must not alias itself (an expanded tensor) nor any of `inputs`."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if out._requires_grad and (result._requires_grad or out.grad_fn is None):
        if STATE.grad_enabled:
            raise RuntimeError(f"{_opname(result)}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
    if result._requires_grad:
        if STATE.grad_enabled:
            raise RuntimeError(f"{_opname(result)}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
    r = result._data
    if out._data.dtype != r.dtype:
        rd, od = _F[r.dtype], _F[out._data.dtype]
        if not _dt.can_cast(rd, od):
            raise RuntimeError(f"result type {_long(rd)} can't be cast to the desired output type {_long(od)}")
    if out._data.shape != r.shape:
        if out._data.size:
            warn_aten(f"An output with one or more elements was resized since it had shape "
                      f"{list(out._data.shape)}, which does not match the required output shape {list(r.shape)}. "
                      "This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                      "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                      "inplace, to zero elements with t.resize_(0).", "aten/src/ATen/native/Resize.cpp:30")
        check_out_overlap(out, r.shape, inputs)
        out._data = np.empty(r.shape, dtype=out._data.dtype)
    elif inputs or 0 in out._data.strides:
        check_out_overlap(out, r.shape, inputs)
    np.copyto(out._data, r, casting="unsafe")
    out._vc[0] += 1
    return out


def _opname(result):
    fn = result.grad_fn
    return fn.name().rstrip("0123456789").replace("Backward", "").lower() if fn is not None else "op"


def _kernel_error(spec, dt):
    if isinstance(spec, BaseException):
        return spec
    return NotImplementedError(f"\"{spec}\" not implemented for '{_long(dt)}'")

