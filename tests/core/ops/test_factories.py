"""fill and the factories of core/ops/factories.py (scalar_tensor, empty_strided, empty_permuted,
new_empty_strided) against torch: values, grad_fn, gradients, strides and errors."""
from __future__ import annotations

import core
from conftest import assert_same, same_error
from pairs import grads, pair


def test_fill_and_factories(torch):
    c, t = pair(torch)
    vc, vt = core.tensor(2.5, dtype=core.float64, requires_grad=True), torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    for oc, ot, ins_c, ins_t in ((core.fill(c, 3), torch.fill(t, 3), c, t), (core.fill(c, vc), torch.fill(t, vt), (c, vc), (t, vt))):
        assert_same(oc, ot)
        assert oc.grad_fn.name() == type(ot.grad_fn).__name__
        grads(oc, ot, ins_c, ins_t, torch)
    assert_same(core.scalar_tensor(3), torch.scalar_tensor(3))
    assert_same(core.scalar_tensor(2, dtype=core.int64), torch.scalar_tensor(2, dtype=torch.int64))
    e_c, e_t = core.empty_strided((2, 3), (1, 2)), torch.empty_strided((2, 3), (1, 2))
    assert e_c.stride() == e_t.stride() and str(e_c.dtype) == str(e_t.dtype)
    p_c, p_t = core.empty_permuted((2, 3, 4), (2, 0, 1)), torch.empty_permuted((2, 3, 4), (2, 0, 1))
    assert p_c.stride() == p_t.stride() and tuple(p_c.shape) == tuple(p_t.shape)
    n_c, n_t = core.ones(2, dtype=core.int64).new_empty_strided((2, 2), (1, 2)), \
        torch.ones(2, dtype=torch.int64).new_empty_strided((2, 2), (1, 2))
    assert n_c.stride() == n_t.stride() and str(n_c.dtype) == str(n_t.dtype)
    ec, et = same_error(lambda: core.empty_strided((2, 3), (1,)), lambda: torch.empty_strided((2, 3), (1,)))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: core.empty_permuted((2, 3), (0, 0)), lambda: torch.empty_permuted((2, 3), (0, 0)))
    assert str(ec) == str(et)

