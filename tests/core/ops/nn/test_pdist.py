"""pdist bit for bit with torch (one thread) for p = 0, 1, 2, inf: map2_reduce_all's vector order forward (8 floats /
4 doubles a vector, the partial last vector into the first lanes, vec_reduce_all's lane order), and
run_backward_parallel_pdist's accumulation order backward (row r: minus the pairs (i, r), then plus (r, j))."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m", [3, 8, 13, 37])
def test_pdist_bits_and_grads(torch, dtype, m):
    torch.set_num_threads(1)
    rng = np.random.default_rng(12)
    a = rng.standard_normal((15, m)).astype(dtype)
    a[3] = a[7]                                    # one pair at distance 0 (gradient 0 there)
    g = rng.standard_normal(15 * 14 // 2).astype(dtype)
    for p in (2, 1, 0, float("inf")):
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy()).requires_grad_(True)
            out = lib.pdist(x, p)
            (gx,) = lib.autograd.grad(out, x, lib.from_numpy(g.copy()))
            res.append((out.detach().numpy(), gx.numpy()))
        for o, r in zip(*res):
            assert o.dtype == r.dtype and np.array_equal(o.view(np.uint8), r.view(np.uint8))
