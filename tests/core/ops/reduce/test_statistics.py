"""bincount, histc, cov and corrcoef (core/ops/reduce/statistics.py) against torch: values, dtypes, grads and
errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from tests.core.ops.pointwise.test_pointwise import arr, check


DTYPES = ["float32", "float64", "int64", "bool"]


def _input(dtype, *shape, low=-2.0, high=2.0, seed=0):
    if dtype == "bool":
        return arr(*shape, dtype=np.bool_, seed=seed)
    if dtype == "int64":
        return arr(*shape, dtype=np.int64, low=-3, high=3, seed=seed)
    return arr(*shape, dtype=np.dtype(dtype), low=low, high=high, seed=seed)


def _compare(torch, fn, *inputs, rtol=1e-5, atol=1e-5, grad=True):
    """same_error on both; when both succeed, the full differential check (values, dtype, grads)."""
    def mk(m):
        return [m.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ec, _ = same_error(lambda: fn(core, *mk(core)), lambda: fn(torch, *mk(torch)))
        if ec is None:
            check(torch, fn, *inputs, rtol=rtol, atol=atol, grad=grad)


@pytest.mark.parametrize("case", [
    lambda m: m.bincount(m.tensor([0, 1, 1, 3])),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3]), weights=m.tensor([0.5, 1.0, 1.0, 2.0])),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([1.0, 2.0], dtype=m.float64)),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([1, 2])),
    lambda m: m.bincount(m.tensor([1]), minlength=4),
    lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    lambda m: m.bincount(m.tensor([-1])),
    lambda m: m.bincount(m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([True])),
    lambda m: m.bincount(m.tensor([[1]])),
    lambda m: m.bincount(m.tensor([1]), minlength=-1),
    lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0])),
])
def test_bincount(torch, case):
    ec, _ = same_error(lambda: case(core), lambda: case(torch))
    if ec is None:
        assert_same(case(core), case(torch))


@pytest.mark.parametrize("case", [
    lambda m: m.histc(m.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
    lambda m: m.histc(m.tensor([1.0, 2, 1])),
    lambda m: m.histc(m.tensor([1.0, 1.0]), bins=3),
    lambda m: m.histc(m.tensor([0.1, 0.2, 0.3, 0.7, 1.0, 0.4]), bins=3, min=0.1, max=1.0),
    lambda m: m.histc(m.tensor([0.1, 0.2, 0.3, 0.7, 1.0, 0.4], dtype=m.float64), bins=7, min=0.1, max=1.0),
    lambda m: m.histc(m.tensor([-5.0, 0.5, 9.0, float("nan")]), bins=2, min=0, max=1),
    lambda m: m.histc(m.tensor([1, 2])),
    lambda m: m.histc(m.tensor([1.0]), bins=0),
    lambda m: m.histc(m.tensor([1.0]), min=2, max=1),
    lambda m: m.histc(m.tensor([1.0, float("nan")])),
    lambda m: m.histc(m.tensor([float("inf")])),
])
def test_histc(torch, case):
    ec, _ = same_error(lambda: case(core), lambda: case(torch))
    if ec is None:
        assert_same(case(core), case(torch))


def test_histc_random_edges(torch):
    x = arr(1000, dtype=np.float32, low=-1, high=1, seed=11)
    for bins, lo, hi in ((10, -1, 1), (7, -0.3, 0.9), (100, 0, 0)):
        assert_same(core.histc(core.tensor(x), bins, lo, hi), torch.histc(torch.tensor(x), bins, lo, hi))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5), (5,), (1, 4)])
def test_cov_corrcoef(torch, dtype, shape):
    x = _input(dtype, *shape)
    _compare(torch, lambda m, a: m.cov(a), x)
    _compare(torch, lambda m, a: m.cov(a, correction=0), x)
    _compare(torch, lambda m, a: m.corrcoef(a), x, rtol=1e-4)


def test_cov_weights_and_errors(torch):
    x = arr(2, 4, dtype=np.float64)
    fw, aw = np.array([1, 2, 1, 3], np.int64), np.array([0.5, 1.0, 2.0, 1.0], np.float64)
    _compare(torch, lambda m, a, f: m.cov(a, fweights=f), x, fw)
    _compare(torch, lambda m, a, w: m.cov(a, aweights=w), x, aw)
    _compare(torch, lambda m, a, f, w: m.cov(a, fweights=f, aweights=w, correction=2), x, fw, aw)
    _compare(torch, lambda m, a: m.cov(a, correction=5), x)
    for bad in (lambda m: m.cov(m.ones(2, 2, 2)), lambda m: m.cov(m.ones(2, 3), fweights=m.ones(3)),
                lambda m: m.cov(m.ones(2, 3), aweights=m.ones(3, dtype=m.int64)),
                lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1, -1, 1]))):
        same_error(lambda: bad(core), lambda: bad(torch))

