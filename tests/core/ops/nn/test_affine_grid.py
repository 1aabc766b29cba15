"""F.affine_grid (core/ops/nn/affine_grid.py) against torch: the grid and its gradient bit for bit, errors
and warnings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from tests.core.ops.nn.test_small_layers import RNG


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(2, 1, 3, 4), (1, 3, 5, 1), (2, 2, 1, 1), (1, 1, 7, 9), (2, 1, 2, 3, 4),
                                  (1, 1, 1, 5, 2)])
def test_affine_grid_and_its_gradient_are_torchs_bit_for_bit(torch, dtype, align, size):
    """ATen's base grid (linspace scaled by (n - 1) / n unless align_corners) times theta^T by bmm."""
    nd = len(size) - 2
    theta = RNG.standard_normal((size[0], nd, nd + 1)).astype(dtype)
    res = []
    for L in (core, torch):
        t = L.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = L.nn.functional.affine_grid(t, size, align_corners=align)
        grid.backward(L.tensor(np.linspace(-1, 1, grid.numel()).reshape(tuple(grid.shape)).astype(dtype)))
        res.append((grid.detach().numpy(), t.grad.numpy(), grid.grad_fn.name()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3, dtype=L.int64), (1, 1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 2, 0), align_corners=False),
    lambda L: L.affine_grid_generator(L.ones(1, 2, 3), [1, 2, 2], False),
])
def test_affine_grid_errors_are_torchs(torch, call):
    msgs = []
    for L in (core, torch):
        with pytest.raises(Exception) as e:
            call(L)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("kwargs, match", [({}, "Default grid_sample and affine_grid behavior"),
                                           ({"align_corners": True}, "unit-size grids")])
def test_affine_grid_warns_as_torch(torch, kwargs, match):
    for L in (core, torch):
        with pytest.warns(UserWarning, match=match):
            L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 1, 3), **kwargs)

