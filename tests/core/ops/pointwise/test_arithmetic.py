"""div's gradients bit for bit with torch: grad / other for self, div_tensor_other_backward's
-grad * ((self / other) / other) for other."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_div_gradients_bits(torch, dtype):
    rng = np.random.default_rng(13)
    a, b, g = (rng.standard_normal((40, 33)).astype(dtype) for _ in range(3))
    res = []
    for lib in (core, torch):
        x, y = (lib.from_numpy(v.copy()).requires_grad_(True) for v in (a, b))
        res.append(lib.autograd.grad(x / y.t().t(), (x, y), lib.from_numpy(g.copy())))
    for o, r in zip(*res):
        o, r = o.numpy(), r.numpy()
        assert np.array_equal(o.view(np.uint8), r.view(np.uint8))
