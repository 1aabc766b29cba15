"""Pseudo-inverse and least squares: torch.linalg.pinv/matrix_rank/lstsq and torch.pinverse, with the
tolerance rules of ATen (rtol defaults to eps*max(m, n) unless atol > 0 is given) and FunctionsManual.cpp's
pinv_backward (also lstsq's gradient, X = pinv(A) B)."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Op
from ...tensor import Tensor
from ..registry import register
from . import _common as C
from .products import matmul
from ._out import linalg_out


def pinv_backward(g, P, A):
    """FunctionsManual.cpp pinv_backward (real case); the shorter branch by the smaller dimension."""
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = P.mT, g.mT
    if m <= n:
        K = matmul(gh, P)
        KPh = matmul(K, Ph)
        return (-matmul(P, K).mT + KPh - matmul(matmul(A, P), KPh)
                + matmul(matmul(Ph, P), gh - matmul(K, A)))
    K = matmul(P, gh)
    PhK = matmul(Ph, K)
    return (-matmul(K, P).mT + matmul(matmul(gh - matmul(A, K), P), Ph) + PhK
            - matmul(matmul(PhK, P), A))


def _tol_arrays(a, atol, rtol, hermitian, s=None):
    """Singular values (|eigenvalues| if hermitian; `s` when the caller already has them) and the per-matrix
    cut-off max(atol, rtol * s_max)."""
    m, n = a.shape[-2:]
    eps = np.finfo(a.dtype).eps
    at = 0.0 if atol is None else (atol._data if isinstance(atol, Tensor) else atol)
    if rtol is None:
        rt = eps * max(m, n) if atol is None or np.all(np.asarray(at) <= 0) else 0.0
    else:
        rt = rtol._data if isinstance(rtol, Tensor) else rtol
    if hermitian:
        w, v = np.linalg.eigh(a)
        s = np.abs(w)
    else:
        w = v = None
        if s is None:
            s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    smax = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1], a.dtype)
    tol = np.maximum(np.asarray(at, dtype=a.dtype), np.asarray(rt, dtype=a.dtype) * smax)
    return s, tol, w, v


class LinalgPinvBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        a = A._data
        ctx.save_for_backward(A)
        ctx.n_tol = sum(isinstance(t, Tensor) for t in (atol, rtol))
        if a.size == 0 and not hermitian:
            return np.zeros(a.shape[:-2] + a.shape[-1:] + a.shape[-2:-1], a.dtype)
        # One decomposition serves the tolerance and the inverse, as ATen's linalg_pinv: two SVD calls can
        # round s_max differently, and then `s > rtol * s_max` keeps a value torch drops.
        u, s, vh = (None, None, None) if hermitian else np.linalg.svd(a, full_matrices=False)
        s, tol, w, v = _tol_arrays(a, atol, rtol, hermitian, s)
        with np.errstate(all="ignore"):
            if hermitian:
                winv = np.where(s > tol[..., None], 1 / w, 0)
                return ((v * winv[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(a.dtype)
            sinv = np.where(s > tol[..., None], 1 / s, 0)
            return (np.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ np.swapaxes(u, -1, -2)

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        return (pinv_backward(g, P, A),) + (None,) * ctx.n_tol   # tensor atol/rtol get no gradient


@register("linalg.pinv", category="linalg", function=False)
def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None, out=None):
    """Moore-Penrose pseudo-inverse, singular values below max(atol, rtol * s_max) dropped (torch.linalg.pinv;
    rcond is the legacy name of rtol)."""
    if rcond is not None:
        rtol = rcond
    if A._data.ndim < 2 or A._data.dtype not in (np.float32, np.float64):
        dt = C._dtname(A.dtype)
        raise RuntimeError(f"linalg.pinv({dt}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of "
                           "float, double, cfloat or cdouble types")
    return linalg_out(LinalgPinvBackward0.apply(A, atol, rtol, bool(hermitian)), out, "linalg.pinv")


@register(category="linalg", methods=("pinverse",))
def pinverse(input, rcond=1e-15):
    """Pseudo-inverse with relative tolerance rcond (torch.pinverse)."""
    return linalg_pinv(input, rtol=rcond)


@register("linalg.matrix_rank", category="linalg", function=False)
def linalg_matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """Number of singular values above max(atol, rtol * s_max), as int64 (torch.linalg.matrix_rank; tol is the
    legacy absolute tolerance)."""
    if A._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    C.check_matrix(A, "linalg.matrix_rank")
    if tol is not None:
        atol, rtol = tol, 0.0
    s, t, _, _ = _tol_arrays(A._data, atol, rtol, hermitian)
    return linalg_out(Tensor._make(np.asarray((s > t[..., None]).sum(-1), dtype=np.int64)), out, "linalg.matrix_rank")


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsqBackward0(Op):
    @staticmethod
    def forward(ctx, A, B, vec, rcond, driver):
        a, b = A._data, B._data[..., None] if vec else B._data
        batch = C.bcast_batch(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        m, n = a.shape[-2:]
        k = b.shape[-1]
        rc = np.finfo(a.dtype).eps * max(m, n) if rcond is None else rcond
        fa, fb = C.flat(a), C.flat(b)
        xs, ranks, svs = [], [], []
        for am, bm in zip(fa, fb):
            x, _, r, sv = np.linalg.lstsq(am, bm, rcond=rc)
            xs.append(x), ranks.append(r), svs.append(sv)
        x = np.array(xs, dtype=a.dtype).reshape(batch + (n, k))
        rank = np.array(ranks, np.int64).reshape(batch)
        sv = np.array(svs, a.dtype).reshape(batch + (min(m, n),))
        if m > n and driver != "gelsy" and np.all(rank == n):
            res = ((a @ x - b) ** 2).sum(-2)
        else:
            res = np.zeros((0,), a.dtype)
        if driver == "gels":
            rank = np.zeros((0,), np.int64)
        if driver not in ("gelsd", "gelss"):
            sv = np.zeros((0,), a.dtype)
        ctx.vec = vec
        ctx.save_for_backward(A, B)
        if vec:
            x = x[..., 0]
        return x.astype(a.dtype), res.astype(a.dtype), rank, sv

    @staticmethod
    def backward(ctx, gX, gres=None, grank=None, gsv=None):
        """linalg_lstsq_backward: X = pinv(A) B; residuals |AX - B|^2 (full rank, so X is optimal and only
        the explicit dependence counts): d/dB = -2R, d/dA = 2 R X^T with R = AX - B."""
        A, B = ctx.saved_tensors
        ng = ctx.needs_input_grad
        if ctx.vec:
            B = B.unsqueeze(-1)
        gA = gB = None
        if gX is not None:
            P = linalg_pinv(A)
            gXm = gX.unsqueeze(-1) if ctx.vec else gX
            gA = pinv_backward(matmul(gXm, B.mT), P, A) if ng[0] else None
            gB = matmul(P.mT, gXm) if ng[1] else None
        if gres is not None and gres.numel() > 0:
            X = matmul(linalg_pinv(A), B)
            Rg = (matmul(A, X) - B) * (2 * gres.unsqueeze(-2))
            if ng[0]:
                t = matmul(Rg, X.mT)
                gA = t if gA is None else gA + t
            if ng[1]:
                gB = -Rg if gB is None else gB - Rg
        if gB is not None and ctx.vec:
            gB = gB.squeeze(-1)
        return gA, gB


@register("linalg.lstsq", category="linalg", function=False)
def linalg_lstsq(A, B, rcond=None, *, driver=None, out=None):
    """Least-squares solution of AX = B: (solution, residuals, rank, singular_values) as torch's CPU drivers
    report them (default 'gelsy': rank only; 'gelsd'/'gelss' add singular values; residuals when m > n and A
    has full rank, except with 'gelsy')."""
    for t in (A, B):
        if t._data.dtype not in (np.float32, np.float64):
            raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {C._dtname(A.dtype)} and other's dtype {C._dtname(B.dtype)}")
    C.check_matrix(A, "torch.linalg.lstsq")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vec = B._data.ndim == A._data.ndim - 1
    if (B._data.shape[-1] if vec else B._data.shape[-2]) != A._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)" if vec else
                           "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    x, res, rank, sv = LinalgLstsqBackward0.apply(A, B, vec, rcond, driver)
    # singular values are not differentiable in torch
    return linalg_out(C.linalg_lstsq(x, res, rank, sv.detach()), out, "linalg.lstsq")

