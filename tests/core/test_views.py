"""Views vs torch: storage sharing (writes through views reach the base and back), version
counters, `_base`, in-place ops on views (CopySlices gradients), PyTorch's errors for in-place
on views that cannot be rebased, and the in-place view ops (unsqueeze_, t_, ...)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from shape_util import arr, node_name

A = arr(4, 6)

# (id, fn(lib, base) -> view); every one is a view in torch (._is_view())
VIEWS = [
    ("view", lambda L, b: b.view(6, 4)),
    ("reshape", lambda L, b: b.reshape(-1)),
    ("flatten", lambda L, b: b.flatten()),
    ("unflatten", lambda L, b: b.unflatten(1, (2, 3))),
    ("unsqueeze", lambda L, b: b.unsqueeze(1)),
    ("squeeze", lambda L, b: b.unsqueeze(0).squeeze(0)),
    ("transpose", lambda L, b: b.transpose(0, 1)),
    ("t", lambda L, b: b.t()),
    ("T", lambda L, b: b.T),
    ("mT", lambda L, b: b.mT),
    ("permute", lambda L, b: b.permute(1, 0)),
    ("movedim", lambda L, b: b.movedim(0, 1)),
    ("narrow", lambda L, b: b.narrow(1, 2, 3)),
    ("select", lambda L, b: b.select(0, 2)),
    ("unfold", lambda L, b: b.unfold(1, 2, 2)),
    ("as_strided", lambda L, b: b.as_strided((3, 3), (6, 1), 1)),
    ("as_strided_diag", lambda L, b: b.as_strided((4,), (7,))),
    ("tensor_split", lambda L, b: b.tensor_split(2, 1)[1]),
    ("view_of_view", lambda L, b: b.t().narrow(0, 1, 2).select(1, 3)),
    ("unbind", lambda L, b: b.unbind(1)[2]),
    ("split", lambda L, b: b.split(2)[1]),
    ("chunk", lambda L, b: b.chunk(3, 1)[2]),
    ("expand_size1", lambda L, b: b.unsqueeze(0).expand(1, 4, 6)),
]


@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_write_through_view_changes_base(torch, name, fn):
    res = []
    for L in (core, torch):
        b = L.tensor(A)
        v = fn(L, b)
        v.mul_(10).add_(1)
        res.append(b)
        assert b._version == v._version == 2
        assert v._base is b
    assert_same(res[0], res[1])


@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_write_to_base_is_seen_by_view(torch, name, fn):
    res = []
    for L in (core, torch):
        b = L.tensor(A)
        v = fn(L, b)
        b.add_(L.ones(4, 6))
        res.append(v)
        assert v._version == 1
    assert_same(res[0], res[1])


@pytest.mark.parametrize("name,fn", [v for v in VIEWS if v[0] not in ("unbind", "split", "chunk")],
                         ids=[v[0] for v in VIEWS if v[0] not in ("unbind", "split", "chunk")])
def test_inplace_on_view_of_non_leaf_gives_torch_gradients(torch, name, fn):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x * 2
        v = fn(L, y)
        v.mul_(L.tensor(np.linspace(1, 2, v.numel()).reshape(tuple(v.shape)).astype(np.float32)))
        assert node_name(y) == "CopySlices"
        assert node_name(v) == "AsStridedBackward0"
        w = L.tensor(np.linspace(-1, 1, 24).reshape(4, 6).astype(np.float32))
        (y * w).sum().backward()
        res.append(x.grad)
    assert_same(res[0], res[1])


def test_inplace_on_view_then_use_view_in_graph(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x * 1.5
        v = y.narrow(1, 1, 3)
        v.mul_(3)
        (v.pow(2).sum() + y.sum()).backward()
        res.append(x.grad)
    assert_same(res[0], res[1], rtol=1e-4)


def test_copy_into_view_of_plain_tensor_makes_base_require_grad(torch):
    res = []
    for L in (core, torch):
        b = L.zeros(3, 4)
        w = L.tensor([1., 2., 3., 4.], requires_grad=True)
        b.select(0, 1).copy_(w)
        assert b.requires_grad and node_name(b) == "CopySlices"
        (b * L.arange(12.).view(3, 4)).sum().backward()
        res.append(w.grad)
    assert_same(res[0], res[1])


def test_repeated_inplace_on_rows_accumulates_like_torch(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x + 0
        for i in range(4):
            y.select(0, i).mul_(float(i + 1))
        y.narrow(1, 0, 2).add_(y.narrow(1, 4, 2).detach())
        (y * y).sum().backward()
        res.append(x.grad)
    assert_same(res[0], res[1])


def test_inplace_on_view_of_fortran_ordered_base(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x.t() * 1.0            # non-contiguous result layout
        y.select(1, 2).exp_()
        (y * L.arange(24.).view(6, 4)).sum().backward()
        res.append(x.grad)
    assert_same(res[0], res[1], rtol=1e-4)


def test_create_graph_through_copyslices(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(arr(3, 4, dtype=np.float64), requires_grad=True)
        y = x * x
        y.narrow(0, 1, 1).mul_(x.narrow(0, 0, 1))
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        res.append((g.detach(), x.grad))
    assert_same(res[0][0], res[1][0])
    assert_same(res[0][1], res[1][1])


def test_inplace_on_view_of_leaf_requiring_grad_raises(torch):
    ec, et = same_error(lambda: core.zeros(3, 2, requires_grad=True).select(0, 1).add_(1),
                        lambda: torch.zeros(3, 2, requires_grad=True).select(0, 1).add_(1))
    assert et is not None and str(ec) == str(et)


def test_inplace_view_op_on_leaf_requiring_grad_raises(torch):
    ec, et = same_error(lambda: core.zeros(3, requires_grad=True).unsqueeze_(0),
                        lambda: torch.zeros(3, requires_grad=True).unsqueeze_(0))
    assert et is not None and str(ec) == str(et)


@pytest.mark.parametrize("op", ["unbind", "split", "split_list", "chunk", "iter", "view_of_unbind"])
def test_inplace_on_multi_output_view_raises(torch, op):
    get = {"unbind": lambda y: y.unbind(0)[0], "split": lambda y: y.split(2)[0],
           "split_list": lambda y: y.split([1, 3])[1], "chunk": lambda y: y.chunk(2)[1],
           "iter": lambda y: next(iter(y)), "view_of_unbind": lambda y: y.unbind(0)[0].unsqueeze(0)}[op]

    def run(L, leaf):
        x = L.tensor(A, requires_grad=True)
        get(x if leaf else x * 2).mul_(2)
    for leaf in (False, True):   # of a leaf too: the multi-output error comes before the view-of-a-leaf one
        ec, et = same_error(lambda: run(core, leaf), lambda: run(torch, leaf))
        assert et is not None and str(ec) == str(et)


def test_inplace_on_multi_output_view_allowed_without_grad(torch):
    for L in (core, torch):
        x = L.tensor(A)
        x.unbind(0)[1].mul_(0)
        assert float(x[1].abs().sum()) == 0.0
        y = L.tensor(A, requires_grad=True) * 2
        with L.no_grad():
            y.split(2)[0].zero_()
        assert float(y[0].detach().abs().sum()) == 0.0


def test_copy_of_grad_tensor_into_multi_output_view_raises(torch):
    def run(L):
        z = L.zeros(4, 3)
        z.unbind(0)[0].copy_(L.ones(3, requires_grad=True))
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert et is not None and str(ec) == str(et)


def test_inplace_with_grad_on_view_created_in_no_grad_raises(torch):
    def run(L, leaf):
        x = L.tensor(A, requires_grad=True)
        y = x if leaf else x * 2
        with L.no_grad():
            v = y.narrow(0, 0, 2)
        v.mul_(2)
    for leaf in (True, False):
        ec, et = same_error(lambda: run(core, leaf), lambda: run(torch, leaf))
        assert et is not None and str(ec) == str(et)


def test_inplace_on_expanded_view_raises_overlap_error(torch):
    ec, et = same_error(lambda: core.zeros(3, 1).expand(3, 3).add_(1),
                        lambda: torch.zeros(3, 1).expand(3, 3).add_(1))
    assert et is not None and str(ec) == str(et)
    ec, et = same_error(lambda: core.zeros(6).as_strided((3, 3), (0, 1)).mul_(2),
                        lambda: torch.zeros(6).as_strided((3, 3), (0, 1)).mul_(2))
    assert et is not None and str(ec) == str(et)


def test_inplace_on_expand_without_overlap_is_allowed(torch):
    for L in (core, torch):
        b = L.zeros(3)
        b.expand(1, 3).add_(1)
        assert b.tolist() == [1.0, 1.0, 1.0]


def test_seed_as_strided_diagonal_writes_into_res(torch):
    mat = arr(3, 4)
    out = []
    for L in (core, torch):
        m = L.autograd.Variable(L.tensor(mat))
        res = L.autograd.Variable(L.zeros(3, 4, 4))
        r = res.as_strided(m.size(), [res.stride(0), res.size(2) + 1]).copy_(m)
        assert tuple(r.shape) == (3, 4)
        out.append(res)
    assert_same(out[0], out[1])
    for k in range(3):
        np.testing.assert_array_equal(np.diag(out[0][k].numpy()), mat[k])


def test_as_strided_copy_with_grad_matches_torch(torch):
    res = []
    for L in (core, torch):
        m = L.tensor(arr(3, 4), requires_grad=True)
        r = L.zeros(3, 4, 4)
        r.as_strided(m.size(), [r.stride(0), r.size(2) + 1]).copy_(m)
        (r * L.arange(48.).view(3, 4, 4)).sum().backward()
        res.append(m.grad)
    assert_same(res[0], res[1])


IN_PLACE_VIEW_OPS = [
    ("unsqueeze_", lambda y: y.unsqueeze_(1)),
    ("squeeze_", lambda y: y.unsqueeze(0).squeeze_()),
    ("squeeze_dim", lambda y: y.unsqueeze(0).squeeze_(0)),
    ("squeeze_dims", lambda y: y.unsqueeze(0).squeeze_((0,))),
    ("t_", lambda y: y.t_()),
    ("transpose_", lambda y: y.transpose_(0, 1)),
    ("swapaxes_", lambda y: y.swapaxes_(0, 1)),
    ("as_strided_", lambda y: y.as_strided_((2, 3), (1, 4))),
]


@pytest.mark.parametrize("name,fn", IN_PLACE_VIEW_OPS, ids=[o[0] for o in IN_PLACE_VIEW_OPS])
def test_inplace_view_op_changes_shape_and_grad_fn(torch, name, fn):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x * 2
        r = fn(y)
        if name.startswith("squeeze"):
            y = r
        assert r is y
        res.append((y, x, node_name(y)))
    (cy, cx, cn), (ty, tx, tn) = res
    assert cn == tn
    assert_same(cy, ty)
    assert cy.stride() == ty.stride()
    w = np.linspace(-1, 1, cy.numel()).reshape(tuple(cy.shape)).astype(np.float32)
    (cy * core.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    assert_same(cx.grad, tx.grad)


def test_inplace_view_op_on_view_keeps_base(torch):
    for L in (core, torch):
        z = L.zeros(2, 3)
        v = z.view(6)
        v.unsqueeze_(0)
        assert tuple(v.shape) == (1, 6) and tuple(z.shape) == (2, 3) and v._base is z
        v.fill_(3)
        assert float(z.sum()) == 18.0


def test_inplace_view_op_bumps_version(torch):
    for L in (core, torch):
        z = L.zeros(2, 3)
        z.unsqueeze_(0)
        assert z._version == 1


def test_saved_view_modified_in_place_fails_backward(torch):
    def run(L):
        x = L.tensor(A, requires_grad=True)
        y = x * 1
        v = y.view(-1)
        z = v * v
        y.add_(1)
        z.sum().backward()
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert et is not None


def test_views_share_memory_and_version_counter_without_grad_mode(torch):
    with core.no_grad():
        b = core.zeros(2, 3)
        v = b.transpose(0, 1)
        v.add_(1)
    assert b._version == v._version == 1
    assert v._base is b
    assert float(b.sum()) == 6.0


def test_copies_do_not_share_memory(torch):
    for L in (core, torch):
        b = L.zeros(2, 3)
        for f in (lambda t: t.repeat(1, 1), lambda t: t.flip(0), lambda t: t.roll(1), lambda t: L.cat([t]),
                  lambda t: L.stack([t]), lambda t: t.t().contiguous()):
            c = f(b)
            c.add_(1)
            assert float(b.sum()) == 0.0
            assert c._base is None


def test_reshape_of_noncontiguous_is_a_copy(torch):
    for L in (core, torch):
        b = L.zeros(2, 3)
        r = b.t().reshape(-1)
        r.add_(1)
        assert float(b.sum()) == 0.0


def test_inplace_view_op_on_expanded_tensor_is_allowed(torch):
    for L in (core, torch):
        e = L.zeros(3, 1).expand(3, 3)
        e.t_()
        assert e.stride() == (0, 1)


def test_inplace_view_op_on_view_of_leaf_raises(torch):
    for make in (lambda L: L.zeros(2, 3, requires_grad=True).view(6),
                 lambda L: L.zeros(3, 1, requires_grad=True).expand(3, 3)):
        ec, et = same_error(lambda: make(core).unsqueeze_(0), lambda: make(torch).unsqueeze_(0))
        assert et is not None and str(ec) == str(et)


def test_inplace_on_view_made_before_its_base_joined_the_graph_raises(torch):
    def run(L, second):
        m = L.tensor(arr(2, 4), requires_grad=True)
        r = L.zeros(3, 4)
        a, b = r.narrow(0, 0, 1), r.narrow(0, 1, 1)
        a.copy_(m.narrow(0, 0, 1))
        second(L, b, m)
    for second in (lambda L, b, m: b.copy_(m.narrow(0, 1, 1)), lambda L, b, m: b.fill_(5.0)):
        ec, et = same_error(lambda: run(core, second), lambda: run(torch, second))
        assert et is not None and str(ec) == str(et)


def test_copy_into_fresh_views_of_a_growing_graph(torch):
    res = []
    for L in (core, torch):
        m = L.tensor(arr(3, 4), requires_grad=True)
        r = L.zeros(3, 4)
        for k in range(3):
            r.narrow(0, k, 1).copy_(m.narrow(0, k, 1) * (k + 1))
        assert node_name(r) == "CopySlices"
        (r * L.arange(12.).view(3, 4)).sum().backward()
        res.append((r.detach(), m.grad))
    assert_same(res[0][0], res[1][0])
    assert_same(res[0][1], res[1][1])


def test_inplace_on_stale_overlapping_view_matches_torch(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        h = x * 2
        a = h.narrow(0, 0, 2)
        flat = h.view(-1)
        a.mul_(3)
        flat.mul_(L.arange(24.))       # flat's history predates a.mul_: recomputed from h
        (h * h).sum().backward()
        res.append(x.grad)
    assert_same(res[0], res[1])
