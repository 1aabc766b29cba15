"""torch.linalg.matrix_exp (Padé-13 scaling and squaring on NumPy; the gradient is the top-right block of
exp([[A^T, G], [0, A^T]]), as ATen's linalg_matrix_exp_differential), cond, vander, tensorinv and
tensorsolve (compositions of core ops, as ATen writes them)."""
from __future__ import annotations

import math

import numpy as np

from ... import creation as _cr
from ... import dtypes as _dt
from ...autograd.node import Op
from ..registry import register
from ..shape.join import cat
from . import _common as C
from .decompositions import linalg_svdvals
from .inverse import linalg_inv_ex, linalg_solve
from .norms import linalg_matrix_norm
from ._out import linalg_out

_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)


def _np_expm(a):
    """exp of (a batch of) square matrices: Padé [13/13] with scaling and squaring (Higham 2005), in float64."""
    x = np.asarray(a, np.float64)
    n = x.shape[-1]
    if x.size == 0:
        return x.copy()
    norm = np.abs(x).sum(-2).max(-1)
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(norm / 5.371920351148152))).astype(np.int64)
    s = np.where(np.isfinite(norm), s, 0)
    x = x / (2.0 ** s)[..., None, None]
    b = _PADE13
    eye = np.eye(n)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    with np.errstate(all="ignore"):
        r = np.linalg.solve(v - u, v + u)
        for k in range(int(s.max(initial=0))):
            sq = r @ r
            r = np.where((s > k)[..., None, None], sq, r)
    return r


class LinalgMatrixExpBackward0(Op):
    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _np_expm(A._data).astype(A._data.dtype)

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        At = A.mT
        top = cat([At, g], -1)
        bottom = cat([A * 0, At], -1)
        return linalg_matrix_exp(cat([top, bottom], -2))[..., :n, n:]


@register("matrix_exp", category="linalg", methods=("matrix_exp",))
def linalg_matrix_exp(A):
    """Matrix exponential of (batches of) square matrices (torch.matrix_exp, also torch.linalg.matrix_exp)."""
    C.check_square(A, "linalg.matrix_exp")
    C.check_float(A, "linalg.matrix_exp", low_precision="linalg_matrix_exp")
    return LinalgMatrixExpBackward0.apply(A)


@register("linalg.cond", category="linalg", function=False)
def linalg_cond(A, p=None, *, out=None):
    """Condition number: s_max / s_min for p = None/2 (s_min / s_max for -2), sum(S) * sum(1/S) for 'nuc',
    else matrix_norm(A, p) * matrix_norm(A^-1, p), inf for singular A (torch.linalg.cond)."""
    C.check_matrix(A, "linalg.cond")
    C.check_float(A, "linalg.cond")
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        S = linalg_svdvals(A)
        if S.shape[-1] == 0:
            return linalg_out(S.sum(-1), out, "linalg.cond")
        r = S[..., :1] / S[..., -1:] if p is None or p > 0 else S[..., -1:] / S[..., :1]
        return linalg_out(r.squeeze(-1), out, "linalg.cond")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if p == "nuc":        # ATen: from the singular values, sum(S) * sum(1 / S)
        S = linalg_svdvals(A)
        return linalg_out(S.sum(-1) * S.reciprocal().sum(-1), out, "linalg.cond")
    inv, info = linalg_inv_ex(A)
    # as ATen: the inverse of a singular matrix is filled with inf in place. That bumps the version of
    # inv_ex's saved output, so a backward through cond(ord != ±2) raises torch's in-place error.
    inv.masked_fill_((info > 0).unsqueeze(-1).unsqueeze(-1), float("inf"))
    r = linalg_matrix_norm(A, p) * linalg_matrix_norm(inv, p)
    return linalg_out(r.nan_to_num(float("inf"), float("inf")), out, "linalg.cond")


@register("linalg.vander", category="linalg", function=False)
def linalg_vander(x, *, N=None):
    """Vandermonde matrix with columns x^0, x^1, ..., x^(N-1) (torch.linalg.vander: increasing powers)."""
    if x.dim() == 0:
        x = x.unsqueeze(0)    # a 0-d x is one point
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    xs = x.unsqueeze(-1)
    ones = _cr.ones(*xs.shape, dtype=x.dtype)
    return cat([ones, xs.expand(*x.shape, n - 1).cumprod(-1)], -1)


@register("vander", category="linalg")
def vander(x, N=None, increasing=False):
    """Vandermonde matrix with columns x^(N-1), ..., x^1, x^0 (x^0 first when `increasing`); integer and bool
    x give int64 (torch.vander). Built as ATen builds it: ones, then the powers as a cumprod copied into
    columns 1.. in place, so its backward raises torch's in-place error whenever N > 1, as torch's does."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype.is_floating_point else _dt.int64
    result = _cr.empty(x.shape[0], n, dtype=dtype)
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)


@register("linalg.tensorinv", category="linalg", function=False)
def linalg_tensorinv(A, ind=2, *, out=None):
    """Inverse of A viewed as a prod(shape[:ind]) x prod(shape[ind:]) matrix, shaped shape[ind:] + shape[:ind]
    (torch.linalg.tensorinv)."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    p, q = math.prod(shape[:ind]), math.prod(shape[ind:])
    if p != q:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {q} != {p}")
    inv, info = linalg_inv_ex(A.reshape(p, q))
    if np.any(info._data):
        raise C.LinAlgError("linalg.tensorinv: Failed to invert the input tensor, because it is singular.")
    return linalg_out(inv.reshape(*shape[ind:], *shape[:ind]), out, "linalg.tensorinv")


@register("linalg.tensorsolve", category="linalg", function=False)
def linalg_tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B (torch.linalg.tensorsolve); dims are moved to the end of A first."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    rest = tuple(A.shape[B.dim():])
    p, q = math.prod(A.shape[:B.dim()]), math.prod(rest)
    if p != q:
        raise RuntimeError("Expected self to satisfy the requirement prod(result_shape) == prod(other.shape), but "
                           f"got {q} != {p}")
    return linalg_out(linalg_solve(A.reshape(p, q), B.reshape(p)).view(*rest), out, "linalg.tensorsolve")
