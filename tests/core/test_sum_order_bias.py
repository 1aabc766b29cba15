"""A bias gradient's sum (at::sum_to over leading dims, core/_sum_order.sum_leading): torch's bits for every
row count around the cascade's 16-row chunks and 256-row limit, column counts around the 4-vector groups, float32
and float64, signed zeros; and through the engine, the bias gradient of F.linear."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core._sum_order import sum_leading


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_leading_is_torchs_sum(torch, dtype):
    rng = np.random.default_rng(0)
    for rows in [2, 3, 15, 16, 17, 31, 32, 33, 48, 63, 255, 256, 300]:
        for cols in [2, 3, 8, 10, 16, 32, 64, 65]:
            for lead in [(rows,), (2, rows)]:
                x = (rng.standard_normal(lead + (cols,)) * rng.choice([1e-3, 1, 1e3], lead + (cols,))).astype(dtype)
                x[..., 0] = -0.0        # an all -0.0 column: torch's 0 + partial makes it +0.0
                want = torch.tensor(x).sum(tuple(range(len(lead)))).numpy()
                got = sum_leading(x, len(lead))
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (lead, cols)


def test_linear_bias_gradient_bitwise(torch):
    rng = np.random.default_rng(1)
    x, w, b, c = (rng.standard_normal(s).astype(np.float32) for s in [(32, 64), (64, 64), (64,), (32, 64)])
    grads = []
    for lib in (core, torch):     # d/dy of (y * c).sum() is c exactly: the bias gradient is c summed over rows
        bt = lib.tensor(b, requires_grad=True)
        (lib.nn.functional.linear(lib.tensor(x), lib.tensor(w), bt) * lib.tensor(c)).sum().backward()
        grads.append(bt.grad.numpy())
    assert grads[0].tobytes() == grads[1].tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_leading_planned_path_is_torchs_sum(torch, dtype):
    """The second call for a shape takes the plan made by the first (rows in whole 16-row chunks): both give
    torch's bits, directly and through np_sum_to_shape (the engine's bias gradient), with overflow silent."""
    from core.autograd.graph_node import np_sum_to_shape
    rng = np.random.default_rng(2)
    for shape in [(16, 32), (32, 64), (48, 96), (240, 32), (2, 16, 64), (32, 4, 8), (1, 64), (1, 1), (5, 1)]:
        k = len(shape) - 1
        for call in range(3):
            x = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 1e3], shape)).astype(dtype)
            x[..., 0] = -0.0
            if call == 2 and shape[-1] > 1:
                x[..., -1] = np.finfo(dtype).max      # overflows to inf, as torch, without a warning
            want = torch.tensor(x).sum(tuple(range(k))).numpy()
            with np.errstate(all="raise"):
                got = sum_leading(x, k).reshape(want.shape)
                via = np_sum_to_shape(x, shape[k:])
            assert got.tobytes() == want.tobytes() and via.tobytes() == want.tobytes(), (shape, call)
            assert via.shape == shape[k:]


def test_planned_sum_only_where_the_plan_fits(torch):
    """np_sum_to_shape takes a shape's plan only for the same kept shape and strides: after (32, 64) -> (64,) and
    (32, 4, 16) -> (4, 16) are planned, other targets and a transposed input of the same shape keep torch's bits
    and the target's shape."""
    from core.autograd.graph_node import np_sum_to_shape
    rng = np.random.default_rng(3)
    x2 = rng.standard_normal((32, 64)).astype(np.float32)
    x3 = rng.standard_normal((32, 4, 16)).astype(np.float32)
    xt = np.ascontiguousarray(rng.standard_normal((64, 32)).astype(np.float32)).T     # (32, 64), Fortran order
    for _ in range(2):                  # the first call plans, the second takes the plan
        for x, shape, dims in [(x2, (64,), (0,)), (x3, (4, 16), (0,)), (x2, (1, 64), (0,)), (x2, (1,), (0, 1)),
                               (x3, (1, 16), (0, 1)), (xt, (64,), (0,))]:
            got = np_sum_to_shape(x, shape)
            want = torch.tensor(x).sum(dims).reshape(shape).numpy()
            assert got.shape == shape and got.tobytes() == want.tobytes(), (x.shape, x.strides, shape)
