"""lerp / addcmul / addcdiv bit for bit with torch: ATen's CPU kernels round lerp's and addcmul's
multiply-add once (Vectorized fmadd), switch lerp's formula at |weight| 0.5, and addcdiv's tensor1 gradient
is C++'s `value / tensor2` (a true division)."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


CALLS = [("lerp", lambda T, x, y, z: T.lerp(x, y, 0.3)), ("lerp", lambda T, x, y, z: T.lerp(x, y, 0.75)),
         ("lerp", lambda T, x, y, z: T.lerp(x, y, z)), ("lerp", lambda T, x, y, z: T.lerp(x, y[:1], z)),
         ("addcmul", lambda T, x, y, z: T.addcmul(x, y, z)), ("addcmul", lambda T, x, y, z: T.addcmul(x, y, z, value=-0.3)),
         ("addcmul", lambda T, x, y, z: T.addcmul(x, y[:1], z[:, :1], value=3)),
         ("addcdiv", lambda T, x, y, z: T.addcdiv(x, y, z, value=0.3))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [7, 300])
def test_fused_formulas_bits_and_grads(torch, dtype, n):
    rng = np.random.default_rng(n)
    arrays = [rng.standard_normal((n, 9)).astype(dtype) for _ in range(3)]
    for _, call in CALLS:
        res = []
        for lib in (core, torch):
            xs = [lib.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
            out = call(lib, *xs)
            cot = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype))
            gs = lib.autograd.grad(out, xs, cot, allow_unused=True)
            res.append((out, gs))
        _bits_equal(res[0][0], res[1][0])
        for g, h in zip(res[0][1], res[1][1]):
            assert (g is None) == (h is None)
            if g is not None:
                _bits_equal(g, h)


def test_fma_rounds_once_at_a_float32_midpoint(torch):
    """1 + a * b whose float64 sum is a float32 midpoint: double rounding gives 1, one rounding 1 + 2**-23."""
    a, b = 8391483 * 2.0 ** -23, 8385734 * 2.0 ** -47
    for n in (1, 20000):                                       # the small and the chunked path
        args = [np.full(n, v, np.float32) for v in (1.0, a, b)]
        ours = core.addcmul(*(core.from_numpy(v) for v in args))
        ref = torch.addcmul(*(torch.from_numpy(v) for v in args))
        _bits_equal(ours, ref)
        assert ours[0].item() == 1 + 2.0 ** -23
