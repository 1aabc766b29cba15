"""Matrix products: matmul (with PyTorch's 1-D/batched rules), mm, bmm, mv, dot, outer."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from .registry import register


def _dtname(d):
    from .registry import _short
    return _short(d)


def _check_same_dtype(a, b, name):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}"
                           if name in ("mm", "matmul", "bmm") else
                           f"{name}: expected both vectors to have same dtype, but found {_dtname(a.dtype)} "
                           f"and {_dtname(b.dtype)}")


def _shape_str(s):
    return "x".join(map(str, s))


class MmBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a._data @ b._data

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g.mm(b.t()) if n[0] else None), (a.t().mm(g) if n[1] else None)

    @staticmethod
    def backward_np(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g @ b._data.T if n[0] else None), (a._data.T @ g if n[1] else None)


class BmmBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.matmul(a._data, b._data)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g.bmm(b.transpose(1, 2)) if n[0] else None), (a.transpose(1, 2).bmm(g) if n[1] else None)


class DotBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.dot(a._data, b._data))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class MvBackward0(Op):
    @staticmethod
    def forward(ctx, a, v):
        ctx.save_for_backward(a, v)
        return a._data @ v._data

    @staticmethod
    def backward(ctx, g):
        a, v = ctx.saved_tensors
        return g.unsqueeze(1) * v.unsqueeze(0), a.t().mv(g)


class UnsafeViewBackward0(Op):
    """Batched matmul (>= 3-D, or broadcast) computed in one NumPy call; backward via matmul."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.matmul(a._data, b._data)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = gb = None
        if a.ndim == 1:
            # (k) @ (..., k, m) -> (..., m)
            if n[0]:
                ga = (g.unsqueeze(-2).matmul(b.mT)).squeeze(-2)
            if n[1]:
                gb = a.unsqueeze(-1) * g.unsqueeze(-2)
            return ga, gb
        if b.ndim == 1:
            # (..., n, k) @ (k) -> (..., n)
            if n[0]:
                ga = g.unsqueeze(-1) * b
            if n[1]:
                gb = (a * g.unsqueeze(-1)).sum(dim=tuple(range(a.ndim - 1)))
            return ga, gb
        if n[0]:
            ga = g.matmul(b.mT)
        if n[1]:
            gb = a.mT.matmul(g)
        return ga, gb


def _check_matmul(a, b):
    if not isinstance(b, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}")
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a._data.ndim}D and "
                           f"{b._data.ndim}D")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}")
    ka = a._data.shape[-1]
    kb = b._data.shape[-2] if b._data.ndim > 1 else b._data.shape[0]
    if ka != kb:
        if a._data.ndim == 1 and b._data.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src "
                               f"[{b._data.shape[0]}] to have the same number of elements, but got "
                               f"{a._data.shape[0]} and {b._data.shape[0]} elements respectively")
        if b._data.ndim == 1:
            raise RuntimeError(f"size mismatch, got input ({a._data.shape[-2]}), mat ({_shape_str(a._data.shape[-2:])}), "
                               f"vec ({b._data.shape[0]})")
        sa = a._data.shape if a._data.ndim > 1 else (1,) + a._data.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str((int(np.prod(sa[:-1])), sa[-1]))} "
                           f"and {_shape_str(b._data.shape[-2:])})")
    if a._data.ndim > 2 or b._data.ndim > 2:
        ba = a._data.shape[:-2]
        bb = b._data.shape[:-2]
        try:
            np.broadcast_shapes(ba, bb)
        except ValueError:
            from .pointwise import _broadcast_error
            raise _broadcast_error(np.empty(ba), np.empty(bb)) from None


@register(category="linalg", methods=("matmul", "__matmul__"))
def matmul(input, other, *, out=None):
    """Matrix product with PyTorch's rules: 1-D x 1-D dot, 2-D mm, 1-D prepended/appended, batched broadcast."""
    _check_matmul(input, other)
    if input._data.ndim > 2 or other._data.ndim > 2:
        from ..creation import check_alloc
        sa, sb = input._data.shape, other._data.shape
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
        check_alloc(batch + (sa[-2] if len(sa) > 1 else 1, sb[-1] if len(sb) > 1 else 1), input.dtype)
    na, nb = input._data.ndim, other._data.ndim
    if na == 1 and nb == 1:
        r = DotBackward0.apply(input, other)
    elif na == 2 and nb == 2:
        r = MmBackward0.apply(input, other)
    elif na == 2 and nb == 1:
        r = MvBackward0.apply(input, other)
    else:
        r = UnsafeViewBackward0.apply(input, other)
    from .pointwise import _out
    return _out(r, out)


Tensor.__rmatmul__ = lambda self, other: matmul(other, self)


@register(category="linalg", methods=("mm",))
def mm(input, mat2, *, out=None):
    """2-D matrix product."""
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_matmul(input, mat2)
    from .pointwise import _out
    return _out(MmBackward0.apply(input, mat2), out)


@register(category="linalg", methods=("bmm",))
def bmm(input, mat2, *, out=None):
    """Batched 3-D matrix product (no broadcasting)."""
    if input._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
                           f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    _check_same_dtype(input, mat2, "bmm")
    from .pointwise import _out
    return _out(BmmBackward0.apply(input, mat2), out)


@register(category="linalg", methods=("mv",))
def mv(input, vec, *, out=None):
    """Matrix-vector product."""
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {vec._data.ndim}")
    _check_matmul(input, vec)
    return MvBackward0.apply(input, vec)


@register(category="linalg", methods=("dot", "inner"))
def dot(input, other, *, out=None):
    """Dot product of two 1-D tensors of the same size and dtype."""
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_dtname(input.dtype)} and "
                           f"{_dtname(other.dtype)}")
    if input._data.shape != other._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src "
                           f"[{other._data.shape[0]}] to have the same number of elements, but got "
                           f"{input._data.shape[0]} and {other._data.shape[0]} elements respectively")
    return DotBackward0.apply(input, other)


@register(category="linalg", methods=("outer", "ger"))
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors: out[i][j] = input[i] * vec2[j]."""
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    return input.unsqueeze(1) * vec2.unsqueeze(0)


@register(category="linalg", methods=("addmm",))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    p = mm(mat1, mat2)
    if alpha != 1:
        p = p * alpha
    return (input * beta if beta != 1 else input) + p
