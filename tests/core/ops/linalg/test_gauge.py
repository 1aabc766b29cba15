"""Eigenvectors and singular vectors are unique only up to sign (per column), and LAPACK builds differ in
the sign they pick, so, as torch's own tests do, these are compared through gauge-invariant functions:
reconstructions (V diag(L) V^T, U diag(S) Vh, Q R) and losses of squared entries, whose values and
gradients (plain and create_graph) must agree with torch's. Eigen/singular values are compared directly."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from harness import assert_agree

warnings.filterwarnings("ignore", message=".*deprecated.*")


def _rand(torch, *shape, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).requires_grad_(True)


def _sym(torch, *shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return torch.from_numpy(a + np.swapaxes(a, -1, -2)).requires_grad_(True)


def _weights(mod, shape, seed):
    return mod.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _agree(torch, f, *args):
    """f(mod, *args) in core and torch; grad_fn names are not compared (the last op of f decides them)."""
    assert_agree(lambda *a: f(core, *a), lambda *a: f(torch, *a), args, {}, torch, grad_fn=False)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gauge_invariant(torch, shape, uplo):
    n = shape[-1]

    def recon(mod, A):
        L, V = mod.linalg.eigh(A, UPLO=uplo)
        return (V * L.unsqueeze(-2)) @ V.mT

    def squares(mod, A):
        L, V = mod.linalg.eigh(A, UPLO=uplo)
        return (V * V * _weights(mod, (n, n), 1)).sum() + (L * _weights(mod, (n,), 2)).sum()

    A = _sym(torch, *shape)
    _agree(torch, recon, A)
    _agree(torch, squares, A)
    _agree(torch, lambda mod, A: mod.linalg.eigh(A, UPLO=uplo).eigenvalues, A)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 5), (5, 1)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_gauge_invariant(torch, shape, full):
    k = min(shape[-2:])

    def recon(mod, A):
        U, S, Vh = mod.linalg.svd(A, full_matrices=full)
        return (U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]

    def squares(mod, A):
        U, S, Vh = mod.linalg.svd(A, full_matrices=full)
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        return ((U * U * _weights(mod, U.shape[-2:], 1)).sum() + (Vh * Vh * _weights(mod, Vh.shape[-2:], 2)).sum()
                + (S * _weights(mod, (k,), 3)).sum())

    A = _rand(torch, *shape)
    _agree(torch, recon, A)
    _agree(torch, squares, A)
    _agree(torch, lambda mod, A: mod.linalg.svd(A, full_matrices=full).S, A)


@pytest.mark.parametrize("some", [True, False])
def test_legacy_svd(torch, some):
    """torch.svd returns V (not Vh): U diag(S) V^T rebuilds A; compute_uv=False gives zero U and V."""
    def recon(mod, A):
        U, S, V = mod.svd(A, some=some)
        return (U[..., :, :3] * S.unsqueeze(-2)) @ V[..., :, :3].mT

    A = _rand(torch, 4, 3)
    _agree(torch, recon, A)
    _agree(torch, lambda mod, A: mod.svd(A, some=some, compute_uv=False), A)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
def test_qr_reconstruction(torch, shape):
    _agree(torch, lambda mod, A: mod.linalg.qr(A)[0] @ mod.linalg.qr(A)[1], _rand(torch, *shape))
