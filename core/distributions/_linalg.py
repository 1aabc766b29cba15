"""The two factorisations MultivariateNormal needs (torch.linalg.cholesky, solve_triangular),
as differentiable core Functions whose backward uses core ops (so create_graph works). core has
no torch.linalg yet; these stay private to the distributions package."""
from __future__ import annotations

import numpy as np

import core
from core.autograd import Function


def _tri(x, upper):
    return x.triu() if upper else x.tril()


class _SolveTriangular(Function):
    """X = A^{-1} B for triangular A (batch shapes equal); gB = A^{-T} gX, gA = -tri(gB X^T)."""

    @staticmethod
    def forward(ctx, a, b, upper):
        x = core.from_numpy(np.linalg.solve(a.detach().numpy(), b.detach().numpy()))
        ctx.upper = upper
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, gx):
        a, x = ctx.saved_tensors
        gb = solve_triangular(a.mT, gx, upper=not ctx.upper)
        return -_tri(gb.matmul(x.mT), ctx.upper), gb, None


class _Cholesky(Function):
    """L with A = L L^T; gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi = lower part with halved diagonal."""

    @staticmethod
    def forward(ctx, a):
        try:
            lower = np.linalg.cholesky(a.detach().numpy())
        except np.linalg.LinAlgError:
            raise RuntimeError("linalg.cholesky: The factorization could not be completed because the input is not "
                               "positive-definite.") from None
        out = core.from_numpy(lower)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, gl):
        (lower,) = ctx.saved_tensors
        p = lower.mT.matmul(gl)
        phi = p.tril(-1) + 0.5 * core.diag_embed(p.diagonal(dim1=-2, dim2=-1))
        y = solve_triangular(lower.mT, phi, upper=True)
        g = solve_triangular(lower.mT, y.mT, upper=True).mT
        return 0.5 * (g + g.mT)


def solve_triangular(a, b, *, upper):
    """torch.linalg.solve_triangular(a, b, upper=upper) (left side), batch dims broadcast."""
    batch = core.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = a.expand(tuple(batch) + tuple(a.shape[-2:]))
    b = b.expand(tuple(batch) + tuple(b.shape[-2:]))
    return _SolveTriangular.apply(a, b, upper)


def cholesky(a):
    """torch.linalg.cholesky(a): the lower factor."""
    return _Cholesky.apply(a)
