"""Factorizations: torch.linalg.cholesky(_ex)/qr/eigh/eigvalsh/svd/svdvals and torch.cholesky/qr/svd, on
NumPy's LAPACK with ATen's checks and FunctionsManual.cpp's backward formulas (cholesky_backward,
linalg_qr_backward, linalg_eig_backward for Hermitian input, svd_backward), written in core ops."""
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


def _eye_like(n, like):
    return _cr.eye(n, dtype=like.dtype)


# -- Cholesky -------------------------------------------------------------------------------------

def _np_cholesky(x):
    """Lower factors and potrf infos (order of the first non-positive leading minor)."""
    if x.size == 0:
        return np.zeros_like(x), np.zeros(x.shape[:-2], np.int32)
    flat = C.flat(x)
    out, info = np.zeros_like(flat), np.zeros(len(flat), np.int32)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            for k in range(1, m.shape[0] + 1):
                try:
                    np.linalg.cholesky(m[:k, :k])
                except np.linalg.LinAlgError:
                    info[i] = k
                    break
    return out.reshape(x.shape), info.reshape(x.shape[:-2])


def cholesky_backward(gL, L, upper):
    """FunctionsManual.cpp cholesky_backward: gA = sym(L^-H Phi(L^H gL) L^-1), Phi = tril with halved diagonal."""
    if upper:
        L, gL = L.mT, gL.mT
    phi = matmul(L.mT, gL).tril()
    n = L.shape[-1]
    phi = phi - 0.5 * phi * _eye_like(n, phi)
    gA = linalg_solve_triangular(L.mT, phi, upper=True)
    gA = linalg_solve_triangular(L, gA, upper=False, left=False)
    return 0.5 * (gA + gA.mT)


class LinalgCholeskyExBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A, upper, check, fname):
        L, info = _np_cholesky(A._data.astype(np.float64) if A._data.dtype == np.float64 else A._data)
        if check and np.any(info):
            i = int(np.flatnonzero(info.reshape(-1))[0])
            raise C.LinAlgError(f"{fname}: {C.batch_prefix(A._data.shape, i)}The factorization could not be "
                                "completed because the input is not positive-definite (the leading minor of "
                                f"order {info.reshape(-1)[i]} is not positive-definite).")
        if upper:
            L = np.swapaxes(L, -1, -2)
        ctx.upper = upper
        return np.ascontiguousarray(L).astype(A._data.dtype), info

    @staticmethod
    def backward(ctx, gL, ginfo=None):
        (L,) = ctx.saved_tensors
        return cholesky_backward(gL, L, ctx.upper)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """torch.cholesky's node (the deprecated function)."""


def _cholesky(A, upper, check, fname, op=LinalgCholeskyExBackward0):
    C.check_matrix(A, fname)
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{C._dtname(A.dtype)}")
    if A._data.dtype == np.float16:
        raise NotImplementedError("\"cholesky_cpu\" not implemented for 'Half'")
    C.check_square(A, fname)
    return op.apply(A, bool(upper), check, fname)


@register("linalg.cholesky", category="linalg", function=False)
def linalg_cholesky(A, *, upper=False, out=None):
    """Cholesky factor L (A = L L^T) of symmetric positive-definite matrices; U = L^T with upper=True
    (torch.linalg.cholesky). Reads the lower triangle only."""
    return linalg_out(_cholesky(A, upper, True, "linalg.cholesky")[0], out, "linalg.cholesky")


@register("linalg.cholesky_ex", category="linalg", function=False)
def linalg_cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info) with LAPACK's info instead of an error (torch.linalg.cholesky_ex)."""
    return linalg_out(C.linalg_cholesky_ex(*_cholesky(A, upper, check_errors, "linalg.cholesky")), out,
                      "linalg.cholesky_ex")


@register(category="linalg", methods=("cholesky",))
def cholesky(input, upper=False, *, out=None):
    """Deprecated torch.cholesky (warns once, as torch does)."""
    warn_aten("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
              "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
              "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
              "transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
              "aten/src/ATen/native/BatchLinearAlgebra.cpp:1765", once=True)
    return linalg_out(_cholesky(input, upper, True, "linalg.cholesky", CholeskyBackward0)[0], out, "cholesky")


# -- QR -------------------------------------------------------------------------------------------

def _qr_backward_wide_ok(gQ, gR, Q, R):
    """m >= n (or square): gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^-H."""
    M = None
    if gR is not None:
        M = matmul(gR, R.mT)
    if gQ is not None:
        M = -matmul(Q.mT, gQ) if M is None else M - matmul(Q.mT, gQ)
    M = M.triu()
    n = M.shape[-1]
    M = M + M.mT - M * _eye_like(n, M)
    gA = matmul(Q, M)
    if gQ is not None:
        gA = gA + gQ
    return linalg_solve_triangular(R.mT, gA, upper=False, left=False)


def qr_backward(gQ, gR, Q, R, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                               "nrows > ncols.")
        return _qr_backward_wide_ok(gQ, gR, Q, R)
    # m < n: A = Q [R1 | R2]; Y = Q R2 contributes through Q
    R1, R2 = R[..., :, :m], R[..., :, m:]
    gR1 = gR[..., :, :m] if gR is not None else None
    gY = matmul(Q, gR[..., :, m:]) if gR is not None else None
    Y = matmul(Q, R2)
    gQ2 = matmul(Y, gR[..., :, m:].mT) if gR is not None else None
    gQt = gQ2 if gQ is None else (gQ if gQ2 is None else gQ + gQ2)
    gX = _qr_backward_wide_ok(gQt, gR1, Q, R1)
    return cat([gX, gY if gY is not None else Y * 0], -1)


class LinalgQrBackward0(Op):
    _materialize = False   # unused outputs' gradients stay None, as undefined grads in torch

    @staticmethod
    def forward(ctx, A, mode):
        a = A._data
        npmode = {"reduced": "reduced", "complete": "complete", "r": "r"}[mode]
        if mode == "r":
            r = np.linalg.qr(a, mode="r")
            q = np.empty((0,), a.dtype)
        else:
            q, r = np.linalg.qr(a, mode=npmode)
        ctx.mode = mode
        return q.astype(a.dtype), r.astype(a.dtype)

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        return qr_backward(gQ, gR, Q, R, ctx.mode)


@register("linalg.qr", category="linalg", function=False)
def linalg_qr(A, mode="reduced", *, out=None):
    """QR factorization, mode 'reduced' (default), 'complete' or 'r' (Q empty) (torch.linalg.qr)."""
    C.check_float(A, "linalg.qr")
    C.check_matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    return linalg_out(C.linalg_qr(*C.save_outputs(LinalgQrBackward0.apply(A, mode), 0, 1)), out, "linalg.qr")


@register(category="linalg", methods=("qr",))
def qr(input, some=True, *, out=None):
    """Deprecated torch.qr: some=True is mode='reduced', some=False mode='complete'."""
    warn_aten("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
              "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)"
              "\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
              "aten/src/ATen/native/BatchLinearAlgebra.cpp:2505", once=True)
    q, r = linalg_qr(input, "reduced" if some else "complete")
    return linalg_out(C.qr_t(q, r), out, "qr")


# -- eigh -----------------------------------------------------------------------------------------

def eigh_backward(gL, gV, L, V):
    """linalg_eig_backward for Hermitian A: gA = V (diag(gL) + skew(V^H gV)/2 / E) V^H, E_ij = L_j - L_i."""
    n = L.shape[-1]
    eye = _eye_like(n, L)
    if gV is not None:
        VhgV = matmul(V.mT, gV)
        VhgV = 0.5 * (VhgV - VhgV.mT)
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        E = E * (1 - eye) + eye
        inner = (VhgV / E) * (1 - eye)
    else:
        inner = None
    if gL is not None:
        d = gL.unsqueeze(-1) * eye
        inner = d if inner is None else inner + d
    return matmul(matmul(V, inner), V.mT)


class LinalgEighBackward0(Op):
    _materialize = False   # unused outputs' gradients stay None, as undefined grads in torch

    @staticmethod
    def forward(ctx, A, uplo, vectors):
        a = A._data
        w, v = np.linalg.eigh(a, UPLO=uplo)
        return w.astype(a.dtype), v.astype(a.dtype)

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        return eigh_backward(gL, gV, L, V)


def _eigh(A, UPLO, vectors, fname):
    C.check_square(A, fname)
    if not A.dtype.is_floating_point or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{C._dtname(A.dtype)}'")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not vectors and not (A.requires_grad and C.graphing()):
        return C.make(np.linalg.eigvalsh(A._data, UPLO=UPLO).astype(A._data.dtype))
    out = C.save_outputs(LinalgEighBackward0.apply(A, UPLO, vectors), 0, 1)
    return out if vectors else out[0]   # eigvalsh keeps eigh's node (and its saved eigenvectors), as torch


@register("linalg.eigh", category="linalg", function=False)
def linalg_eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, reading the UPLO triangle
    (torch.linalg.eigh). Eigenvectors are unique up to sign only."""
    return linalg_out(C.linalg_eigh(*_eigh(A, UPLO, True, "linalg.eigh")), out, "linalg.eigh")


@register("linalg.eigvalsh", category="linalg", function=False)
def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of symmetric matrices (torch.linalg.eigvalsh)."""
    return linalg_out(_eigh(A, UPLO, False, "linalg.eigh"), out, "linalg.eigvalsh")


# -- SVD ------------------------------------------------------------------------------------------

def svd_backward(gU, gS, gVh, U, S, Vh):
    """FunctionsManual.cpp svd_backward (real case), on the reduced factors."""
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    if gU is not None:
        gU = gU[..., :, :k]
    if gVh is not None:
        gVh = gVh[..., :k, :]
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    if gU is None and gVh is None:
        return matmul(U * gS.unsqueeze(-2), Vh)
    eye = _eye_like(k, S)
    V = Vh.mT
    gV = gVh.mT if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E * (1 - eye) + eye
    gA = None
    if gU is not None:
        UhgU = matmul(U.mT, gU)
        gA = (UhgU - UhgU.mT) * S.unsqueeze(-2)
    if gV is not None:
        VhgV = matmul(V.mT, gV)
        t = S.unsqueeze(-1) * (VhgV - VhgV.mT)
        gA = t if gA is None else gA + t
    gA = (gA / E) * (1 - eye)
    if gS is not None:
        gA = gA + gS.unsqueeze(-1) * eye
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - matmul(U, matmul(U.mT, gUSinv))
        return matmul(gA, Vh)
    if m < n and gV is not None:
        gA = matmul(gA, Vh)
        gVSinv = gV / S.unsqueeze(-2)
        gA = gA + gVSinv.mT - matmul(matmul(gVSinv.mT, V), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh))


class LinalgSvdBackward0(Op):
    _materialize = False   # unused outputs' gradients stay None, as undefined grads in torch

    @staticmethod
    def forward(ctx, A, full, vectors):
        a = A._data
        if a.size == 0:
            m, n = a.shape[-2:]
            k = min(m, n)
            u = np.broadcast_to(np.eye(m, m if full else k, dtype=a.dtype), a.shape[:-2] + (m, m if full else k))
            vh = np.broadcast_to(np.eye(n if full else k, n, dtype=a.dtype), a.shape[:-2] + (n if full else k, n))
            s = np.zeros(a.shape[:-2] + (k,), a.dtype)
        else:
            u, s, vh = np.linalg.svd(a, full_matrices=full)
        dt = a.dtype
        return u.astype(dt), s.astype(dt), vh.astype(dt)

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        return svd_backward(gU, gS, gVh, U, S, Vh)


def _svd(A, full, vectors):
    """U, S, Vh (saved for backward), or S alone: svdvals keeps the SVD's node when a graph is recorded."""
    if not vectors and not (A.requires_grad and C.graphing()):
        a = A._data
        s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(a.shape[-2:]),))
        return C.make(s.astype(a.dtype))
    out = C.save_outputs(LinalgSvdBackward0.apply(A, full, True), 0, 1, 2)
    return out if vectors else out[1]


def _check_svd(A):
    C.check_matrix(A, "linalg.svd")
    C.check_float(A, "linalg.svd", low_precision="svd_cpu")


@register("linalg.svd", category="linalg", function=False)
def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """U, S, Vh with A = U diag(S) Vh, S descending (torch.linalg.svd); singular vectors are unique up to
    sign only."""
    _check_svd(A)
    return linalg_out(C.linalg_svd(*_svd(A, bool(full_matrices), True)), out, "linalg.svd")


@register("linalg.svdvals", category="linalg", function=False)
def linalg_svdvals(A, *, driver=None, out=None):
    """Singular values, descending (torch.linalg.svdvals)."""
    _check_svd(A)
    return linalg_out(_svd(A, False, False), out, "linalg.svdvals")


@register(category="linalg", methods=("svd",))
def svd(input, some=True, compute_uv=True, *, out=None):
    """Deprecated torch.svd: (U, S, V) with V not transposed; some=False gives full U and V; compute_uv=False
    gives zero U and V."""
    _check_svd(input)
    if not compute_uv:
        m, n = input._data.shape[-2:]
        b = input._data.shape[:-2]
        S = _svd(input, False, False)
        return linalg_out(C.svd_t(_cr.zeros(*b, m, m, dtype=input.dtype), S, _cr.zeros(*b, n, n, dtype=input.dtype)),
                          out, "svd")
    U, S, Vh = _svd(input, not some, True)
    return linalg_out(C.svd_t(U, S, Vh.mT), out, "svd")
