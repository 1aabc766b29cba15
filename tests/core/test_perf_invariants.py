"""Invariants behind issue #15's speed and memory work, checked against torch (no wall-clock asserts):
gradient layouts (AccumulateGrad's layout contract), gradients taken over instead of copied (peak memory),
and graphs that leave few GC-tracked objects per node."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import core


def _leaf(lib, arr, make):
    """A leaf built by `make` from a fresh tensor (e.g. a column-major or strided leaf)."""
    return make(lib.tensor(arr)).detach().requires_grad_()


@pytest.mark.parametrize("name,make,graph", [
    ("column-major leaf, C-order gradient", lambda t: t.t(), lambda x: x.contiguous().sum()),
    ("column-major leaf, product gradient", lambda t: t.t(), lambda x: (x * x).sum()),
    ("strided leaf, gradient copied", lambda t: t[:, ::2], lambda x: (x.contiguous() * 3).sum()),
    ("C leaf, transposed gradient", lambda t: t, lambda x: x.t().contiguous().sum()),
    ("permuted 3-D leaf", lambda t: t.reshape(2, 3, 4).permute(2, 0, 1), lambda x: (x.contiguous() * 2).sum()),
])
def test_grad_obeys_layout_contract(torch, name, make, graph):
    arr = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    grads = []
    for lib in (core, torch):
        x = _leaf(lib, arr, make)
        graph(x).backward()
        grads.append(x.grad)
    c, t = grads
    assert c.stride() == t.stride(), name
    np.testing.assert_array_equal(c.numpy(), t.numpy())


def test_linear_weight_grad_layout_and_graph(torch):
    rng = np.random.default_rng(1)
    W, b, X = (rng.standard_normal(s).astype(np.float32) for s in ((5, 7), (5,), (3, 7)))
    res = []
    for lib in (core, torch):
        w, bb, x = (lib.tensor(a, requires_grad=True) for a in (W, b, X))
        y = lib.nn.functional.linear(x, w, bb)
        (y * y).sum().backward()
        res.append((y, w, bb, x))
    (yc, *cs), (yt, *ts) = res
    assert yc.grad_fn.name() == yt.grad_fn.name() == "AddmmBackward0"
    assert [f.name() if f else None for f, _ in yc.grad_fn.next_functions] == \
        [f.name() if f else None for f, _ in yt.grad_fn.next_functions]
    for c, t in zip(cs, ts):
        assert c.grad.stride() == t.grad.stride()
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_create_graph_weight_grad(torch):
    rng = np.random.default_rng(2)
    W, X = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    out = []
    for lib in (core, torch):
        w, x = lib.tensor(W, requires_grad=True), lib.tensor(X, requires_grad=True)
        y = lib.nn.functional.linear(x, w, lib.zeros(4))
        (gw,) = lib.autograd.grad((y ** 2).sum(), w, create_graph=True)
        gw.sum().backward()
        out.append((gw, x.grad))
    for c, t in zip(*out):
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)
        assert c.stride() == t.stride()


def _torch_peak(torch, fn):
    """Peak bytes above start as torch's profiler sees them: its [memory] events summed in time order."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_ns())
    cur = peak = 0
    for e in events:
        cur += e.nbytes()
        peak = max(peak, cur)
    return peak


def _core_peak(fn):
    fn()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def test_linear_step_peak_memory_near_torch(torch):
    """Linear(1000,1000) forward+backward on 100x1000: the weight gradient is taken over, not copied."""
    def step(lib):
        lib.manual_seed(0)
        m, x = lib.nn.Linear(1000, 1000), lib.randn(100, 1000)

        def f():
            m.zero_grad(set_to_none=True)
            m(x).sum().backward()
        return f
    tp = _torch_peak(torch, step(torch))
    cp = _core_peak(step(core))
    assert tp > 4_000_000               # the profiler saw the 4 MB weight gradient
    assert cp <= 1.2 * tp, (cp, tp)


def test_chain_leaves_few_gc_objects():
    """A recorded node adds a bounded number of GC-tracked objects (the cyclic GC's cost grows with it): the
    node and its tuple of edges (PyTorch's next_edges_), nothing more."""
    x = core.ones(4, requires_grad=True)
    gc.collect()
    before = len(gc.get_objects())
    y = x
    for _ in range(1000):
        y = y * 1.0
    gc.collect()
    per_node = (len(gc.get_objects()) - before) / 1000
    assert per_node <= 2.05, per_node   # the node and its edge tuple: metas and flags are shared
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(4, np.float32))


def test_chain_with_tensor_operands_matches_torch(torch):
    """Two-input and one-input nodes mixed in one chain (edges stored both ways) give torch's gradients and
    next_functions."""
    a = np.random.default_rng(5).standard_normal(6).astype(np.float32)
    res = []
    for lib in (core, torch):
        x, w = lib.tensor(a, requires_grad=True), lib.tensor(a[::-1].copy(), requires_grad=True)
        y = x
        for i in range(50):
            y = y * w if i % 3 == 0 else (y * 0.5 + 1).tanh()
        y.sum().backward()
        fns = [type(y.grad_fn).__name__ if lib is torch else y.grad_fn.name()]
        fns += [f.name() if f is not None else None for f, _ in y.grad_fn.next_functions]
        res.append((x.grad, w.grad, fns))
    np.testing.assert_allclose(res[0][0].numpy(), res[1][0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1].numpy(), res[1][1].numpy(), rtol=1e-5, atol=1e-6)
    assert res[0][2][1:] == res[1][2][1:]
