"""gradient, trapz and cumulative_trapezoid (core/ops/reduce/gradient_trapz.py) side by side with torch:
values, grad_fn names, gradients and errors."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error
from pairs import grads, pair


@pytest.mark.parametrize("kw", [{}, {"spacing": 2.0}, {"dim": 1}, {"dim": [0, 1], "edge_order": 2},
                                {"spacing": [0.5, 2.0]}, {"spacing": "coords", "dim": 1},
                                {"spacing": "coords", "dim": 1, "edge_order": 2}])
def test_gradient(torch, kw):
    data = [[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 7.5], [0.0, -1.0, 4.0, 2.0]]
    c, t = pair(torch, data)
    kc, kt = dict(kw), dict(kw)
    if kw.get("spacing") == "coords":
        kc["spacing"] = (core.tensor([0.0, 1.0, 1.5, 3.5], dtype=core.float64),)
        kt["spacing"] = (torch.tensor([0.0, 1.0, 1.5, 3.5], dtype=torch.float64),)
    oc, ot = core.gradient(c, **kc), torch.gradient(t, **kt)
    assert len(oc) == len(ot)
    for a, b in zip(oc, ot):
        assert_same(a, b, rtol=1e-12, atol=1e-12)
        grads(a, b, c, t, torch)


def test_gradient_int_and_errors(torch):
    for a, b in zip(core.gradient(core.tensor([1, 4, 9, 16])), torch.gradient(torch.tensor([1, 4, 9, 16]))):
        assert_same(a, b)
    for call in (lambda m: m.gradient(m.ones(2, 3), edge_order=3), lambda m: m.gradient(m.ones(2, 3), spacing=[1.0]),
                 lambda m: m.gradient(m.ones(1, 3)), lambda m: m.gradient(m.ones(3, 3), dim=(0, 0))):
        ec, et = same_error(lambda: call(core), lambda: call(torch))
        assert str(ec) == str(et)


@pytest.mark.parametrize("fn", ["trapz", "cumulative_trapezoid"])
@pytest.mark.parametrize("kw", [{}, {"dx": 0.5}, {"x": "x"}, {"dim": 0}])
def test_trapz_and_cumulative_trapezoid(torch, fn, kw):
    c, t = pair(torch, [[1.0, 2.0, 4.0], [0.0, -1.0, 3.0]])
    kc, kt = dict(kw), dict(kw)
    if "x" in kw:
        kc["x"], kt["x"] = core.tensor([0.0, 0.5, 2.0], dtype=core.float64), torch.tensor([0.0, 0.5, 2.0], dtype=torch.float64)
    oc, ot = getattr(core, fn)(c, **kc), getattr(torch, fn)(t, **kt)
    assert_same(oc, ot, rtol=1e-12)
    assert oc.grad_fn.name() == type(ot.grad_fn).__name__
    grads(oc, ot, c, t, torch)


def test_cumulative_trapezoid_errors(torch):
    ec, et = same_error(lambda: core.cumulative_trapezoid(core.tensor([True, False])),
                        lambda: torch.cumulative_trapezoid(torch.tensor([True, False])))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: core.cumulative_trapezoid(core.ones(3), core.ones(2)),
                        lambda: torch.cumulative_trapezoid(torch.ones(3), torch.ones(2)))
    assert str(ec) == str(et)

