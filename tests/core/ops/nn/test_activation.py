"""core/ops/nn/activation.py side by side with torch: hardtanh's argument check."""
from __future__ import annotations

import numpy as np
import pytest

import core


def test_hardtanh_refuses_min_above_max(torch):
    for lib in (torch, core):
        with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
            lib.nn.functional.hardtanh(lib.ones(2), 2.0, 1.0)



@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsigmoid_is_torchs_bit_for_bit(torch, dtype):
    """log_sigmoid_cpu_kernel (SLEEF exp and log1p on every element) and its buffer-based backward."""
    import numpy as np
    x = (np.random.default_rng(2).standard_normal((13, 11)) * 8).astype(dtype)
    res = []
    for L in (core, torch):
        xi = L.from_numpy(x.copy()).requires_grad_(True)
        out = L.nn.functional.logsigmoid(xi)
        (g,) = L.autograd.grad(out, xi, L.from_numpy(x[::-1].copy()))
        res.append((out.detach().numpy(), g.numpy()))
    for a, b in zip(*res):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "hardsigmoid", "hardswish", "softshrink", "hardshrink",
                                  "threshold"])
def test_masked_gradients_are_plus_zero(torch, name):
    """ATen's `cond ? 0 : grad` kernels: the masked elements are +0 for a negative or infinite gradient too
    (grad * mask gave -0 and nan)."""
    x0 = [-3.0, -0.5, 0.0, 0.5, 3.0, 7.0, -7.0, 1.0]
    g = [-1.0, -2.0, float("-inf"), -4.0, -5.0, -6.0, float("-inf"), -8.0]
    res = []
    for m in (torch, core):
        f = getattr(m.nn.functional, name)
        x = m.tensor(x0, requires_grad=True)
        y = f(x, 0.5, 2.0) if name == "threshold" else f(x)
        (gx,) = m.autograd.grad(y, x, m.tensor(g))
        res.append(np.asarray(gx.tolist()))
    assert res[0].tobytes() == res[1].tobytes(), res


@pytest.mark.parametrize("n", [1, 7, 20, 37])
def test_hardtanh_gradient_at_nan_follows_the_lanes(torch, n):
    """NaN input: 0 in ATen's vector lanes (`(x > lo) & (x < hi) & grad`), grad in the scalar tail."""
    res = []
    for m in (torch, core):
        x = m.full((n,), float("nan"))
        x[0] = 0.5
        x.requires_grad_(True)
        for f in (m.nn.functional.hardtanh, m.nn.functional.relu6):
            (g,) = m.autograd.grad(f(x), x, m.full((n,), -2.0))
            res.append(np.asarray(g.tolist()))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(res[:2], res[2:])), res
