"""softmax / log_softmax and their gradients bit for bit with torch (one thread), float32 and float64, along every
dim of shapes whose sizes are not multiples of the vector width, contiguous and transposed (ATen's SoftMaxKernel
order with SLEEF's exp/log: core/ops/nn/_softmax_order.py)."""
import numpy as np
import pytest

import core

SHAPES = [(5, 7), (3, 13), (4, 6, 9), (2, 3, 33), (17,), (40, 2)]


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_values_and_grads_are_torchs(torch, dtype, fn):
    torch.set_num_threads(1)
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        x = (rng.standard_normal(shape) * 3).astype(dtype)
        for transposed in (False, True):
            if transposed and len(shape) < 2:
                continue
            tx, cx = torch.from_numpy(x), core.tensor(x)
            if transposed:
                tx, cx = tx.transpose(0, -1), cx.transpose(0, -1)
            for dim in range(len(shape)):
                tx_ = tx.detach().requires_grad_()
                cx_ = cx.detach().requires_grad_()
                ty, cy = getattr(torch, fn)(tx_, dim), getattr(core, fn)(cx_, dim)
                g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
                (tg,) = torch.autograd.grad(ty, tx_, torch.from_numpy(g))
                (cg,) = core.autograd.grad(cy, cx_, core.tensor(g))
                where = (shape, transposed, dim)
                assert np.array_equal(_bits(cy.detach().numpy()), _bits(ty.detach().numpy())), where
                assert np.array_equal(_bits(cg.numpy()), _bits(tg.numpy())), where


def test_no_graph_fast_path_gives_the_same_bits(torch):
    torch.set_num_threads(1)
    x = np.random.default_rng(3).standard_normal((6, 21)).astype(np.float32)
    assert np.array_equal(core.softmax(core.tensor(x), 1).numpy(), torch.softmax(torch.from_numpy(x), 1).numpy())
    assert np.array_equal(core.log_softmax(core.tensor(x), -1).numpy(),
                          torch.log_softmax(torch.from_numpy(x), -1).numpy())
