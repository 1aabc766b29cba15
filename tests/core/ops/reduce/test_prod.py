"""prod bit for bit with torch: binary_kernel_reduce_vec's order (32-lane row products for a contiguous
reduced dim, column folds for an outer one, element by element otherwise) and prod_backward's
grad * (result / input)."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "permuted"])
def test_prod_bits_and_grads(torch, dtype, layout):
    rng = np.random.default_rng(4)
    a = (rng.random((5, 70, 3)) + 0.5).astype(dtype)
    for dim, keepdim in ((None, False), (0, False), (1, True), (2, False), (-1, True)):
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy())
            if layout == "transposed":
                x = x.transpose(0, 1).contiguous().transpose(0, 1)
            elif layout == "permuted":
                x = x.permute(2, 0, 1).contiguous().permute(1, 2, 0)
            x.requires_grad_(True)
            out = x.prod() if dim is None else x.prod(dim, keepdim)
            (g,) = lib.autograd.grad(out, x, lib.ones_like(out) * 0.75)
            res.append((out, g))
        _bits_equal(res[0][0], res[1][0])
        _bits_equal(res[0][1], res[1][1])


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 0, "keepdim": True}, {"dim": -1}])
def test_prod_gradient_at_0d_zero(torch, kw):
    """prod of a 0-d zero: the gradient is 1 (core's zero-aware path indexed a 0-d array)."""
    res = []
    for m in (core, torch):
        z = m.tensor(0.0, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.prod(z, **kw), z)
        res.append(g.detach().numpy())
    np.testing.assert_array_equal(res[0], res[1])

