"""The complex ops on real tensors (core/ops/shape/real_views.py) side by side with torch: positive, conj,
resolve_* and real return their input; imag raises torch's error; isreal; angle's values and gradient."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error
from pairs import grads, pair


@pytest.mark.parametrize("name", ["positive", "conj", "conj_physical", "resolve_conj", "resolve_neg", "real"])
def test_identity_ops_return_input(torch, name):
    c, t = pair(torch)
    assert getattr(core, name)(c) is c and getattr(torch, name)(t) is t
    assert c.real is c and t.real is t


def test_imag_isreal_angle(torch):
    c, t = pair(torch, [[-1.0, 0.0, float("nan")], [2.0, -0.0, -3.0]])
    ec, et = same_error(lambda: core.imag(c), lambda: torch.imag(t))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: c.imag, lambda: t.imag)
    assert str(ec) == str(et)
    assert_same(core.isreal(c), torch.isreal(t))
    a_c, a_t = core.angle(c), torch.angle(t)
    assert_same(a_c, a_t)
    assert a_c.grad_fn.name() == type(a_t.grad_fn).__name__
    grads(a_c, a_t, c, t, torch)
    assert_same(core.angle(core.tensor([1, -3, 0])), torch.angle(torch.tensor([1, -3, 0])))
    ec, et = same_error(lambda: core.positive(core.tensor([True])), lambda: torch.positive(torch.tensor([True])))
    assert str(ec) == str(et)

