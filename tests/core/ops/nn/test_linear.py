"""F.linear's 2-D path (core/ops/nn/linear.py): torch's graph (AddmmBackward0 over the bias's AccumulateGrad, the
input's edge and TBackward0 over the weight's), its values and gradients, and the bias shapes it accepts or refuses,
with and without grad mode."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import same_error


def _names(fn):
    return None if fn is None else (fn.name(), tuple(_names(f) for f, _ in fn.next_functions))


@pytest.mark.parametrize("grads", [(True, True, True), (False, True, True), (True, False, False), (False, False, True)])
def test_linear_graph_values_and_grads_as_torch(torch, grads):
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s) for s in [(5, 4), (3, 4), (3,)])
    res = []
    for lib in (core, torch):
        ts = [lib.tensor(a, requires_grad=g) for a, g in zip((x, w, b), grads)]
        y = lib.nn.functional.linear(*ts)
        res.append((_names(y.grad_fn), y.requires_grad, y.detach().numpy()))
        if y.requires_grad:
            (y * lib.tensor(np.arange(15.0).reshape(5, 3))).sum().backward()
            res.append([None if t.grad is None else t.grad.numpy() for t in ts])
        with lib.no_grad():
            y = lib.nn.functional.linear(*ts)
        res.append((y.grad_fn, y.requires_grad))
    half = len(res) // 2
    for c, t in zip(res[:half], res[half:]):
        if isinstance(c, list):
            for gc, gt in zip(c, t):
                assert (gc is None) == (gt is None) and (gc is None or np.allclose(gc, gt, rtol=1e-12, atol=1e-12))
        else:
            assert c[:2] == t[:2] and (len(c) < 3 or np.allclose(c[2], t[2], rtol=1e-12, atol=1e-12))


@pytest.mark.parametrize("bshape", [(1, 3), (5, 3), (5, 1), (4,), (2, 3), (1, 1, 3)])
def test_linear_bias_shapes_as_torch(torch, bshape):
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s) for s in [(5, 4), (3, 4), bshape])
    same_error(lambda: core.nn.functional.linear(core.tensor(x), core.tensor(w, requires_grad=True), core.tensor(b)),
               lambda: torch.nn.functional.linear(torch.tensor(x), torch.tensor(w, requires_grad=True),
                                                  torch.tensor(b)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normalize_bits(torch, dtype):
    """F.normalize bit for bit, values and gradients: norm's kernel, clamp_min, and div's gradients (the divisor's
    -grad * ((self / other) / other), summed back over the expanded dim in torch's order)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(16)
    a = rng.standard_normal((21, 34)).astype(dtype)
    g = rng.standard_normal((34, 21)).astype(dtype)
    for kw in ({}, {"dim": 0}, {"p": 1.0}):
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy()).requires_grad_(True)
            out = lib.nn.functional.normalize(x.t(), **kw)
            res.append((out.detach().numpy(), lib.autograd.grad(out, x, lib.from_numpy(g.copy()))[0].numpy()))
        for o, r in zip(*res):
            assert np.array_equal(np.ascontiguousarray(o).view(np.uint8), np.ascontiguousarray(r).view(np.uint8))
