"""Householder reflectors: torch.geqrf (LAPACK's packed QR, from NumPy's qr(mode='raw'); no derivative, as in
torch), torch.linalg.householder_product and torch.ormqr, written as products of reflectors
H_i = I - tau_i v_i v_i^T in core ops (so autograd differentiates them; their grad_fn is that of the last
core op, not torch's LinalgHouseholderProductBackward0/OrmqrBackward0)."""
from __future__ import annotations

import numpy as np

from ... import creation as _cr
from ...autograd.node import Op
from ..registry import register
from . import _common as C
from .products import matmul
from ._out import linalg_out

geqrf_t = C._rt._make("geqrf", ("a", "tau"))


class GeqrfBackward0(Op):
    @staticmethod
    def forward(ctx, A):
        a = A._data
        m, n = a.shape[-2:]
        k = min(m, n)
        h, tau = np.empty_like(a), np.empty(a.shape[:-2] + (k,), a.dtype)
        fa, fh, ft = C.flat(a), C.flat(h), tau.reshape(-1, k) if k else tau.reshape(0, 0)
        if a.size:
            for i, x in enumerate(fa):
                r, t = np.linalg.qr(x, mode="raw")
                fh[i], ft[i] = r.T, t
        return h, tau

    @staticmethod
    def backward(ctx, ga, gtau):
        raise RuntimeError("the derivative for 'geqrf' is not implemented.")


@register(category="linalg", methods=("geqrf",))
def geqrf(input, *, out=None):
    """(a, tau): R on and above the diagonal, Householder vectors below, and their scales (LAPACK geqrf)."""
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point or input._data.dtype == np.float16:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{C._dtname(input.dtype)}'")
    return linalg_out(geqrf_t(*GeqrfBackward0.apply(input)), out, "geqrf")


def _reflector(A, i):
    """v_i: column i of A below the diagonal, 1 on it, 0 above."""
    m = A.shape[-2]
    col = A[..., :, i]
    below = _cr.tensor((np.arange(m) > i).astype(A._data.dtype))
    unit = _cr.tensor((np.arange(m) == i).astype(A._data.dtype))
    return col * below + unit


def _apply_reflectors(A, tau, other, left, transpose):
    k = tau.shape[-1]
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    c = other
    for i in order:
        v = _reflector(A, i)
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        if left:
            c = c - t * v.unsqueeze(-1) * matmul(v.unsqueeze(-2), c)
        else:
            c = c - t * matmul(c, v.unsqueeze(-1)) * v.unsqueeze(-2)
    return c


def _check_tau(A, tau, fname):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim equal "
                           f"to {tau._data.ndim} and input.ndim is equal to {A._data.ndim}")
    if tau._data.shape[:-1] != A._data.shape[:-2]:
        raise RuntimeError(f"{fname}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{fname}: tau dtype {C._dtname(tau.dtype)} does not match input dtype "
                           f"{C._dtname(A.dtype)}")


@register("linalg.householder_product", category="linalg", function=False)
def linalg_householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k (Householder vectors below A's diagonal, scales tau)
    (torch.linalg.householder_product; torch.orgqr)."""
    fname = "torch.linalg.householder_product"
    _check_tau(A, tau, fname)
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{fname}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1]:
        raise RuntimeError(f"{fname}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    eye = _cr.eye(m, n, dtype=A.dtype).expand(*A.shape)
    if tau.shape[-1] == 0:
        # no reflector: still a (zero-gradient) function of A, as in torch
        return linalg_out(eye + A * 0, out, "linalg.householder_product")
    return linalg_out(_apply_reflectors(A, tau, eye, True, False), out, "linalg.householder_product")


@register(category="linalg", methods=("orgqr",))
def orgqr(input, tau):
    """Alias of linalg.householder_product (torch.orgqr)."""
    return linalg_householder_product(input, tau)


@register(category="linalg", methods=("ormqr",))
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) @ other (other @ op(Q) when left=False), Q = H_1 ... H_k from geqrf's (input, tau), op = transpose
    when transpose=True (torch.ormqr)."""
    fname = "torch.ormqr"
    if input._data.ndim >= 2 and other._data.ndim != input._data.ndim:
        raise RuntimeError(f"{fname}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other._data.ndim} and input.ndim is equal to {input._data.ndim}")
    _check_tau(input, tau, fname)
    d = -2 if left else -1
    if other.shape[d] != input.shape[-2]:
        raise RuntimeError(f"{fname}: other.shape[{d}] must be equal to input.shape[-2]")
    if tau.shape[-1] > min(other.shape[d], input.shape[-1]):
        raise RuntimeError(f"{fname}: tau.shape[-1] must be equal to min(other.shape[{d}], input.shape[-1])")
    if other._data.shape[:-2] != input._data.shape[:-2]:
        raise RuntimeError(f"{fname}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                           f"{list(other.shape[:-2])}")
    return linalg_out(_apply_reflectors(input, tau, other, bool(left), bool(transpose)), out, "ormqr")
