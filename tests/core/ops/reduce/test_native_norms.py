"""native_layer_norm, native_batch_norm and native_group_norm (core/ops/reduce/native_norms.py) side by
side with torch: every output, running statistics, gradients (through the saved statistics too)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same
from pairs import grads, pair


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

