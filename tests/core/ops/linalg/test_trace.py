"""trace bit for bit with torch: trace_cpu adds the diagonal in one sequential accumulator of at::acc_type
(double for float32 and float64, float for half) from 0, rounded once."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_trace_bits(torch, dtype):
    rng = np.random.default_rng(6)
    for shape in ((32, 96), (300, 300), (7, 3), (1, 5)):
        a = (rng.standard_normal(shape) * (1 if dtype == "float16" else 1e4)).astype(dtype)
        for transpose in (False, True):
            x, t = core.from_numpy(a.copy()), torch.from_numpy(a.copy())
            if transpose:
                x, t = x.t(), t.t()
            o, r = np.atleast_1d(core.trace(x).numpy()), np.atleast_1d(t.trace().numpy())
            assert o.dtype == r.dtype and np.array_equal(o.view(np.uint8), r.view(np.uint8))
    z = -np.zeros((3, 3), dtype)      # a diagonal of -0.0 adds up to +0.0 from the accumulator's 0
    assert str(core.trace(core.from_numpy(z)).item()) == str(torch.trace(torch.from_numpy(z)).item()) == "0.0"
