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


def _geom(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


RESIZE_CASES = {   # each returns (the resized tensor, the number of its leading elements that are defined, others)
    "strided_view_uses_storage": lambda L, np: (L.arange(10.0)[::2].resize_(3), 3, []),
    "offset_view": lambda L, np: (L.arange(10.0)[2:].resize_(2, 2), 4, []),
    "shrink_keeps_storage": lambda L, np: (L.arange(6.0).resize_(2).resize_(6), 6, []),
    "same_shape_keeps_strides": lambda L, np: (L.arange(6.0).view(2, 3).t().resize_(3, 2), 6, []),
    "transposed_to_contiguous": lambda L, np: (L.arange(6.0).view(2, 3).t().resize_(2, 3), 6, []),
    "view_shares_after_shrink": lambda L, np: _shared(L),
    "grow_keeps_contents": lambda L, np: (L.arange(6.0).resize_(8), 6, []),
    "grow_2d": lambda L, np: (L.arange(6.0).resize_(2, 3).resize_(3, 3), 6, []),
    "from_numpy_shrink_regrow": lambda L, np: (L.from_numpy(np.arange(6.0)).resize_(3).resize_(6), 6, []),
    "zero_sizes": lambda L, np: (L.ones(2, 3).resize_(3, 0), 0, [L.ones(2, 3).resize_(0, 3).stride()]),
    "expanded": lambda L, np: (L.arange(4.0).expand(3, 4).resize_(2, 2), 4, []),
    "size_forms": lambda L, np: (L.ones(2, 2).resize_(L.Size([4])).resize_([2, 2]).resize_((1, 4)), 4, []),
    "sliced_2d": lambda L, np: (L.arange(12.0).view(3, 4)[:, 1:3].resize_(2, 2), 4, []),
}


def _shared(L):
    a = L.arange(6.0)
    v = a.view(2, 3).resize_(3)
    v[0] = 100
    return v, 3, [a]


@pytest.mark.parametrize("name", list(RESIZE_CASES))
def test_resize_geometry_and_sharing_like_torch(torch, name):
    (c, nc, oc), (t, nt, ot) = RESIZE_CASES[name](core, np), RESIZE_CASES[name](torch, np)
    assert _geom(c) == _geom(t) and nc == nt
    assert c.reshape(-1)[:nc].tolist() == t.reshape(-1)[:nt].tolist()
    for a, b in zip(oc, ot, strict=True):
        assert (a.tolist() if hasattr(a, "tolist") else a) == (b.tolist() if hasattr(b, "tolist") else b)


@pytest.mark.parametrize("call", ["from_numpy_grow", "as_tensor_grow", "negative", "float_size", "requires_grad",
                                  "requires_grad_no_grad"])
def test_resize_errors_like_torch(torch, call):

    def run(L):
        if call == "from_numpy_grow":
            return L.from_numpy(np.arange(6.0)).resize_(7)
        if call == "as_tensor_grow":
            return L.as_tensor(np.arange(6.0)).resize_(2, 4)
        if call == "negative":
            return L.ones(2).resize_(2, -1)
        if call == "float_size":
            return L.ones(2).resize_(2.5)
        x = L.ones(2, requires_grad=True)
        with L.set_grad_enabled(call == "requires_grad"):
            return x.resize_(3)
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert et is not None and str(ec) == str(et)


def test_resize_version_counter(torch):
    def run(L):
        x = L.ones(2, 3)
        v = x._version
        x.resize_(2, 3)
        same = x._version - v
        x.resize_(6)
        return same, x._version - v
    assert run(core) == run(torch)

