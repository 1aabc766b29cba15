"""LU with partial pivoting: torch.linalg.lu_factor(_ex)/lu/lu_solve and torch.lu/lu_unpack/lu_solve.
The factorization is LAPACK getrf's (first largest |pivot| per column, 1-based int32 pivots, info = first
zero pivot), run on NumPy; gradients are FunctionsManual.cpp's linalg_lu_backward (square, wide and tall)
and the chain rule through the packed LU for lu_solve, in core ops."""
from __future__ import annotations

import numpy as np

from ... import creation as _cr
from ..._warn import warn_aten
from ...autograd.node import Op
from ..registry import register
from ..shape.join import cat
from . import _common as C
from .products import matmul
from .triangular import linalg_solve_triangular
from ._out import linalg_out

linalg_lu_factor_t = C._rt._make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex_t = C._rt._make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu_t = C._rt._make("linalg_lu", ("P", "L", "U"))
lu_unpack_t = C._rt._make("lu_unpack", ("P", "L", "U"))


def _getrf(a):
    """One matrix: packed LU, pivots (1-based) and info, as LAPACK's getrf."""
    a = a.copy()
    m, n = a.shape
    k = min(m, n)
    piv, info = np.zeros(k, np.int32), 0
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + int(np.argmax(np.abs(a[j:, j])))
            piv[j] = p + 1
            if a[p, j] != 0:
                if p != j:
                    a[[j, p]] = a[[p, j]]
                a[j + 1:, j] /= a[j, j]
            elif info == 0:
                info = j + 1
            a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, piv, info


def np_lu_factor(x):
    f = C.flat(x)
    m, n = x.shape[-2:]
    lu, piv, info = np.empty_like(f), np.empty((len(f), min(m, n)), np.int32), np.empty(len(f), np.int32)
    for i, a in enumerate(f):
        lu[i], piv[i], info[i] = _getrf(a)
    b = x.shape[:-2]
    return lu.reshape(x.shape), piv.reshape(b + (min(m, n),)), info.reshape(b)


def np_permutation(piv, m, dtype):
    """P (m x m) with A = P L U from getrf's pivots."""
    b = piv.shape[:-1]
    fp = piv.reshape(int(np.prod(b, dtype=np.int64)), piv.shape[-1])
    P = np.zeros((len(fp), m, m), dtype)
    for i, p in enumerate(fp):
        perm = np.arange(m)
        for j, q in enumerate(p):
            perm[[j, q - 1]] = perm[[q - 1, j]]
        P[i, perm, np.arange(m)] = 1
    return P.reshape(b + (m, m))


def np_unpack(lu, piv):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    return np_permutation(piv, m, lu.dtype), L, U


def lu_backward(gL, gU, P, L, U):
    """gA for A = P L U (FunctionsManual.cpp linalg_lu_backward): the square formula
    P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T, with the extra block of a wide U or a tall L."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    gL = L * 0 if gL is None else gL.tril(-1)
    gU = U * 0 if gU is None else gU.triu()
    extra = None
    if m < n:    # U = [U1 | U2], U2 = L^-1 P^T A2
        U1, gU2, U2 = U[..., :, :k], gU[..., :, k:], U[..., :, k:]
        extra = linalg_solve_triangular(L.mT, gU2, upper=True, unitriangular=True)
        gL = gL - matmul(extra, U2.mT).tril(-1)
        U, gU = U1, gU[..., :, :k]
    elif m > n:  # L = [L1; L2], L2 = (P^T A)_2 U^-1
        L1, gL2, L2 = L[..., :k, :], gL[..., k:, :], L[..., k:, :]
        extra = linalg_solve_triangular(U.mT, gL2, upper=False, left=False)
        gU = gU - matmul(L2.mT, extra).triu()
        L, gL = L1, gL[..., :k, :]
    phi = matmul(L.mT, gL).tril(-1) + matmul(gU, U.mT).triu()
    gA = linalg_solve_triangular(L.mT, phi, upper=True, unitriangular=True)
    gA = linalg_solve_triangular(U.mT, gA, upper=False, left=False)
    if extra is not None:
        gA = cat([gA, extra], -1 if m < n else -2)
    return matmul(P, gA)


def _unpack(LU):
    """L (unit lower) and U from the packed factors, in core ops (so they stay functions of LU)."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _cr.eye(m, k, dtype=LU.dtype)
    return L, LU[..., :k, :].triu()


class LinalgLuFactorExBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A):
        lu, piv, info = np_lu_factor(A._data)
        ctx.save_for_backward(C.make(np_permutation(piv, lu.shape[-2], lu.dtype)))
        return lu, piv, info

    @staticmethod
    def backward(ctx, gLU, gpiv=None, ginfo=None):
        P, LU = ctx.saved_tensors
        L, U = _unpack(LU)
        k = min(L.shape[-2], U.shape[-1])
        return lu_backward(gLU[..., :, :k], gLU[..., :k, :], P, L, U)


class LinalgLuBackward0(Op):
    _materialize = False   # unused outputs' gradients stay None, as undefined grads in torch

    @staticmethod
    def forward(ctx, A):
        lu, piv, _ = np_lu_factor(A._data)
        P, L, U = np_unpack(lu, piv)
        ctx.save_for_backward(C.make(P))
        return P, L, U

    @staticmethod
    def backward(ctx, gP, gL, gU):
        P, L, U = ctx.saved_tensors
        return lu_backward(gL, gU, P, L, U)


def _check_lu(A, pivot, fname="linalg.lu_factor"):
    if A._data.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not A.dtype.is_floating_point or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{C._dtname(A.dtype)}'")
    if not pivot:
        raise RuntimeError(f"{fname}: LU without pivoting is not implemented on the CPU")


@register("linalg.lu_factor_ex", category="linalg", function=False)
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): LAPACK getrf's packed factors, 1-based int32 pivots and info
    (torch.linalg.lu_factor_ex)."""
    _check_lu(A, pivot)
    return linalg_out(linalg_lu_factor_ex_t(*LinalgLuFactorExBackward0.apply(A)), out, "linalg.lu_factor_ex")


@register("linalg.lu_factor", category="linalg", function=False)
def linalg_lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots) packed LU with partial pivoting; an error for an exactly zero pivot
    (torch.linalg.lu_factor)."""
    lu, piv, info = linalg_lu_factor_ex(A, pivot=pivot)
    bad = np.flatnonzero(info._data.reshape(-1))
    if len(bad):
        i = int(bad[0])
        j = int(info._data.reshape(-1)[i])
        raise RuntimeError(f"torch.linalg.lu_factor: {C.batch_prefix(A._data.shape, i)}U[{j},{j}] is zero and "
                           "using it on lu_solve would result in a division by zero. If you still want to perform "
                           "the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return linalg_out(linalg_lu_factor_t(lu, piv), out, "linalg.lu_factor")


@register("linalg.lu", category="linalg", function=False)
def linalg_lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U, L unit lower triangular (torch.linalg.lu); P is not differentiable."""
    _check_lu(A, pivot, "linalg.lu_factor")
    P, L, U = C.save_outputs(LinalgLuBackward0.apply(A), 1, 2)
    return linalg_out(linalg_lu_t(P.detach(), L, U), out, "linalg.lu")


@register(category="linalg", methods=("lu",))
def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated torch.lu: (LU, pivots) or, with get_infos, (LU, pivots, infos)."""
    warn_aten("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
              "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with"
              "\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
              "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
              "torch.linalg.lu_factor_ex(A, compute_pivots)", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2073",
              once=True, from_python=True)
    if get_infos:
        return tuple(linalg_lu_factor_ex(A, pivot=pivot))
    return tuple(linalg_lu_factor(A, pivot=pivot))


class LuUnpackBackward0(Op):
    @staticmethod
    def forward(ctx, LU, pivots):
        ctx.shape = LU._data.shape
        return np_unpack(LU._data, pivots._data)

    @staticmethod
    def backward(ctx, gP, gL, gU):
        m, n = ctx.shape[-2:]
        k = min(m, n)
        g = _cr.zeros(*ctx.shape, dtype=(gL if gL is not None else gU).dtype)
        if gL is not None:
            gl = gL.tril(-1)
            g = g + (cat([gl, _cr.zeros(*gl.shape[:-1], n - k, dtype=gl.dtype)], -1) if n > k else gl)
        if gU is not None:
            gu = gU.triu()
            g = g + (cat([gu, _cr.zeros(*gu.shape[:-2], m - k, n, dtype=gu.dtype)], -2) if m > k else gu)
        return g, None


@register(category="linalg")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's packed result (torch.lu_unpack); P is not differentiable."""
    P, L, U = LuUnpackBackward0.apply(LU_data, LU_pivots)
    return linalg_out(lu_unpack_t(P.detach(), L, U), out, "lu_unpack")


class LinalgLuSolveBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, LU, pivots, B, left, adjoint):
        P, L, U = np_unpack(LU._data, pivots._data)
        a = P @ L @ U
        if adjoint:
            a = np.swapaxes(a, -1, -2)
        b = B._data
        with np.errstate(all="ignore"):
            if left:
                x = _solve(a, b)
            else:
                x = np.swapaxes(_solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
        ctx.flags = left, adjoint
        ctx.save_for_backward(LU, pivots, C.make(P))
        return x.astype(B._data.dtype)

    @staticmethod
    def backward(ctx, g):
        LU, piv, P, X = ctx.saved_tensors
        L, U = _unpack(LU)
        left, adjoint = ctx.flags
        ng = ctx.needs_input_grad
        gB = linalg_lu_solve(LU, piv, g, left=left, adjoint=not adjoint)
        gLU = None
        if ng[0]:
            if left:
                gA = -matmul(X, gB.mT) if adjoint else -matmul(gB, X.mT)
            else:
                gA = -matmul(gB.mT, X) if adjoint else -matmul(X.mT, gB)
            PtgA = matmul(P.mT, gA)
            gLU = matmul(PtgA, U.mT).tril(-1) + matmul(L.mT, PtgA).triu()
        return gLU, None, (gB if ng[2] else None)


def _solve(a, b):
    batch = C.bcast_batch(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(batch + (a.shape[-1], b.shape[-1]), a.dtype)
    return np.linalg.solve(a, b)


@register("linalg.lu_solve", category="linalg", function=False)
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with AX = B (XA = B when left=False; A^T when adjoint) from lu_factor's (LU, pivots)
    (torch.linalg.lu_solve)."""
    n = LU._data.shape[-1]
    bs = B._data.shape
    if (bs[-2] if left else bs[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{bs[-2]}x{bs[-1]})")
    return linalg_out(LinalgLuSolveBackward0.apply(LU, pivots, B, bool(left), bool(adjoint)), out, "linalg.lu_solve")


@register(category="linalg", methods=("lu_solve",))
def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """Deprecated torch.lu_solve(b, LU, pivots) = linalg.lu_solve(LU, pivots, b)."""
    return linalg_out(linalg_lu_solve(LU_data, LU_pivots, input), out, "lu_solve")
