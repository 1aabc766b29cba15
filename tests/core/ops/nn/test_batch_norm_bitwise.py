"""batch_norm in training bit for bit with torch (one thread): ATen's per-channel statistics (double sums for
an image size > 1, a row-by-row buffer with fused multiply-adds for (N, C)), invstd in double, out = fma(x,
alpha, beta)."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 6, 5, 7), (4, 3, 10), (33, 20)])
def test_batch_norm_training_bits(torch, dtype, shape):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)     # the (N, C) kernel keeps a buffer per thread
    try:
        rng = np.random.default_rng(len(shape))
        x = rng.standard_normal(shape).astype(dtype) * 2 + 0.5
        w, b = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(2))
        for affine in (False, True):
            outs = []
            for lib in (core, torch):
                kw = {"weight": lib.from_numpy(w), "bias": lib.from_numpy(b)} if affine else {}
                rm, rv = lib.zeros(shape[1], dtype=getattr(lib, dtype)), lib.ones(shape[1], dtype=getattr(lib, dtype))
                outs.append(lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, training=True, **kw).numpy())
                outs.append(lib.nn.functional.batch_norm(lib.from_numpy(x), None, None, training=True, **kw).numpy())
            assert outs[0].tobytes() == outs[2].tobytes() and outs[1].tobytes() == outs[3].tobytes()
    finally:
        torch.set_num_threads(threads)


def _strided(base, perm):
    """base's values laid out in another dim order (perm), viewed back in base's shape: not C-contiguous."""
    return np.ascontiguousarray(base.transpose(perm)).transpose(np.argsort(perm))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,perm", [((33, 20), (1, 0)), ((8, 6, 5, 7), (0, 3, 2, 1)), ((4, 3, 10), (2, 1, 0)),
                                        ((33, 20), None), ((8, 6, 5, 7), None)])
def test_batch_norm_strided_input_and_running_stats_bits(torch, dtype, shape, perm):
    """ATen's fallback for input neither C-contiguous nor channels last (at::mean, float64 squares in iterator
    order, ((x - mean) * invstd) * w + b), and the running mean / unbiased variance with momentum."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(len(shape))
        base = rng.standard_normal(shape).astype(dtype) * 2 + 1
        x = base if perm is None else _strided(base, perm)
        c = shape[1]
        w, b, rm0 = (rng.standard_normal(c).astype(dtype) for _ in range(3))
        rv0 = rng.random(c).astype(dtype) + 0.5
        for affine in (False, True):
            outs = []
            for lib in (core, torch):
                kw = {"weight": lib.from_numpy(w), "bias": lib.from_numpy(b)} if affine else {}
                rm, rv = lib.from_numpy(rm0.copy()), lib.from_numpy(rv0.copy())
                y = lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, training=True, momentum=0.3, **kw)
                outs.append([y.numpy().tobytes(), rm.numpy().tobytes(), rv.numpy().tobytes()])
            assert outs[0] == outs[1]
    finally:
        torch.set_num_threads(threads)
