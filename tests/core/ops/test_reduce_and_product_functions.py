"""Differential tests for the reduction / linalg ops added after the split (diff, trapezoid, logcumsumexp,
bincount, histc, cov, corrcoef, addmv, addr, addbmm, baddbmm, vdot, trace, kron, cdist) vs torch."""
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


# -- diff, trapezoid, logcumsumexp ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"n": 2}, {"n": 0}, {"n": 5}, {"dim": 0}, {"n": -1}])
def test_diff(torch, dtype, kw):
    _compare(torch, lambda m, x: m.diff(x, **kw), _input(dtype, 3, 4))


def test_diff_prepend_append_and_errors(torch):
    x, p = arr(2, 3, dtype=np.float64), arr(2, 1, dtype=np.float64, seed=9)
    _compare(torch, lambda m, a, b: m.diff(a, prepend=b, append=b), x, p)
    _compare(torch, lambda m, a, b: m.diff(a, dim=1, prepend=b), x, p)
    _compare(torch, lambda m, a: a.diff(), np.array(1.0))
    _compare(torch, lambda m, a, b: m.diff(a, prepend=b), arr(3, dtype=np.float64), arr(1, 1, dtype=np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_trapezoid(torch, dtype):
    y = _input(dtype, 2, 4)
    _compare(torch, lambda m, a: m.trapezoid(a), y)
    _compare(torch, lambda m, a: m.trapezoid(a, dim=0), y)
    _compare(torch, lambda m, a: m.trapezoid(a, dx=0.5), y)
    _compare(torch, lambda m, a, b: m.trapezoid(a, b), y, np.array([0.0, 0.5, 1.5, 3.0], np.float64))


def test_trapezoid_with_x_gradient_and_empty(torch):
    check(torch, lambda m, y, x: m.trapezoid(y, x), arr(3, 4, dtype=np.float64), arr(3, 4, dtype=np.float64, seed=3))
    assert_same(core.trapezoid(core.tensor(np.zeros((2, 0), np.float32))),
                torch.trapezoid(torch.tensor(np.zeros((2, 0), np.float32))))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(torch, dtype, dim):
    _compare(torch, lambda m, x: m.logcumsumexp(x, dim), _input(dtype, 3, 4))


def test_logcumsumexp_infinities(torch):
    x = np.array([[0.0, -np.inf, 1.0, np.inf], [-np.inf, -np.inf, 2.0, 3.0]], np.float64)
    assert_same(core.logcumsumexp(core.tensor(x), 1), torch.logcumsumexp(torch.tensor(x), 1))


# -- bincount, histc ---------------------------------------------------------------------------------------

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


# -- cov, corrcoef -------------------------------------------------------------------------------------------

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


# -- addmv, addr, addbmm, baddbmm, vdot, trace, kron -------------------------------------------------------

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


# -- cdist ---------------------------------------------------------------------------------------------------

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


# -- the commands of these ops: their examples (tensorcli/opspec/) run and match torch -----------------------------

NEW_CLI_EXAMPLES = ["addcmul", "addcdiv", "hypot", "diff", "trapezoid", "bincount", "histc", "cov", "corrcoef",
                    "addmv", "addr", "trace", "kron", "cdist"]


def test_new_ops_cli_examples_run_and_match_torch(torch):
    """Run each op's command example with --json and compare with torch."""
    import json
    import shlex

    from typer.testing import CliRunner

    from tensorcli import app as cli_app
    from tensorcli import opspec, spec
    app = cli_app.build_app(only={spec.command_name(n) for n in NEW_CLI_EXAMPLES}, modules=())
    runner = CliRunner()
    for name in NEW_CLI_EXAMPLES:
        argv = shlex.split(opspec.examples(name)[0])[1:]
        r = runner.invoke(app, argv + ["--json"], env={"NO_COLOR": "1"})
        assert r.exit_code == 0, (name, r.output)
        got = json.loads(r.stdout)["result"]
        opts = {k[2:].replace("-", "_"): torch.tensor(json.loads(v)) if v.startswith("[") else
                float(v) if "." in v else int(v) for k, v in zip(argv, argv[1:]) if k.startswith("--")}
        want = getattr(torch, name)(torch.tensor(json.loads(argv[1])), **opts)
        assert got["shape"] == list(want.shape), name
        assert got["dtype"] == str(want.dtype).replace("torch.", ""), name
        np.testing.assert_allclose(np.array(got["data"], dtype=np.float64), want.double().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
