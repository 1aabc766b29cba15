"""torch's legacy entry points real programs still call: the removed solve/lstsq/eig/symeig/matrix_rank
(torch's RuntimeError), the deprecated range / chain_matmul / frobenius_norm / nuclear_norm (values, grad_fn
names, warnings), norm_except_dim, torch.dropout_, and torch.binomial on torch's generator stream."""
from __future__ import annotations

import warnings

import pytest

import core
from conftest import assert_same, same_error


def _run(lib, expr, **names):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = eval(expr, {"lib": lib, **names})
    return r, [str(x.message) for x in w]


def _compare(torch, expr, make=lambda lib: {}):
    ec, et = same_error(lambda: _run(core, expr, **make(core)), lambda: _run(torch, expr, **make(torch)))
    if ec is not None:
        assert str(ec) == str(et)
        return None
    (c, wc), (t, wt) = _run(core, expr, **make(core)), _run(torch, expr, **make(torch))
    if hasattr(t, "shape"):
        assert_same(c, t)
        assert (c.grad_fn.name() if c.grad_fn else None) == (t.grad_fn.name() if t.grad_fn else None)
    else:
        assert c == t
    return wc, wt


@pytest.mark.parametrize("expr", ["lib.solve(B, A)", "lib.lstsq(B, A)", "lib.eig(A)", "lib.symeig(A)",
                                  "lib.matrix_rank(A)", "A.solve(B)", "A.lstsq(B)", "A.eig()", "A.symeig()",
                                  "lib.symeig(A, eigenvectors=True)", "hasattr(A, 'matrix_rank')"])
def test_removed_functions_raise_torchs_error(torch, expr):
    _compare(torch, expr, lambda lib: {"A": lib.tensor([[2.0, 1], [1, 3]]), "B": lib.tensor([[1.0], [2]])})


@pytest.mark.parametrize("expr", [
    "lib.range(1, 4)", "lib.range(0, 1, 0.25)", "lib.range(1, 4, dtype=lib.int64)", "lib.range(4)",
    "lib.range(1, 4, -1)", "lib.range(1, 4, 0)", "lib.range(0, 1, 0.1)", "lib.range(5, 1, -1.5)",
    "lib.range(0, 1, 0.1, dtype=lib.float64)", "lib.range(1, 10, 3, dtype=lib.int64)",
    "lib.range(1.5, 7.9, 2, dtype=lib.int64)", "lib.range(-3, 4, 2, dtype=lib.int32)",
    "lib.range(2, 2)", "lib.range(1, 4, requires_grad=True).requires_grad"])
def test_range_is_end_inclusive_and_warns(torch, expr):
    res = _compare(torch, expr)
    if res is not None:
        assert res[0] == res[1]


def test_dropout_inplace(torch):
    for lib in (core, torch):
        x = lib.ones(4)
        assert lib.dropout_(x, 0.5, False) is x
    ec, et = same_error(lambda: core.dropout_(core.ones(3, requires_grad=True), 0.5, True),
                        lambda: torch.dropout_(torch.ones(3, requires_grad=True), 0.5, True))
    assert str(ec) == str(et)
    core.manual_seed(0)
    torch.manual_seed(0)
    xc, xt = core.ones(16), torch.ones(16)
    assert core.dropout_(xc, 0.5, True) is xc and torch.dropout_(xt, 0.5, True) is xt
    assert_same(xc, xt)


@pytest.mark.parametrize("n,p", [(5, 0.3), (100, 0.5), (100, 0.3), (1000, 0.9), (20, 0.6), (3, 0.99), (50, 0.1),
                                 (1e6, 0.4), (0, 0.5), (7, 0.0), (7, 1.0)])
def test_binomial_draws_torchs_stream(torch, n, p):
    def draw(lib, dtype):
        lib.manual_seed(1234)
        return lib.binomial(lib.full((3, 5), float(n), dtype=dtype), lib.full((5,), p, dtype=dtype))
    for dtype in ("float32", "float64"):
        assert_same(draw(core, getattr(core, dtype)), draw(torch, getattr(torch, dtype)), rtol=0, atol=0)


def test_binomial_generator_and_errors(torch):
    def draw(lib):
        g = lib.Generator().manual_seed(3)
        return lib.binomial(lib.full((2, 3), 40.0).t(), lib.full((3, 2), 0.45), generator=g)
    assert_same(draw(core), draw(torch), rtol=0, atol=0)
    for make in (lambda lib: lib.binomial(lib.tensor([1, 2]), lib.tensor([0.5, 0.5])),
                 lambda lib: lib.binomial(lib.tensor([1.0, 2]), lib.tensor([0.5, 0.5], dtype=lib.float64))):
        ec, et = same_error(lambda: make(core), lambda: make(torch))
        assert str(ec) == str(et)
