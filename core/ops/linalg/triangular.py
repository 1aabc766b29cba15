"""Triangular solves: torch.linalg.solve_triangular, torch.triangular_solve, torch.cholesky_solve and
torch.cholesky_inverse. Substitution runs row by row on NumPy (LAPACK trtrs gives inf/NaN, not an error,
for a zero diagonal, and so does this); gradients follow derivatives.yaml, written in core ops."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ..._warn import warn_aten
from ...autograd.node import Op
from ..registry import register
from . import _common as C
from .products import matmul
from ._out import linalg_out


def _np_trsolve(a, b, upper, left, unit):
    """X with AX = B (XA = B when not left), A triangular; batch dims broadcast."""
    if not left:
        return np.swapaxes(_np_trsolve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, True, unit),
                           -1, -2)
    batch = C.bcast_batch(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=np.result_type(a, b))
    n = a.shape[-1]
    rows = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(all="ignore"):
        for i in rows:
            rest = slice(i + 1, n) if upper else slice(0, i)
            if n > 1:
                x[..., i, :] -= np.einsum("...j,...jk->...k", a[..., i, rest], x[..., rest, :])
            if not unit:
                x[..., i, :] /= a[..., i, i][..., None]
    return x


def _project(gA, upper, unit):
    gA = gA.triu() if upper else gA.tril()
    if unit:
        gA = gA.triu(1) if upper else gA.tril(-1)
    return gA


class LinalgSolveTriangularBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A, B, upper, left, unit):
        x = _np_trsolve(A._data, B._data, upper, left, unit)
        ctx.flags = upper, left, unit
        ctx.save_for_backward(A)
        return x

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        gB = linalg_solve_triangular(A.mT, g, upper=not upper, left=left, unitriangular=unit)
        ng = ctx.needs_input_grad
        gA = None
        if ng[0]:
            gA = _project(-matmul(gB, X.mT) if left else -matmul(X.mT, gB), upper, unit)
        return gA, (gB if ng[1] else None)


def _check_tri(A, B, left, fname):
    C.check_matrix(A, fname)
    C.check_square(A, fname)
    if B._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    n = A._data.shape[-1]
    if (B._data.shape[-2] if left else B._data.shape[-1]) != n:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'}"
                           f" ({n}x{n} and {B._data.shape[-2]}x{B._data.shape[-1]})")
    C.bcast_batch(A._data.shape[:-2], B._data.shape[:-2])
    dt = _dt.promote_types(A.dtype, B.dtype)
    if not dt.is_floating_point or dt == _dt.float16:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{C._dtname(dt)}'")
    return A.to(dt), B.to(dt)


@register("linalg.solve_triangular", category="linalg", function=False)
def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with AX = B (XA = B when left=False) for triangular A, reading only its upper/lower triangle
    (torch.linalg.solve_triangular)."""
    A, B = _check_tri(A, B, left, "linalg.solve_triangular")
    r = LinalgSolveTriangularBackward0.apply(A, B, bool(upper), bool(left), bool(unitriangular))
    return linalg_out(r, out, "linalg.solve_triangular")


class TriangularSolveBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, B, A, upper, transpose, unit):
        a = np.swapaxes(A._data, -1, -2) if transpose else A._data
        x = _np_trsolve(a, B._data, upper != transpose, True, unit)
        batch = x.shape[:-2]
        ctx.flags = upper, transpose, unit
        ctx.save_for_backward(A)
        ca = np.broadcast_to(A._data, batch + A._data.shape[-2:]).copy()
        return x, ca

    @staticmethod
    def backward(ctx, gX, gM=None):
        A, X = ctx.saved_tensors
        upper, transpose, unit = ctx.flags
        ng = ctx.needs_input_grad
        gB = gA = None
        if gX is not None:
            gB = triangular_solve(gX, A, upper=upper, transpose=not transpose, unitriangular=unit)[0]
            if ng[1]:
                gA = -matmul(X, gB.mT) if transpose else -matmul(gB, X.mT)
                gA = _project(gA, upper, unit)
        if gM is not None and ng[1]:   # the cloned coefficient's gradient flows back unprojected
            gA = gM if gA is None else gA + gM
        return (gB if ng[0] else None), gA


@register(category="linalg", methods=("triangular_solve",))
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Deprecated torch.triangular_solve(b, A): (solution of op(A) X = b, a copy of A broadcast)."""
    warn_aten("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in "
              "a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
              "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
              "with\nX = torch.linalg.solve_triangular(A, B).", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2273",
              once=True)
    for t, nm in ((input, "b"), (A, "A")):
        if t._data.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {nm} to have at least 2 dimensions, but it has "
                               f"{t._data.ndim} dimensions instead")
    if A._data.shape[-1] != A._data.shape[-2] or A._data.shape[-1] != input._data.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A._data.shape[-2]} by {A._data.shape[-1]} but each b matrix is "
                           f"{input._data.shape[-2]} by {input._data.shape[-1]}")
    if not A.dtype.is_floating_point or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{C._dtname(A.dtype)}'")
    return linalg_out(C.triangular_solve_t(*TriangularSolveBackward0.apply(input, A, bool(upper), bool(transpose),
                                                                 bool(unitriangular))), out, "triangular_solve")


class CholeskySolveBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, B, L, upper):
        l = np.swapaxes(L._data, -1, -2) if upper else L._data          # lower factor
        y = _np_trsolve(l, B._data, False, True, False)
        x = _np_trsolve(np.swapaxes(l, -1, -2), y, True, True, False)
        ctx.upper = upper
        ctx.save_for_backward(L)
        return x

    @staticmethod
    def backward(ctx, g):
        L, X = ctx.saved_tensors
        gB = cholesky_solve(g, L, ctx.upper)
        common = matmul(gB, X.mT)
        common = common + common.mT
        gL = -matmul(L, common) if ctx.upper else -matmul(common, L)
        ng = ctx.needs_input_grad
        return (gB if ng[0] else None), (gL if ng[1] else None)


@register(category="linalg", methods=("cholesky_solve",))
def cholesky_solve(input, input2, upper=False, *, out=None):
    """X with (L L^T) X = B from the Cholesky factor L = input2 (U with upper=True) (torch.cholesky_solve)."""
    for t, nm in ((input, "b"), (input2, "u")):
        if t._data.ndim < 2:
            raise RuntimeError(f"{nm} should have at least 2 dimensions, but has {t._data.ndim} dimensions instead")
    if input.dtype != input2.dtype:
        raise RuntimeError(f"Expected b and u to have the same dtype, but found b of type {C._dtname(input.dtype)}"
                           f" and u of type {C._dtname(input2.dtype)} instead.")
    return linalg_out(CholeskySolveBackward0.apply(input, input2, bool(upper)), out, "cholesky_solve")


class CholeskyInverseBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, L, upper):
        l = np.swapaxes(L._data, -1, -2) if upper else L._data
        n = l.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=l.dtype), l.shape)
        y = _np_trsolve(l, eye, False, True, False)
        ctx.upper = upper
        ctx.save_for_backward(L)
        return _np_trsolve(np.swapaxes(l, -1, -2), y, True, True, False)

    @staticmethod
    def backward(ctx, g):
        L, inv = ctx.saved_tensors
        common = matmul(inv, matmul(g + g.mT, inv))
        return -matmul(L, common) if ctx.upper else -matmul(common, L)


@register(category="linalg", methods=("cholesky_inverse",))
def cholesky_inverse(input, upper=False, *, out=None):
    """(L L^T)^-1 from the Cholesky factor L (U^T U with upper=True) (torch.cholesky_inverse)."""
    C.check_matrix(input, "cholesky_inverse")
    C.check_square(input, "cholesky_inverse")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"cholesky_inverse: Expected a floating point or complex tensor as input. Got "
                           f"{C._dtname(input.dtype)}")
    return linalg_out(CholeskyInverseBackward0.apply(input, bool(upper)), out, "cholesky_inverse")
