"""nansum / nanmean bit for bit with torch (one thread): SumKernel.cpp's cascade_sum<ignore_nan=true> is torch's
sum order with NaNs loaded as 0; nanmean divides it by the count of non-NaN elements."""
import itertools

import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["nansum", "nanmean"])
def test_nansum_nanmean_bits(torch, dtype, fn):
    torch.set_num_threads(1)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((9, 70, 5)).astype(dtype)
    a[rng.random(a.shape) < 0.1] = np.nan
    for perm in itertools.permutations(range(3)):
        for dim in (None, 0, 1, 2, (0, 2)):
            res = []
            for lib in (core, torch):
                x = lib.from_numpy(a.copy()).permute(*perm).requires_grad_(True)
                out = getattr(lib, fn)(x) if dim is None else getattr(lib, fn)(x, dim)
                (g,) = lib.autograd.grad(out, x, lib.ones_like(out) * 0.5)
                res.append((out, g))
            _bits_equal(res[0][0], res[1][0])
            _bits_equal(res[0][1], res[1][1])
