"""cumsum / cumprod / logcumsumexp bit for bit with torch: ATen's CPU kernels carry one accumulator of
at::acc_type along the dim (double for float32), so cancellations keep torch's digits."""
import numpy as np
import pytest

import core


def _bits_equal(ours, ref):
    o, r = ours.detach().numpy(), ref.detach().numpy()
    assert o.dtype == r.dtype and o.shape == r.shape
    assert np.array_equal(o, r, equal_nan=True) and np.array_equal(np.signbit(o), np.signbit(r))


def test_cumsum_accumulates_float32_in_double(torch):
    ours = core.tensor([1e8, 1.0, -1e8]).cumsum(0)
    ref = torch.tensor([1e8, 1.0, -1e8]).cumsum(0)
    _bits_equal(ours, ref)
    assert str(ours) == str(ref) == "tensor([1.0000e+08, 1.0000e+08, 1.0000e+00])"


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_cumulative_bits_and_grads(torch, op, dtype, transposed):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 23)).astype(dtype) * (1 if op != "cumprod" else 0.5) + (op == "cumprod")
    g = rng.standard_normal((23, 40) if transposed else (40, 23)).astype(dtype)
    for dim in (0, 1):
        outs = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy())
            x = (x.t().contiguous().t().t() if transposed else x).requires_grad_(True)
            y = getattr(lib, op)(x, dim)
            (gx,) = lib.autograd.grad(y, x, lib.from_numpy(g))
            outs.append((y, gx))
        _bits_equal(outs[0][0], outs[1][0])
        if op != "logcumsumexp":       # its gradient goes through exp/log, whose last bits are SLEEF's in torch
            _bits_equal(outs[0][1], outs[1][1])


def test_cumulative_dtypes_and_specials(torch):
    for lib_args in ([1, 2, 3], [True, False, True]):
        _bits_equal(core.tensor(lib_args).cumsum(0), torch.tensor(lib_args).cumsum(0))
    h = [65000.0, 1000.0, -1000.0, 0.5]
    _bits_equal(core.tensor(h, dtype=core.float16).cumsum(0), torch.tensor(h, dtype=torch.float16).cumsum(0))
    _bits_equal(core.tensor([1e8, 1.0, -1e8], dtype=core.float64).cumsum(0, dtype=core.float32),
                torch.tensor([1e8, 1.0, -1e8], dtype=torch.float64).cumsum(0, dtype=torch.float32))
    inf, nan = float("inf"), float("nan")
    for v in ([inf, 1.0, -inf, nan, 2.0], [-inf, -inf, 0.0], [1.0, inf, inf], [3e38, 3e38, -3e38]):
        _bits_equal(core.tensor(v).logcumsumexp(0), torch.tensor(v).logcumsumexp(0))
        _bits_equal(core.tensor(v).cumprod(0), torch.tensor(v).cumprod(0))
    long = np.random.default_rng(0).standard_normal(3000).astype(np.float32)   # the few-long-slices path
    _bits_equal(core.from_numpy(long).logcumsumexp(0), torch.from_numpy(long).logcumsumexp(0))
