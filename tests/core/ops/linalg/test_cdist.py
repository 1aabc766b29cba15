"""cdist (core/ops/linalg/cdist.py) against torch: every p, batched and broadcast shapes, the matrix-product
path for p=2, gradients at zero distance, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import same_error
from tests.core.ops.pointwise.test_pointwise import arr, check


def _compare(torch, fn, *inputs, rtol=1e-5, atol=1e-5, grad=True):
    """same_error on both; when both succeed, the full differential check (values, dtype, grads)."""
    def mk(m):
        return [m.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ec, _ = same_error(lambda: fn(core, *mk(core)), lambda: fn(torch, *mk(torch)))
        if ec is None:
            check(torch, fn, *inputs, rtol=rtol, atol=atol, grad=grad)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 0.5, 1.5, 3.0, float("inf")])
@pytest.mark.parametrize("shapes", [((3, 2), (4, 2)), ((2, 3, 2), (2, 4, 2)), ((2, 3, 2), (4, 2))])
def test_cdist(torch, p, shapes):
    x1, x2 = arr(*shapes[0], dtype=np.float64, seed=1), arr(*shapes[1], dtype=np.float64, seed=2)
    _compare(torch, lambda m, a, b: m.cdist(a, b, p=p), x1, x2, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shapes", [((30, 3), (4, 3)), ((2, 26, 3), (2, 5, 3))])
def test_cdist_matrix_product_path(torch, shapes):
    x1, x2 = arr(*shapes[0], dtype=np.float64, seed=1), arr(*shapes[1], dtype=np.float64, seed=2)
    _compare(torch, lambda m, a, b: m.cdist(a, b), x1, x2, rtol=1e-6, atol=1e-6)
    _compare(torch, lambda m, a, b: m.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), x1, x2)


def test_cdist_zero_distance_gradient_and_errors(torch):
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    for p in (2.0, 0.5, 3.0):
        _compare(torch, lambda m, a, b: m.cdist(a, b, p=p), x, x.copy())
    _compare(torch, lambda m, a, b: m.cdist(a, b), np.ones(3), np.ones((2, 3)))
    _compare(torch, lambda m, a, b: m.cdist(a, b), np.ones((2, 3)), np.ones((2, 4)))
    _compare(torch, lambda m, a, b: m.cdist(a, b), np.ones((2, 3), np.int64), np.ones((2, 3), np.int64))
    _compare(torch, lambda m, a, b: m.cdist(a, b, p=-1), np.ones((2, 3)), np.ones((2, 3)))

