"""addmv, addr, addbmm, baddbmm, vdot, trace and kron (core/ops/linalg/blas_products.py) against torch:
values, dtypes, grads, beta/alpha semantics (beta=0 ignores NaN input), in-place variants and errors."""
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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0}, {"beta": 2, "alpha": 3}])
def test_add_products(torch, dtype, kw):
    m23, v3, v2 = _input(dtype, 2, 3, seed=1), _input(dtype, 3, seed=2), _input(dtype, 2, seed=3)
    b1, b2 = _input(dtype, 4, 2, 3, seed=4), _input(dtype, 4, 3, 2, seed=5)
    _compare(torch, lambda m, i, a, v: m.addmv(i, a, v, **kw), v2, m23, v3)
    _compare(torch, lambda m, i, a, b: m.addr(i, a, b, **kw), m23, v2, v3)
    _compare(torch, lambda m, i, a, b: m.addbmm(i, a, b, **kw), _input(dtype, 2, 2, seed=6), b1, b2)
    _compare(torch, lambda m, i, a, b: m.baddbmm(i, a, b, **kw), _input(dtype, 4, 2, 2, seed=7), b1, b2)


def test_add_products_broadcast_nan_beta_and_errors(torch):
    m23, v3, v2 = arr(2, 3, dtype=np.float64), arr(3, dtype=np.float64), arr(2, dtype=np.float64)
    _compare(torch, lambda m, i, a, v: m.addmv(i, a, v), np.array([1.0]), m23, v3)
    _compare(torch, lambda m, i, a, b: m.addr(i, a, b), arr(3, dtype=np.float64), v2, v3)
    nan = np.full((2, 3), np.nan)
    _compare(torch, lambda m, i, a, b: m.addr(i, a, b, beta=0), nan, v2, v3)
    _compare(torch, lambda m, i, a, b: m.addr(i, a, b, beta=float("nan")), m23, v2, v3)
    _compare(torch, lambda m, i, a, b: m.addr(i, a, b), m23, v2, v3.astype(np.int64))
    _compare(torch, lambda m, i, a, v: m.addmv(i, a, v), v2, m23, arr(4, dtype=np.float64))
    _compare(torch, lambda m, i, a, v: m.addmv(i, a, v), v2, m23, v3.astype(np.float32))
    _compare(torch, lambda m, i, a, b: m.baddbmm(i, a, b), arr(2, 2, dtype=np.float64), arr(3, 2, 4), arr(3, 2, 2))


def test_add_products_inplace(torch):
    m23, v3, v2 = arr(2, 3, dtype=np.float64), arr(3, dtype=np.float64), arr(2, dtype=np.float64)
    c, t = core.tensor(v2), torch.tensor(v2)
    c.addmv_(core.tensor(m23), core.tensor(v3), alpha=2)
    t.addmv_(torch.tensor(m23), torch.tensor(v3), alpha=2)
    assert_same(c, t)
    c, t = core.tensor(m23), torch.tensor(m23)
    c.addr_(core.tensor(v2), core.tensor(v3))
    t.addr_(torch.tensor(v2), torch.tensor(v3))
    assert_same(c, t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_vdot_trace_kron(torch, dtype):
    _compare(torch, lambda m, a, b: m.vdot(a, b), _input(dtype, 4, seed=1), _input(dtype, 4, seed=2))
    _compare(torch, lambda m, a: m.trace(a), _input(dtype, 3, 4))
    _compare(torch, lambda m, a: a.trace(), _input(dtype, 4))
    _compare(torch, lambda m, a, b: m.kron(a, b), _input(dtype, 2, 3, seed=1), _input(dtype, 2, 2, seed=2))
    _compare(torch, lambda m, a, b: m.kron(a, b), _input(dtype, 3, seed=1), _input(dtype, 2, 1, 2, seed=2))


def test_vdot_dtype_mismatch(torch):
    _compare(torch, lambda m, a, b: m.vdot(a, b), np.array([1, 2]), np.array([3.0, 4.0]))

