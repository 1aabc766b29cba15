"""layer_norm and group_norm bit for bit with torch (one thread): ATen's RowwiseMoments (16-vector Welford chunks
merged in a cascade, a scalar tail, lanes merged last) and the kernels' output formulas. Row lengths cross the
chunk boundaries (128 floats / 64 doubles a chunk), the cascade's levels (3, 5, 9, 17 chunks) and the tail."""
import numpy as np
import pytest

import core


@pytest.fixture
def one_thread(torch):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


def _same(a, b):
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2 + rng.standard_normal(shape[:-1] + (1,)) * 5
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [7, 100, 128, 257, 384, 700, 1031, 2180])
def test_layer_norm_bits(one_thread, dtype, n):
    torch = one_thread
    x = _data((5, n), dtype, n)
    w, b = (np.random.default_rng(n + i).standard_normal(n).astype(dtype) for i in (1, 2))
    for layout in ("contiguous", "transposed"):
        xs = x if layout == "contiguous" else np.ascontiguousarray(x.T).T
        for affine in ((), (w, None), (None, b), (w, b)):
            outs = [lib.nn.functional.layer_norm(lib.from_numpy(xs), [n], *[None if a is None else lib.from_numpy(a)
                                                                             for a in affine])
                    for lib in (core, torch)]
            _same(*outs)
    ours, ref = (lib.native_layer_norm(lib.from_numpy(x), [n], None, None, 1e-5) for lib in (core, torch))
    for a, r in zip(ours, ref):       # the saved mean and rstd too
        _same(a, r)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((4, 6, 50), 3), ((3, 4, 7, 9), 2), ((6, 8), 4), ((2, 4, 300), 2),
                                          ((2, 2, 9, 70), 1)])
def test_group_norm_bits(one_thread, dtype, shape, groups):
    torch = one_thread
    x = _data(shape, dtype, len(shape))
    c = shape[1]
    w, b = (np.random.default_rng(c + i).standard_normal(c).astype(dtype) for i in (1, 2))
    for affine in ((), (w, None), (None, b), (w, b)):
        outs = [lib.nn.functional.group_norm(lib.from_numpy(x), groups, *[None if a is None else lib.from_numpy(a)
                                                                          for a in affine])
                for lib in (core, torch)]
        _same(*outs)
    hw = int(np.prod(shape[2:]))
    ours, ref = (lib.native_group_norm(lib.from_numpy(x), None, None, shape[0], c, hw, groups, 1e-5)
                 for lib in (core, torch))
    for a, r in zip(ours, ref):
        _same(a, r)


def test_group_norm_transposed_input(one_thread):
    """A transposed 3-D input is read contiguously by torch (its memory format is not channels last)."""
    torch = one_thread
    x = _data((300, 4, 3), "float32", 9)
    outs = [lib.nn.functional.group_norm(lib.from_numpy(x).permute(2, 1, 0), 2) for lib in (core, torch)]
    _same(*outs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 7), (4, 37), (6, 300)])
def test_layer_norm_grads_bits(one_thread, dtype, shape):
    """layer_norm_backward_frame: dx from the vectorised ds / db reductions, dgamma row by row, dbeta."""
    torch = one_thread
    rng = np.random.default_rng(shape[-1])
    x, dy = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    w, b = (rng.standard_normal(shape[-1]).astype(dtype) for _ in range(2))
    for affine in ((), (w, None), (None, b), (w, b)):
        grads = []
        for lib in (core, torch):
            ins = [lib.from_numpy(x).requires_grad_(True)] + [None if a is None else lib.from_numpy(a).requires_grad_(True)
                                                               for a in affine]
            out = lib.nn.functional.layer_norm(ins[0], shape[-1:], *ins[1:])
            grads.append(lib.autograd.grad(out, [t for t in ins if t is not None], lib.from_numpy(dy)))
        for a, r in zip(*grads):
            _same(a, r)


def test_small_integer_rows(one_thread):
    """Integer-valued rows put many float64 sums exactly on float32 midpoints (exact ones: no double rounding)."""
    torch = one_thread
    x = np.arange(2 * 300, dtype=np.float32).reshape(2, 300) % 7
    for lib_args in ([300], ):
        outs = [lib.nn.functional.layer_norm(lib.from_numpy(x), lib_args) for lib in (core, torch)]
        _same(*outs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_moments_exact_fma_path(one_thread, dtype):
    """The fallback that runs every fused multiply-add through _fma.fma gives the same bits as torch."""
    from core.ops.reduce import _rowwise_moments as _moments
    torch = one_thread
    x = _data((3, 1031), dtype, 3)
    mean, var = _moments._moments(x, _moments._Fma(x.dtype, False))
    _, tm, trstd = torch.native_layer_norm(torch.from_numpy(x), [1031], None, None, 1e-5)
    assert mean.tobytes() == tm.numpy().ravel().tobytes()
    rstd = x.dtype.type(1) / np.sqrt(var + x.dtype.type(1e-5))
    assert rstd.tobytes() == trstd.numpy().ravel().tobytes()


def test_float32_inexact_midpoint_falls_back(one_thread):
    """A Welford step whose float64 sum lands on a float32 midpoint without being exact (m2 at step 2 of lane 0:
    1773.75 * t + 2**-81): the fast float32 path flags it and the checked path gives torch's bits."""
    from core.ops.reduce import _rowwise_moments as _moments
    torch = one_thread
    x = np.zeros((2, 24), np.float32)
    x[:, 8], x[:, 16] = 2.0 ** -40, 1773.75
    x[1] += np.arange(24, dtype=np.float32)
    assert _moments._moments(x, _moments._Fma(x.dtype, True), True) is None
    ours, ref = (lib.native_layer_norm(lib.from_numpy(x), [24], None, None, 1e-5) for lib in (core, torch))
    for a, r in zip(ours, ref):
        _same(a, r)


@pytest.mark.parametrize("scale", [1e-303, 1e-300, 1e300, "inf"])
def test_float64_fast_path_edges(one_thread, scale):
    """float64 rows where the fast path hands over to the checked one: deltas in the subnormal range (a power-of-two
    step's product may be inexact), operands past Dekker's split range, infinities."""
    torch = one_thread
    x = _data((3, 100), "float64", 5)
    if scale == "inf":
        x[1, 37] = np.inf
    else:
        x = x * scale
    with np.errstate(all="ignore"):
        ours, ref = (lib.native_layer_norm(lib.from_numpy(x), [100], None, None, 1e-5) for lib in (core, torch))
    for a, r in zip(ours, ref):
        _same(a, r)


@pytest.mark.parametrize("scale", [1.0, 1e300, "inf"])
def test_dgamma_rows_float64_batched_products(scale):
    """layer_norm's float64 dgamma buffer: the batched Dekker products give _fma.fma64's row-by-row bits, and hand
    over to it where a lane is not finite (fma64 keeps a * b + c there)."""
    from core.ops.pointwise import _fma
    from core.ops.reduce import _rowwise_moments as _moments
    rng = np.random.default_rng(7)
    p, q = rng.standard_normal((9, 37)), rng.standard_normal((9, 37))
    if scale == "inf":
        p[3, 5] = np.inf
    else:
        p *= scale
    buf = np.zeros(37)
    with np.errstate(all="ignore"):
        for i in range(9):
            buf = _fma.fma64(p[i], q[i], buf)
        got = _moments._fma_rows(p, q, _moments._Fma(np.dtype(np.float64), True))
    assert got.tobytes() == buf.tobytes()
