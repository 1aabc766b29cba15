"""F.pad (core/ops/nn/padding.py) side by side with torch: circular padding with negative pads (crop first,
then wrap), values and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import core


CIRCULAR = [((-2, 3), (1, 1, 6)), ((3, -2), (1, 1, 6)), ((-1, 1, 1, -1), (1, 2, 3, 4)), ((2, -1, -1, 2), (2, 3, 4)),
            ((1, 1, -1, -1, 2, 0), (1, 1, 3, 4, 5)), ((0, -3), (1, 2, 5)), ((-2, -2), (1, 1, 6))]


@pytest.mark.parametrize("pads,shape", CIRCULAR, ids=[str(p) for p, _ in CIRCULAR])
def test_pad_circular_negative(torch, pads, shape):
    """A negative pad crops first; the other side then wraps the cropped tensor (ATen's _pad_circular):
    values and the gradient of the input."""
    x = np.random.default_rng(len(pads) + shape[-1]).standard_normal(shape)
    res = []
    for m in (core, torch):
        t = m.tensor(x, requires_grad=True)
        r = m.nn.functional.pad(t, pads, mode="circular")
        r.backward(m.tensor(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))))
        res.append((r.detach().numpy(), t.grad.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])

