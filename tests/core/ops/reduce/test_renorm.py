"""renorm (core/ops/reduce/renorm.py) side by side with torch: every p, values, grad_fn name, gradients,
errors."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error
from pairs import grads, pair


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 3.0), (1, 1, 2.0), (float("inf"), 1, 2.0), (3.5, 0, 1.0),
                                           (0.5, 1, 4.0), (2, 0, 100.0)])
def test_renorm(torch, p, dim, maxnorm):
    c, t = pair(torch)
    oc, ot = core.renorm(c, p, dim, maxnorm), torch.renorm(t, p, dim, maxnorm)
    assert_same(oc, ot, rtol=1e-10)
    assert oc.grad_fn.name() == type(ot.grad_fn).__name__
    grads(oc, ot, c, t, torch)


def test_renorm_errors(torch):
    for call in (lambda m: m.renorm(m.ones(2, 2), 0, 0, 1), lambda m: m.renorm(m.ones(2, 2), 2, 0, -1),
                 lambda m: m.renorm(m.ones(2), 2, 0, 1), lambda m: m.renorm(m.ones(2, 2, dtype=m.int64), 2, 0, 1)):
        ec, et = same_error(lambda: call(core), lambda: call(torch))
        assert str(ec) == str(et)

