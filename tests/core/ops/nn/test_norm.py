"""core/ops/nn/norm.py side by side with torch: group_norm of an empty batch."""
from __future__ import annotations

import pytest

import core
from agreement import agree


def test_group_norm_of_an_empty_batch_is_empty_with_zero_parameter_grads(torch):
    got = []
    for lib in (torch, core):
        x = lib.zeros(0, 4, 3, requires_grad=True)
        w, b = lib.ones(4, requires_grad=True), lib.zeros(4, requires_grad=True)
        y = lib.nn.functional.group_norm(x, 2, w, b)
        y.sum().backward()
        got.append((list(y.shape), list(x.grad.shape), w.grad.tolist(), b.grad.tolist()))
    assert got[0] == got[1]


BN = {
    "empty_1d_training": lambda m: m.nn.functional.batch_norm(m.empty(0), m.empty(0), m.empty(0), training=True),
    "empty_1d_eval": lambda m: m.nn.functional.batch_norm(m.empty(0), m.empty(0), m.empty(0), training=False),
    "empty_2d_weight_bias": lambda m: m.nn.functional.batch_norm(
        m.empty(0, 3), m.zeros(5), m.ones(5), m.full((3,), 2.0), m.full((3,), 0.5), training=True),
    "empty_int_input": lambda m: m.nn.functional.batch_norm(m.empty(0, 3, dtype=m.long), None, None, training=True),
    "1d_input_running_stats": lambda m: m.nn.functional.batch_norm(m.ones(3), m.ones(1), m.ones(1), training=True),
    "1d_input_no_stats": lambda m: m.nn.functional.batch_norm(m.ones(3), None, None, training=True),
    "0d_input_training": lambda m: m.nn.functional.batch_norm(m.tensor(2.0), None, None, training=True),
    "long_input": lambda m: m.nn.functional.batch_norm(m.ones(2, 3, dtype=m.long), m.zeros(3), m.ones(3)),
}


MIXED = [("float64", "float32", None), ("float32", "float64", None), ("float32", "float32", "float64"),
         ("float64", "float64", None)]



@pytest.mark.parametrize("name", sorted(BN))
def test_batch_norm_corners(torch, name):
    agree(torch, BN[name])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("xd,pd,wd", MIXED)
def test_batch_norm_mixed_dtypes(torch, xd, pd, wd, training):
    """ATen's CPU batch_norm: parameters must share input's dtype ('mixed dtype (CPU)' errors)."""
    def fn(m):
        w = None if wd is None else m.ones(3, dtype=getattr(m, wd))
        return m.nn.functional.batch_norm(m.ones(2, 3, dtype=getattr(m, xd)), m.zeros(3, dtype=getattr(m, pd)),
                                          m.ones(3, dtype=getattr(m, pd)), w, training=training)
    agree(torch, fn)


def test_instance_norm_running_stats_of_another_dtype(torch):
    """instance_norm accepts float32 running stats with a float64 input (batch_norm alone would not)."""
    def fn(m):
        rm, rv = m.zeros(4), m.ones(4)
        x = m.arange(48, dtype=m.float64).reshape(2, 4, 6).sin()
        return m.nn.functional.instance_norm(x, rm, rv), rm, rv
    agree(torch, fn)



@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_create_graph_first_derivatives_are_the_kernels(torch, dtype):
    """create_graph=True: the three gradients carry native_layer_norm_backward's bits (NativeLayerNormBackwardBackward0
    nodes, as torch names them); second derivatives follow the composite formula, within rounding of torch's."""
    import numpy as np
    rng = np.random.default_rng(4)
    x, g = (rng.standard_normal((9, 20)).astype(dtype) for _ in range(2))
    w, b = (rng.standard_normal(20).astype(dtype) for _ in range(2))
    res = []
    for L in (core, torch):
        xi, wi, bi = (L.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
        gs = L.autograd.grad(L.nn.functional.layer_norm(xi, (20,), wi, bi), (xi, wi, bi), L.from_numpy(g),
                             create_graph=True)
        second = L.autograd.grad((gs[0] * gs[0]).sum() + (gs[1] * gs[1]).sum(), (xi, wi))
        res.append(([t.grad_fn.name() for t in gs], [t.detach().numpy() for t in gs], [t.numpy() for t in second]))
    assert res[0][0] == res[1][0]
    for a, c in zip(res[0][1], res[1][1]):
        assert np.array_equal(a.view(np.uint8), c.view(np.uint8))
    for a, c in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(a, c, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-5)
