"""addmv, addr, addbmm, baddbmm (beta * input + alpha * product; beta == 0 ignores input, NaN included),
vdot, trace and kron, with PyTorch's checks, dtype rules and gradients."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor
from ..pointwise import _long, _out, quietly
from ..registry import register
from .products import _check_bmm, _check_dot, _check_mv, _dtname, _no_bool


def _scaled_sum(inp, prod, beta, alpha, npdt):
    """beta * input + alpha * product in the result dtype (bool: logical and/or, as PyTorch)."""
    if npdt == np.bool_:
        r = np.logical_and(prod, bool(alpha))
        return np.logical_or(r, np.logical_and(inp, bool(beta))) if beta else r
    if alpha != 1:
        prod = prod * npdt.type(alpha)
    if beta == 0:
        return np.broadcast_to(prod, np.broadcast_shapes(prod.shape, inp.shape)).astype(npdt)
    return (prod + (inp if beta == 1 else inp * npdt.type(beta))).astype(npdt, copy=False)


class _AddProduct(Op):
    """beta * input + alpha * f(x, y); subclasses give `product` (NumPy) and `grads(g, x, y)` (core ops)."""

    @classmethod
    def forward(cls, ctx, inp, x, y, beta, alpha):
        ng = ctx.needs_input_grad
        if ng:
            ctx.save_for_backward(x if ng[2] else None, y if ng[1] else None)
        ctx.beta, ctx.alpha = beta, alpha
        dt = _dt.result_type(inp, x, y) if cls.promote else x.dtype
        xd, yd = x._data.astype(dt.np, copy=False), y._data.astype(dt.np, copy=False)
        return quietly(_scaled_sum, inp._data.astype(dt.np, copy=False), cls.product(xd, yd), beta, alpha,
                       np.dtype(dt.np))

    @classmethod
    def backward(cls, ctx, g):
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gi = (g if ctx.beta == 1 else g * ctx.beta) if n[0] else None
        gx, gy = cls.grads(g, x, y, n)
        if ctx.alpha != 1:
            gx = gx * ctx.alpha if gx is not None else None
            gy = gy * ctx.alpha if gy is not None else None
        return gi, gx, gy


class AddmvBackward0(_AddProduct):
    promote = False
    product = staticmethod(lambda m, v: m @ v)

    @staticmethod
    def grads(g, m, v, n):
        return (g.unsqueeze(1) * v.unsqueeze(0) if n[1] else None), (m.t().mv(g) if n[2] else None)


class AddrBackward0(_AddProduct):
    promote = True
    product = staticmethod(lambda a, b: np.multiply.outer(a, b) if a.dtype != np.bool_ else np.logical_and.outer(a, b))

    @staticmethod
    def grads(g, a, b, n):
        return (g.mv(b) if n[1] else None), (g.t().mv(a) if n[2] else None)


class AddbmmBackward0(_AddProduct):
    promote = False
    product = staticmethod(lambda a, b: np.matmul(a, b).sum(0))

    @staticmethod
    def grads(g, a, b, n):
        ge = g.unsqueeze(0).expand(a.shape[0], g.shape[0], g.shape[1])
        return (ge.bmm(b.transpose(1, 2)) if n[1] else None), (a.transpose(1, 2).bmm(ge) if n[2] else None)


class BaddbmmBackward0(_AddProduct):
    promote = False
    product = staticmethod(np.matmul)

    @staticmethod
    def grads(g, a, b, n):
        return (g.bmm(b.transpose(1, 2)) if n[1] else None), (a.transpose(1, 2).bmm(g) if n[2] else None)


def _check_input(name, inp, shape):
    try:
        ok = np.broadcast_shapes(inp._data.shape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({inp._data.shape[-1] if inp._data.ndim else 1}) at non-singleton dimension "
                           f"{len(shape) - 1}.  Target sizes: {list(shape)}.  Tensor sizes: {list(inp._data.shape)}")


@register(category="linalg", methods=("addmv",), inplace="addmv_")
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat @ vec)."""
    if mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    if input._data.dtype != mat._data.dtype or mat._data.dtype != vec._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_dtname(input.dtype)}, "
                           f"{_dtname(mat.dtype)}, and {_dtname(vec.dtype)}")
    _check_mv(mat._data.shape, vec._data.shape[0], mat, vec)
    _check_input("addmv", input, (mat._data.shape[0],))
    return _out(AddmvBackward0.apply(input, mat, vec, beta, alpha), out)


@register(category="linalg", methods=("addr",), inplace="addr_")
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2) (logical and/or for bool)."""
    if vec1._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec{1 if vec1._data.ndim != 1 else 2}, but got "
                           f"{(vec1 if vec1._data.ndim != 1 else vec2)._data.ndim}-D")
    dt = _dt.result_type(input, vec1, vec2)
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, float) and not dt.is_floating_point:
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    _check_input("addr", input, (vec1._data.shape[0], vec2._data.shape[0]))
    return _out(AddrBackward0.apply(input, vec1, vec2, beta, alpha), out)


def _check_batches(name, b1, b2):
    if b1._data.ndim != 3 or b2._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if b1._data.ndim != 3 else "batch2 must be a 3D tensor")
    _check_bmm(b1._data.shape, b2._data.shape, b1, b2)


@register(category="linalg", methods=("addbmm",), inplace="addbmm_")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * sum_i(batch1[i] @ batch2[i])."""
    _check_batches("addbmm", batch1, batch2)
    _check_input("addbmm", input, (batch1._data.shape[1], batch2._data.shape[2]))
    return _out(AddbmmBackward0.apply(input, batch1, batch2, beta, alpha), out)


@register(category="linalg", methods=("baddbmm",), inplace="baddbmm_")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * bmm(batch1, batch2)."""
    _check_batches("baddbmm", batch1, batch2)
    _check_input("baddbmm", input, (batch1._data.shape[0], batch1._data.shape[1], batch2._data.shape[2]))
    return _out(BaddbmmBackward0.apply(input, batch1, batch2, beta, alpha), out)


class VdotBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        ng = ctx.needs_input_grad
        if ng:
            ctx.save_for_backward(a if ng[1] else None, b if ng[0] else None)
        return np.asarray(np.dot(a._data, b._data))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g * b if n[0] else None), (g * a if n[1] else None)


@register(category="linalg", methods=("vdot",))
def vdot(input, other, *, out=None):
    """Dot product of two 1-D tensors, conjugating the first (the plain dot for real tensors)."""
    if input._data.dtype == np.bool_ and other._data.dtype == np.bool_:
        _no_bool(input, "dot")
    _check_dot(input, other, "vdot")
    return _out(VdotBackward0.apply(input, other), out)


class TraceBackward0(Op):
    @staticmethod
    def forward(ctx, a, npdt):
        ctx.shape = a._data.shape
        d = a._data
        if d.dtype.kind == "f":
            # trace_cpu: one sequential accumulator of at::acc_type (double for float32 / float64, float for
            # half) along the diagonal, from 0, rounded once to the result
            acc = np.float32 if d.dtype == np.float16 else np.float64
            chain = np.concatenate((np.zeros(1, acc), np.diagonal(d).astype(acc)))
            return np.add.accumulate(chain)[-1:].astype(npdt).reshape(())
        return np.asarray(np.trace(d), dtype=npdt)

    @staticmethod
    def backward(ctx, g):
        return g * Tensor._make(np.eye(*ctx.shape, dtype=g._data.dtype))


@register(category="linalg", methods=("trace",))
def trace(input):
    """Sum of the main diagonal of a 2-D tensor (integers accumulate in int64)."""
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"trace\" not implemented for '{_long(input.dtype)}'")
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    npdt = input._data.dtype if input._data.dtype.kind == "f" else np.dtype(np.int64)
    return TraceBackward0.apply(input, npdt)


class _KronView(Op):
    """at::_unsafe_view of the broadcast product (PyTorch's kron ends in UnsafeViewBackward0)."""

    @staticmethod
    def forward(ctx, prod, shape):
        ctx.in_shape = prod._data.shape
        return prod._data.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)


_KronView.__name__ = _KronView.__qualname__ = "UnsafeViewBackward0"


@register(category="linalg", methods=("kron",))
def kron(input, other, *, out=None):
    """Kronecker product: blocks input[i] * other, for any number of dims."""
    nd = max(input.dim(), other.dim())
    sa = [1] * (nd - input.dim()) + list(input.shape)
    sb = [1] * (nd - other.dim()) + list(other.shape)
    a = input.reshape(sa)
    b = other.reshape(sb)
    va = [s for d in sa for s in (d, 1)]
    vb = [s for d in sb for s in (1, d)]
    prod = a.reshape(va) * b.reshape(vb)
    return _out(_KronView.apply(prod, tuple(x * y for x, y in zip(sa, sb))), out)
