"""core/ops/shape/unsafe_resize.py side by side with torch: unsafe_split/unsafe_chunk, sum_to_size,
as_strided_scatter (values and torch's gradient), resize_/resize_as_ and their errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from pairs import grads, pair


@pytest.mark.parametrize("fn,args", [("unsafe_chunk", (2, 1)), ("unsafe_split", (2, 1)), ("unsafe_chunk", (3, 0))])
def test_unsafe_split(torch, fn, args):
    c, t = pair(torch)
    oc, ot = getattr(core, fn)(c, *args), getattr(torch, fn)(t, *args)
    assert len(oc) == len(ot)
    for a, b in zip(oc, ot):
        assert_same(a, b)
        assert a.grad_fn.name() == type(b.grad_fn).__name__
    grads(core.cat([o.reshape(-1) for o in oc]), torch.cat([o.reshape(-1) for o in ot]), c, t, torch)


@pytest.mark.parametrize("size", [(1, 3), (3,), (2, 1), (1, 1), (2, 3), ()])
def test_sum_to_size(torch, size):
    c, t = pair(torch)
    oc, ot = c.sum_to_size(*size) if size else c.sum_to_size(()), t.sum_to_size(*size) if size else t.sum_to_size(())
    assert_same(oc, ot)
    assert (oc.grad_fn is None) == (ot.grad_fn is None)
    if ot.grad_fn is not None:
        assert oc.grad_fn.name() == type(ot.grad_fn).__name__


def test_sum_to_size_errors_and_bool(torch):
    ec, et = same_error(lambda: core.ones(2, 3).sum_to_size(4), lambda: torch.ones(2, 3).sum_to_size(4))
    assert str(ec) == str(et)
    assert_same(core.tensor([[True, False]]).sum_to_size(2), torch.tensor([[True, False]]).sum_to_size(2))


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 0), ((2, 2), (2, 1), 1), ((3,), (2,), 0)])
def test_as_strided_scatter_values_and_torchs_gradient(torch, size, stride, offset):
    c, t = pair(torch, np.arange(9.0).reshape(3, 3).tolist())
    sc, st = pair(torch, np.full(size, 7.0).tolist())
    oc = core.as_strided_scatter(c, sc, size, stride, offset)
    ot = torch.as_strided_scatter(t, st, size, stride, offset)
    assert_same(oc, ot)
    assert oc.grad_fn.name() == type(ot.grad_fn).__name__
    grads(oc, ot, (c, sc), (t, st), torch)


def test_as_strided_scatter_errors(torch):
    ec, et = same_error(lambda: core.as_strided_scatter(core.zeros(4), core.ones(3), (2,), (1,)),
                        lambda: torch.as_strided_scatter(torch.zeros(4), torch.ones(3), (2,), (1,)))
    assert str(ec) == str(et)
    same_error(lambda: core.as_strided_scatter(core.zeros(4), core.ones(3), (3,), (2,)),
               lambda: torch.as_strided_scatter(torch.zeros(4), torch.ones(3), (3,), (2,)))


@pytest.mark.parametrize("shape", [(2, 2), (3,), (2, 3), (1, 6)])
def test_resize_shrinks_or_keeps(torch, shape):
    c = core.arange(6.0).reshape(2, 3).clone()
    t = torch.arange(6.0).reshape(2, 3).clone()
    assert_same(c.resize_(*shape), t.resize_(*shape))
    assert_same(core.resize_as_(core.arange(6.0), core.ones(2, 2)), torch.resize_as_(torch.arange(6.0), torch.ones(2, 2)))
    ec, et = same_error(lambda: core.ones(2, requires_grad=True).resize_(3),
                        lambda: torch.ones(2, requires_grad=True).resize_(3))
    assert str(ec) == str(et)

