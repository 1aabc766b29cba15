"""core/ops/nn/activation.py side by side with torch: hardtanh's argument check."""
from __future__ import annotations

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
