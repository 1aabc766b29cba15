"""clamp / clamp_min / clamp_max gradients as torch's clamp_backward and clamp_backward_min_max:
where(mask, grad, 0), so masked elements get +0 even for a negative grad (grad * mask would give -0)."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("call", [
    lambda T, x, lo, hi: T.clamp(x, -0.5, 0.5), lambda T, x, lo, hi: T.clamp_min(x, 0.1),
    lambda T, x, lo, hi: T.clamp_max(x, 0.1), lambda T, x, lo, hi: T.clamp(x, lo, hi),
    lambda T, x, lo, hi: T.clamp_min(x, lo), lambda T, x, lo, hi: T.clamp_max(x, hi)])
def test_clamp_gradient_zero_signs(torch, call):
    rng = np.random.default_rng(14)
    a, lo, hi = (rng.standard_normal((9, 8)).astype(np.float32) for _ in range(3))
    g = -np.abs(rng.standard_normal((9, 8))).astype(np.float32)
    res = []
    for lib in (core, torch):
        ts = [lib.from_numpy(v.copy()).requires_grad_(True) for v in (a, lo, hi)]
        out = call(lib, *ts)
        gs = lib.autograd.grad(out, ts, lib.from_numpy(g.copy()), allow_unused=True)
        res.append([None if v is None else v.numpy() for v in gs])
    for o, r in zip(*res):
        assert (o is None) == (r is None)
        if o is not None:
            assert np.array_equal(o.view(np.uint32), r.view(np.uint32))
