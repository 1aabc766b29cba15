"""Determinants, inverses and linear solves: torch.linalg.det/slogdet/inv/inv_ex/solve/solve_ex/matrix_power
and torch.det/logdet/slogdet/inverse, on NumPy's LAPACK, with ATen's checks, LinAlgError messages and
derivatives.yaml's gradients (written in core ops, so create_graph works)."""
from __future__ import annotations

import numpy as np

from ... import creation as _cr
from ...autograd.node import Op
from ...dtypes import scalar_name as _dtname
from ..registry import register
from . import _common as C
from .decompositions import linalg_svd
from .products import matmul
from ._out import linalg_out


def _det_svd_backward(A, g):
    """derivatives.yaml's linalg_det_backward for (possibly) singular A: via the SVD, with the product of the
    other singular values in place of det/s_i (prod_safe_zeros_backward)."""
    U, S, Vh = linalg_svd(A, full_matrices=False)
    alpha = linalg_det(U) * linalg_det(Vh)
    n = S.shape[-1]
    eye = _cr.eye(n, dtype=S.dtype)
    others = (S.unsqueeze(-2) * (1 - eye) + eye).prod(-1)
    D = (g * alpha).unsqueeze(-1) * others
    return matmul(U * D.unsqueeze(-2), Vh)


class LinalgDetBackward0(Op):
    """Gradient g * det * A^-T; as torch 2.13 does, zero where det == 0 in a plain backward, and the SVD
    formula (defined at singular matrices too) when a graph of the gradient is recorded."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        d = np.linalg.det(A._data).astype(A._data.dtype)
        ctx.det = d
        return d

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        if C.graphing():
            return _det_svd_backward(A, g)
        a, d = A._data, ctx.det
        flat, fd = C.flat(a), np.reshape(d, -1)
        inv = np.zeros_like(flat)
        ok = fd != 0
        if ok.any():
            inv[ok] = np.linalg.inv(flat[ok])
        inv = C.make(inv.reshape(a.shape))
        return (g * C.make(d)).unsqueeze(-1).unsqueeze(-1) * inv.mT


@register("linalg.det", category="linalg", function=False)
def linalg_det(A, *, out=None):
    """Determinant of (batches of) square matrices (torch.linalg.det)."""
    C.check_float(A, "linalg.det")
    C.check_square(A, "linalg.det")
    return linalg_out(LinalgDetBackward0.apply(A), out, "linalg.det")


@register(category="linalg", methods=("det",))
def det(input):
    """Determinant (torch.det, alias of linalg.det)."""
    return linalg_det(input)


class LinalgSlogdetBackward0(Op):
    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        s, l = np.linalg.slogdet(A._data)
        dt = A._data.dtype
        return np.asarray(s, dtype=dt), np.asarray(l, dtype=dt)

    @staticmethod
    def backward(ctx, gsign, glogabs):
        (A,) = ctx.saved_tensors
        if glogabs is None:
            return A * 0
        return glogabs.unsqueeze(-1).unsqueeze(-1) * linalg_inv(A).mT


@register("linalg.slogdet", category="linalg", function=False)
def linalg_slogdet(A, *, out=None):
    """(sign, log|det|) of square matrices (torch.linalg.slogdet); only logabsdet is differentiable."""
    C.check_float(A, "linalg.slogdet")
    C.check_square(A, "linalg.slogdet")
    return linalg_out(C.linalg_slogdet(*LinalgSlogdetBackward0.apply(A)), out, "linalg.slogdet")


@register(category="linalg", methods=("slogdet",))
def slogdet(input):
    """(sign, log|det|) (torch.slogdet)."""
    C.check_float(input, "linalg.slogdet")
    C.check_square(input, "linalg.slogdet")
    return C.slogdet_t(*LinalgSlogdetBackward0.apply(input))


@register(category="linalg", methods=("logdet",))
def logdet(input):
    """log det: NaN for a negative determinant, -inf for a singular matrix (torch.logdet = where(sign<0, nan,
    logabsdet))."""
    C.check_float(input, "logdet")
    C.check_square(input, "logdet")
    sign, lad = LinalgSlogdetBackward0.apply(input)
    return lad.where(sign >= 0, float("nan"))


def _raise_singular_inv(x, fname="linalg.inv"):
    info = C.lu_infos(x)
    for i, v in enumerate(info.reshape(-1)):
        if v:
            raise C.LinAlgError(f"{fname}: {C.batch_prefix(x.shape, i)}The diagonal element {v} is zero, the "
                                "inversion could not be completed because the input matrix is singular.")


def _np_inv(x):
    """Inverse and getrf infos; singular matrices give NaN/inf as LAPACK's partial results do in torch."""
    with np.errstate(all="ignore"):
        try:
            return np.linalg.inv(x), np.zeros(x.shape[:-2], np.int32)
        except np.linalg.LinAlgError:
            info = C.lu_infos(x)
            flat_x, out = C.flat(x), []
            for m, i in zip(flat_x, info.reshape(-1)):
                out.append(np.linalg.inv(m) if not i else np.full(m.shape, np.nan))
            return np.array(out, dtype=x.dtype).reshape(x.shape), info


class LinalgInvExBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A, check):
        x = A._data
        inv, info = _np_inv(x)
        if check and np.any(info):
            _raise_singular_inv(x)
        return inv.astype(x.dtype), info

    @staticmethod
    def backward(ctx, g, ginfo=None):
        (Ainv,) = ctx.saved_tensors
        return -matmul(matmul(Ainv.mT, g), Ainv.mT)


def _inv(A, fname, check):
    C.check_float(A, fname, low_precision=True)
    C.check_square(A, fname)
    return LinalgInvExBackward0.apply(A, check)


@register("linalg.inv", category="linalg", function=False)
def linalg_inv(A, *, out=None):
    """Inverse of square matrices; LinAlgError for singular ones (torch.linalg.inv)."""
    return linalg_out(_inv(A, "linalg.inv", True)[0], out, "linalg.inv")


@register("linalg.inv_ex", category="linalg", function=False)
def linalg_inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info) with LAPACK's info instead of an error (torch.linalg.inv_ex)."""
    return linalg_out(C.linalg_inv_ex(*_inv(A, "linalg.inv", check_errors)), out, "linalg.inv_ex")


@register(category="linalg", methods=("inverse",))
def inverse(input, *, out=None):
    """Inverse of square matrices (torch.inverse, alias of linalg.inv)."""
    return linalg_out(linalg_inv(input), out, "inverse")


def _solve_vector_case(A, B):
    """ATen's linalg_solve_is_vector_rhs: B is a (batch of) vector(s)."""
    na, nb = A._data.ndim, B._data.ndim
    return nb == 1 or (na - 1 == nb and B._data.shape == A._data.shape[:-1])


def _np_solve(a, b, a0):
    """X for broadcast a, b and getrf's infos over a0 (A before broadcasting: torch's info has A's batch
    shape). One LAPACK call when no matrix is singular; else the singular ones give NaN."""
    with np.errstate(all="ignore"):
        shape = np.broadcast_shapes(a.shape[:-1] + (1,), b.shape)
        if a.size == 0 or b.size == 0:
            return np.zeros(shape, a.dtype), np.zeros(a0.shape[:-2], np.int32)
        try:
            return np.linalg.solve(a, b), np.zeros(a0.shape[:-2], np.int32)
        except np.linalg.LinAlgError:
            info = C.lu_infos(a0)
        x = np.full(shape, np.nan, a.dtype)
        ok = np.broadcast_to(info, a.shape[:-2]).reshape(-1) == 0
        if ok.any():
            C.flat(x)[ok] = np.linalg.solve(C.flat(a)[ok], C.flat(b)[ok])
        return x, info


class LinalgSolveExBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A, B, left, vec, check):
        a, b = A._data, B._data
        if vec:
            b = b[..., None]
        if not left:
            a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
        batch = C.bcast_batch(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        x, info = _np_solve(a, b, A._data)
        if check and np.any(info):
            i = int(np.flatnonzero(info.reshape(-1))[0])
            raise C.LinAlgError(f"torch.linalg.solve: {C.batch_prefix(A._data.shape, i)}The solver failed because "
                                "the input matrix is singular.")
        if not left:
            x = np.swapaxes(x, -1, -2)
        if vec:
            x = x[..., 0]
        ctx.left, ctx.vec = left, vec
        ctx.save_for_backward(A)
        return x.astype(A._data.dtype), info

    @staticmethod
    def backward(ctx, g, ginfo=None):
        A, X = ctx.saved_tensors
        if ctx.vec:
            g, X = g.unsqueeze(-1), X.unsqueeze(-1)
        gB = linalg_solve(A.mT, g, left=ctx.left)
        gA = -matmul(gB, X.mT) if ctx.left else -matmul(X.mT, gB)
        ng = ctx.needs_input_grad
        return (gA if ng[0] else None), ((gB.squeeze(-1) if ctx.vec else gB) if ng[1] else None)


def _solve(A, B, left, check):
    C.check_float(A, "linalg.solve")
    C.check_square(A, "linalg.solve")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_dtname(A.dtype)} and B of type {_dtname(B.dtype)} instead")
    vec = _solve_vector_case(A, B)
    bs = B._data.shape + (1,) if vec else B._data.shape
    if B._data.ndim < 1 or (not vec and B._data.ndim < 2):
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = A._data.shape[-1]
    k = bs[-2] if left else bs[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {bs[-2]}x{bs[-1]})")
    if not vec:
        C.bcast_batch(B._data.shape[:-2], A._data.shape[:-2])
    return LinalgSolveExBackward0.apply(A, B, left, vec, check)


@register("linalg.solve", category="linalg", function=False)
def linalg_solve(A, B, *, left=True, out=None):
    """X with AX = B (XA = B when left=False); B may be a (batch of) vector(s) (torch.linalg.solve)."""
    return linalg_out(_solve(A, B, left, True)[0], out, "linalg.solve")


@register("linalg.solve_ex", category="linalg", function=False)
def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info) of linalg.solve, with LAPACK's info instead of an error (torch.linalg.solve_ex)."""
    return linalg_out(C.linalg_solve_ex(*_solve(A, B, left, check_errors)), out, "linalg.solve_ex")


class CopyBackwards(Op):
    """matrix_power(A, 0): torch copies an identity into a new tensor; the gradient w.r.t. A is zero."""

    def name(self):
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, A):
        n = A._data.shape[-1]
        return np.broadcast_to(np.eye(n, dtype=A._data.dtype), A._data.shape).copy()

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape)


@register("linalg.matrix_power", category="linalg", function=False)
def linalg_matrix_power(A, n, *, out=None):
    """A^n by repeated squaring as ATen does (A^-n = inv(A)^n) (torch.linalg.matrix_power)."""
    C.check_square(A, "linalg.matrix_power")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        return linalg_out(CopyBackwards.apply(A), out, "linalg.matrix_power")
    if n == 1:
        return linalg_out(A.clone(), out, "linalg.matrix_power")
    if n < 0:
        A, n = linalg_inv(A), -n
    if n == 1:
        return linalg_out(A, out, "linalg.matrix_power")
    result = z = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return linalg_out(result, out, "linalg.matrix_power")


@register(category="linalg", methods=("matrix_power",))
def matrix_power(input, n):
    """A^n (torch.matrix_power, alias of linalg.matrix_power)."""
    return linalg_matrix_power(input, n)
