"""Matrix products: matmul (with PyTorch's 1-D / folded / batched rules), mm, bmm, mv, dot, outer, addmm.

Each product validates its operands the way the ATen kernel it mirrors does, so errors carry
PyTorch's class and wording (including the folded shapes matmul reports)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.graph_node import np_sum_to_shape
from ...creation import check_alloc
# C++ type names PyTorch prints in "expected m1 and m2 to have the same dtype" (c10::toString of caffe2::TypeMeta)
from ...dtypes import CPP_NAMES as _CPP, scalar_name as _dtname
from ...tensor import Tensor
from .. import registry
from ..pointwise import _broadcast_error, _out, quietly
from ..registry import register


def _save_operands(ctx, a, b):
    """Save each matrix only if the other one needs a gradient (PyTorch's mm/bmm/dot rule)."""
    ng = ctx.needs_input_grad
    if ng:
        ctx.save_for_backward(a if ng[1] else None, b if ng[0] else None)


def _shape_str(s):
    return "x".join(map(str, s))


def _no_bool(a, kernel):
    if a._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_mm(sa, sb, a, b):
    """at::mm's checks on (possibly folded) shapes sa @ sb."""
    if sa[1] != sb[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(sa)} and {_shape_str(sb)})")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_CPP[a.dtype.name]} != "
                           f"{_CPP[b.dtype.name]}")
    _no_bool(a, "addmm_impl_cpu_")


def _check_mv(sm, n, a, v):
    """at::mv's checks: matrix shape sm, vector length n."""
    if sm[1] != n:
        raise RuntimeError(f"size mismatch, got input ({sm[0]}), mat ({_shape_str(sm)}), vec ({n})")
    if a._data.dtype != v._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_dtname(v.dtype)}, "
                           f"{_dtname(a.dtype)}, and {_dtname(v.dtype)}")
    _no_bool(a, "addmv_impl_cpu")


def _check_bmm(sa, sb, a, b):
    """at::bmm's checks on (broadcast, flattened) shapes (B, n, m1) and (B, m2, p)."""
    if sa[0] != sb[0] or sa[2] != sb[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
                           f"but got: [{sb[0]}, {sb[1]}].")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {_dtname(a.dtype)} but found {_dtname(b.dtype)}")
    _no_bool(a, "bmm")


def _check_dot(a, b, name="dot"):
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found {_dtname(a.dtype)} and "
                           f"{_dtname(b.dtype)}")
    if a._data.shape != b._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src "
                           f"[{b._data.shape[0]}] to have the same number of elements, but got "
                           f"{a._data.shape[0]} and {b._data.shape[0]} elements respectively")
    _no_bool(a, name)


class MmBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b)
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


def bmm_np(a, b):
    """torch's CPU bmm on arrays: below 400 multiply-adds per matrix (ATen's baddbmm_cpu_kernel) each output
    element is 0 + a[i,0]*b[0,j] + a[i,1]*b[1,j] + ... added in order, in float32 for half types; BLAS above."""
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if m * k * n >= 400 or a.dtype.kind != "f" or k == 0:
        return np.matmul(a, b)
    op = np.dtype(np.float32) if a.dtype.itemsize < 4 else a.dtype
    prods = a.astype(op, copy=False)[..., :, :, None] * b.astype(op, copy=False)[..., None, :, :]
    # a sequential running sum (add.accumulate) over k; + 0 turns an all -0.0 sum into torch's +0.0
    return (np.cumsum(prods, axis=-2)[..., -1, :] + op.type(0)).astype(a.dtype, copy=False)


class BmmBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b)
        return bmm_np(a._data, b._data)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g.bmm(b.transpose(1, 2)) if n[0] else None), (a.transpose(1, 2).bmm(g) if n[1] else None)


class DotBackward0(Op):
    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b)
        return np.asarray(np.dot(a._data, b._data))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g * b if n[0] else None), (g * a if n[1] else None)


class MvBackward0(Op):
    @staticmethod
    def forward(ctx, a, v):
        _save_operands(ctx, a, v)
        return a._data @ v._data

    @staticmethod
    def backward(ctx, g):
        a, v = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (g.unsqueeze(1) * v.unsqueeze(0) if n[0] else None), (a.t().mv(g) if n[1] else None)


class UnsafeViewBackward0(Op):
    """matmul beyond 2-D (folded or batched), computed in one NumPy call; backward via matmul.
    Subclasses only carry the node name PyTorch's decomposition ends with."""

    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b)
        ctx.a_nd, ctx.b_nd = a._data.ndim, b._data.ndim
        return np.matmul(a._data, b._data)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = gb = None
        if ctx.a_nd == 1:
            # (k) @ (..., k, m) -> (..., m)
            if n[0]:
                ga = (g.unsqueeze(-2).matmul(b.mT)).squeeze(-2)
            if n[1]:
                gb = a.unsqueeze(-1) * g.unsqueeze(-2)
            return ga, gb
        if ctx.b_nd == 1:
            # (..., n, k) @ (k) -> (..., n)
            if n[0]:
                ga = g.unsqueeze(-1) * b
            if n[1]:
                gb = (a * g.unsqueeze(-1)).sum(dim=tuple(range(ctx.a_nd - 1)))
            return ga, gb
        if n[0]:
            ga = g.matmul(b.mT)
        if n[1]:
            gb = a.mT.matmul(g)
        return ga, gb


class SqueezeBackward4(UnsafeViewBackward0):
    """1-D @ 2-D: PyTorch computes unsqueeze(0).mm(...).squeeze_(0)."""


class CloneBackward0(UnsafeViewBackward0):
    """2-D @ N-D folded through the transpose: PyTorch ends with .mT.contiguous()."""


def _elem_strides(t, transpose_last=False):
    shape = list(t._data.shape)
    st = [s // t._data.itemsize for s in t._data.strides]
    if transpose_last:
        shape[-1], shape[-2] = shape[-2], shape[-1]
        st[-1], st[-2] = st[-2], st[-1]
    return shape, st


def _should_fold(t1, t2):
    """PyTorch's should_fold: fold the N-D operand into a matrix and use mm/mv instead of bmm."""
    larger = t1._data.ndim >= t2._data.ndim
    big, small = (t1, t2) if larger else (t2, t1)
    if not (big._data.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if t1._data.ndim == 2:
        return False
    if big._data.size == 0:
        return True
    shape, st = _elem_strides(big, transpose_last=not larger)
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


@register(category="linalg", methods=("matmul",))
def matmul(input, other, *, out=None):
    """Matrix product with PyTorch's rules: 1-D x 1-D dot, 2-D mm, 1-D prepended/appended, batched broadcast."""
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _out(_matmul(input, other), out)


def _matmul(a, b):
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    sa, sb = a._data.shape, b._data.shape
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        _check_mm((1,) + sa, sb, a, b)
        return SqueezeBackward4.apply(a, b)
    if da == 2 and db == 2:
        return mm(a, b)
    if _should_fold(a, b):
        if da >= db:                       # fold a's batch into its rows
            rows = int(np.prod(sa[:-1]))
            if db == 2:
                _check_mm((rows, sa[-1]), sb, a, b)
            else:
                _check_mv((rows, sa[-1]), sb[0], a, b)
            node = UnsafeViewBackward0
        else:                              # fold b.mT; a (1-D / 2-D) goes on the right
            rows = int(np.prod(sb[:-2])) * sb[-1]
            if da == 2:
                _check_mm((rows, sb[-2]), (sa[1], sa[0]), b, a)
                # the result is (...).mT.contiguous(): a copy unless it already is contiguous
                node = UnsafeViewBackward0 if (sa[0] == 1 or sb[-1] == 1 or rows * sa[0] == 0) else CloneBackward0
            else:
                _check_mv((rows, sb[-2]), sa[0], b, a)
                node = UnsafeViewBackward0
        _check_result_alloc(a, b)
        return node.apply(a, b)
    # batched: broadcast the batch dims and use bmm
    if da == 3 and db == 3 and sa[0] != sb[0]:
        if sa[0] == 1 and a._requires_grad:
            return _matmul_squeezed(a, b, 0)
        if sb[0] == 1 and b._requires_grad:
            return _matmul_squeezed(a, b, 1)
    ba, bb = sa[:-2], sb[:-2]
    try:
        batch = np.broadcast_shapes(ba, bb)
    except ValueError:
        raise _broadcast_error(np.empty(ba), np.empty(bb)) from None
    B = int(np.prod(batch))
    n = sa[-2] if da > 1 else 1
    p = sb[-1] if db > 1 else 1
    m2 = sb[-2] if db > 1 else sb[0]
    _check_bmm((B, n, sa[-1]), (B, m2, p), a, b)
    _check_result_alloc(a, b)
    return UnsafeViewBackward0.apply(a, b)


def _matmul_squeezed(a, b, which):
    """PyTorch squeezes a size-1 batch of a 3-D operand that requires grad, so the matmul folds;
    the result keeps the broadcast shape and the gradient keeps the operand's shape."""
    return _matmul(a.squeeze(0), b) if which == 0 else _matmul(a, b.squeeze(0))


def _check_result_alloc(a, b):
    sa, sb = a._data.shape, b._data.shape
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    check_alloc(batch + ((sa[-2],) if len(sa) > 1 else ()) + ((sb[-1],) if len(sb) > 1 else ()), a.dtype)


def _matmul_dunder(self, other):
    return matmul(self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul_dunder(self, other):
    return matmul(other, self) if isinstance(other, Tensor) else NotImplemented


registry.method("__matmul__", _matmul_dunder)   # overrides the plain `matmul` recorded by register()
registry.method("__rmatmul__", _rmatmul_dunder)


@register(category="linalg", methods=("mm",))
def mm(input, mat2, *, out=None):
    """2-D matrix product."""
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input._data.shape, mat2._data.shape, input, mat2)
    return _out(MmBackward0.apply(input, mat2), out)


@register(category="linalg", methods=("bmm",))
def bmm(input, mat2, *, out=None):
    """Batched 3-D matrix product (no broadcasting)."""
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_bmm(input._data.shape, mat2._data.shape, input, mat2)
    return _out(BmmBackward0.apply(input, mat2), out)


@register(category="linalg", methods=("mv",))
def mv(input, vec, *, out=None):
    """Matrix-vector product."""
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    _check_mv(input._data.shape, vec._data.shape[0], input, vec)
    return _out(MvBackward0.apply(input, vec), out)


@register(category="linalg", methods=("dot",))
def dot(input, other, *, out=None):
    """Dot product of two 1-D tensors of the same size and dtype."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dot(): argument 'tensor' (position 2) must be Tensor, not {type(other).__name__}")
    _check_dot(input, other)
    return _out(DotBackward0.apply(input, other), out)


@register(category="linalg", methods=("inner",))
def inner(input, other, *, out=None):
    """Sum over the last dims: out[i..., j...] = sum_k input[i..., k] * other[j..., k]; 1-D x 1-D is dot."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return _out(input * other, out)
    k1, k2 = input._data.shape[-1], other._data.shape[-1]
    if k1 != k2:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    if input._data.ndim == 1 and other._data.ndim == 1:
        return _out(dot(input, other), out)
    r = input.reshape(-1, k1).mm(other.reshape(-1, k2).t())
    return _out(r.reshape(tuple(input._data.shape[:-1]) + tuple(other._data.shape[:-1])), out)


@register(category="linalg", methods=("outer", "ger"))
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors: out[i][j] = input[i] * vec2[j]."""
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return _out(input.unsqueeze(1) * vec2.unsqueeze(0), out)


@register(category="linalg")
def ger(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (torch.ger: outer's deprecated alias, outer's checks and node)."""
    return outer(input, vec2, out=out)


def _addmm_np(inp, m1, m2, beta, alpha):
    out = m1 @ m2
    if alpha != 1:
        out *= alpha
    if beta == 1:
        out += inp
    elif beta != 0:
        out += inp * beta
    return out


class AddmmBackward0(Op):
    """beta * input + alpha * (mat1 @ mat2) in one BLAS call; also F.linear's 2-D path
    (addmm(bias, input, weight.t())). Saves each matrix only if the other needs a gradient. As PyTorch's
    mm_mat2_backward, a column-major mat2 (e.g. the transposed weight) gets its gradient as (g.T @ mat1).T, so
    after TBackward0 the weight's gradient is C-contiguous and AccumulateGrad takes it over instead of copying."""

    @staticmethod
    def forward(ctx, input, mat1, mat2, beta=1, alpha=1):
        ng = ctx.needs_input_grad
        if ng:
            ctx.save_for_backward(mat1 if ng[2] else None, mat2 if ng[1] else None)
            st, sh, item = mat2._data.strides, mat2._data.shape, mat2._data.itemsize
            ctx.colmajor = st[0] == item and st[1] == sh[0] * item   # mm_mat2_backward's test
        ctx.beta, ctx.alpha = beta, alpha
        return quietly(_addmm_np, input._data, mat1._data, mat2._data, beta, alpha)

    @staticmethod
    def backward(ctx, g):
        m1, m2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = (g if ctx.beta == 1 else g * ctx.beta) if n[0] else None
        g1 = g.mm(m2.t()) if n[1] else None
        g2 = (g.t().mm(m1).t() if ctx.colmajor else m1.t().mm(g)) if n[2] else None
        if ctx.alpha != 1:
            g1 = g1 * ctx.alpha if g1 is not None else None
            g2 = g2 * ctx.alpha if g2 is not None else None
        return ga, g1, g2

    @staticmethod
    def backward_np(ctx, g):
        m1, m2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        a = ctx.alpha
        ga = (g if ctx.beta == 1 else g * ctx.beta) if n[0] else None
        if ga is not None and ga.shape != ctx._input_meta[0][0]:
            # the bias's sum first, as torch's formula (self's grad, then mat1's, mat2's): its temporaries are
            # gone before the weight's gradient is allocated (a training step's peak memory)
            ga = np_sum_to_shape(ga, ctx._input_meta[0][0])
        g1 = g @ m2._data.T if n[1] else None
        g2 = ((g.T @ m1._data).T if ctx.colmajor else m1._data.T @ g) if n[2] else None
        if a != 1:      # no copy for the usual alpha == 1
            g1 = g1 * a if g1 is not None else None
            g2 = g2 * a if g2 is not None else None
        return ga, g1, g2


@register(category="linalg", methods=("addmm",), inplace="addmm_")
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat1 @ mat2); input broadcasts to the product's shape."""
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " + f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " + f"{mat2._data.ndim}-D tensor")
    _check_mm(mat1._data.shape, mat2._data.shape, mat1, mat2)
    shape = (mat1._data.shape[0], mat2._data.shape[1])
    try:
        if np.broadcast_shapes(input._data.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({input._data.shape[-1]}) at non-singleton dimension 1.  Target sizes: "
                           f"[{shape[0]}, {shape[1]}].  Tensor sizes: {list(input._data.shape)}") from None
    return _out(AddmmBackward0.apply(input, mat1, mat2, beta, alpha), out)
