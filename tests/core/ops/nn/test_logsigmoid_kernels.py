"""ATen's sigmoid and log_sigmoid CPU kernels (nn/_sigmoid_kernels.py) bit for bit against torch: values, the
log_sigmoid buffer's backward, contiguous and transposed, with and without a scalar tail."""
import numpy as np
import pytest

from core.ops.nn import _sigmoid_kernels as k


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (33, 20), (16, 8)])
@pytest.mark.parametrize("transposed", [False, True])
def test_kernels_are_torchs(torch, dtype, shape, transposed):
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape[::-1] if transposed else shape) * 6).astype(dtype)
    a.flat[:3] = (0.0, 120.0, -120.0)
    x = a.T if transposed else a
    tx = torch.from_numpy(a).t() if transposed else torch.from_numpy(a)
    assert np.array_equal(k.sigmoid(x), torch.sigmoid(tx).numpy())
    out, buf = k.log_sigmoid(x)
    xg = tx.clone().requires_grad_(True)
    ref = torch.nn.functional.logsigmoid(xg)
    g = rng.standard_normal(shape).astype(dtype)
    ref.backward(torch.from_numpy(g))
    assert np.array_equal(out, ref.detach().numpy())
    assert np.array_equal(k.log_sigmoid_backward(x, buf, g), xg.grad.numpy())
