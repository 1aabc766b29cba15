"""Tensor utilities new for issue #14, side by side with torch: the complex ops on real tensors, unsafe
split/chunk, sum_to_size, as_strided_scatter (torch's gradient), resize_, gradient, trapz,
cumulative_trapezoid, histogram(dd), renorm, nonzero_static, native_* norms, fill and the factories."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error

DATA = [[1.0, -2.0, 0.0], [4.0, 5.5, -6.0]]


def pair(torch, data=DATA, dtype="float64", grad=True):
    c = core.tensor(data, dtype=getattr(core, dtype), requires_grad=grad)
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=grad)
    return c, t


def grads(c_out, t_out, c_in, t_in, torch):
    """Gradients of sum(out * w) for a fixed w, core vs torch."""
    w = np.linspace(-1, 2, int(np.prod(t_out.shape))).reshape(tuple(t_out.shape))
    gc = core.autograd.grad(c_out, c_in, core.tensor(w, dtype=c_out.dtype), allow_unused=True)
    gt = torch.autograd.grad(t_out, t_in, torch.tensor(w, dtype=t_out.dtype), allow_unused=True)
    for a, b in zip(gc, gt):
        assert (a is None) == (b is None)
        if a is not None:
            assert_same(a, b)


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


@pytest.mark.parametrize("kw", [{"bins": 4}, {"bins": 3, "range": (0.0, 3.0)}, {"bins": 3, "density": True},
                                {"bins": "edges"}, {"bins": 2, "weight": "w", "density": True}])
def test_histogram(torch, kw):
    data = [1.0, 2.0, 1.0, 4.0, 5.0, 2.5, 7.0 if isinstance(kw["bins"], int) and "range" not in kw else float("nan")]
    kc, kt = dict(kw), dict(kw)
    if kw["bins"] == "edges":
        kc["bins"], kt["bins"] = core.tensor([0.0, 2.0, 6.0]), torch.tensor([0.0, 2.0, 6.0])
    if "weight" in kw:
        kc["weight"], kt["weight"] = core.arange(7.0), torch.arange(7.0)
    hc, ht = core.histogram(core.tensor(data), **kc), torch.histogram(torch.tensor(data), **kt)
    assert_same(hc.hist, ht.hist)
    assert_same(hc.bin_edges, ht.bin_edges)


def test_histogram_empty_constant_and_errors(torch):
    for d in ([], [2.0, 2.0]):
        hc, ht = core.histogram(core.tensor(d), 2), torch.histogram(torch.tensor(d), 2)
        assert_same(hc.bin_edges, ht.bin_edges)
    for call in (lambda m: m.histogram(m.tensor([1.0]), -1), lambda m: m.histogram(m.tensor([1, 2]), 3),
                 lambda m: m.histogram(m.tensor([1.0]), 3, range=(2.0, 1.0)),
                 lambda m: m.histogram(m.tensor([1.0, float("inf")]), 3),
                 lambda m: m.histogram(m.tensor([1.0, float("nan")]), 3),
                 lambda m: m.histogram(m.tensor([1.0]), m.tensor([0.0, 1.0], dtype=m.float64))):
        ec, et = same_error(lambda: call(core), lambda: call(torch))
        assert str(ec) == str(et)


def test_histogramdd(torch):
    data = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]]
    for kw in ({"bins": [3, 3]}, {"bins": [1, 2], "range": [0.0, 1.0, 0.0, 2.0], "density": True}, {"bins": 2}):
        rc, rt = core.histogramdd(core.tensor(data), **kw), torch.histogramdd(torch.tensor(data), **kw)
        assert_same(rc.hist, rt.hist)
        for a, b in zip(rc.bin_edges, rt.bin_edges):
            assert_same(a, b)
    ec, et = same_error(lambda: core.histogramdd(core.tensor([0.0, 1.0]), bins=2),
                        lambda: torch.histogramdd(torch.tensor([0.0, 1.0]), bins=2))
    assert str(ec) == str(et)


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


@pytest.mark.parametrize("size,fill", [(3, -1), (1, -5), (0, 0), (6, 9)])
def test_nonzero_static(torch, size, fill):
    d = [[0, 1], [1, 1], [0, 0]]
    assert_same(core.nonzero_static(core.tensor(d), size=size, fill_value=fill),
                torch.nonzero_static(torch.tensor(d), size=size, fill_value=fill))


def test_native_layer_norm(torch):
    x, xt = pair(torch, np.linspace(-2, 3, 24).reshape(2, 3, 4).tolist())
    w, wt = pair(torch, [1.0, 2.0, 0.5, -1.0])
    rc, rt = core.native_layer_norm(x, [4], w, None, 1e-5), torch.native_layer_norm(xt, [4], wt, None, 1e-5)
    for a, b in zip(rc, rt):
        assert_same(a, b, rtol=1e-9, atol=1e-9)
    assert rc[0].grad_fn.name() == type(rt[0].grad_fn).__name__
    grads(rc[0], rt[0], (x, w), (xt, wt), torch)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(torch, training):
    x, xt = pair(torch, np.linspace(-2, 3, 24).reshape(4, 3, 2).tolist())
    rm, rv = core.zeros(3, dtype=core.float64), core.ones(3, dtype=core.float64)
    rmt, rvt = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rc = core.native_batch_norm(x, None, None, rm, rv, training, 0.1, 1e-5)
    rt = torch.native_batch_norm(xt, None, None, rmt, rvt, training, 0.1, 1e-5)
    for a, b in zip(rc, rt):
        assert_same(a, b, rtol=1e-9, atol=1e-9)
    assert_same(rm, rmt)
    assert_same(rv, rvt)
    grads(rc[0], rt[0], x, xt, torch)


def test_native_group_norm_outputs_and_stat_gradients(torch):
    x, xt = pair(torch, np.linspace(-2, 3, 24).reshape(2, 4, 3).tolist())
    rc = core.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5)
    rt = torch.native_group_norm(xt, None, None, 2, 4, 3, 2, 1e-5)
    for a, b in zip(rc, rt):
        assert_same(a, b, rtol=1e-9, atol=1e-9)
        assert a.grad_fn.name() == type(b.grad_fn).__name__
    w = [np.linspace(-1, 1, int(np.prod(b.shape))).reshape(tuple(b.shape)) for b in rt]
    gc = core.autograd.grad(rc, x, [core.tensor(v) for v in w])
    gt = torch.autograd.grad(rt, xt, [torch.tensor(v) for v in w])
    assert_same(gc[0], gt[0], rtol=1e-9, atol=1e-9)


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
