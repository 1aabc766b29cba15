"""sum and mean add in torch's CPU order (core/ops/reduce/_sum_order.py): results bitwise equal to torch's
(single-threaded, as conftest sets it) over sizes, tails, dims, keepdim, layouts and dtypes."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import _sum_order

pytestmark = pytest.mark.skipif(_sum_order._VEC_BYTES is None, reason="torch's sum order is modelled on x86-64")


def _data(rng, shape, dtype):
    """Values spread over 8 decades, so that the order of the additions shows in the last bits."""
    return (rng.standard_normal(shape) * 10.0 ** rng.uniform(-4, 4, shape)).astype(dtype)


def _bitwise(c, t):
    a, b = c.detach().numpy(), t.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b))
    assert np.array_equal(a[~nan].view(np.uint8), b[~nan].view(np.uint8)), (a[:4], b[:4])


SIZES = list(range(1, 140)) + [255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 4095, 4096, 4097,
                               8191, 8193, 65535, 65537, 100000, 262161, 1 << 20, 1000003]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_full_sum_of_every_size(torch, dtype):
    rng = np.random.default_rng(0)
    for n in SIZES:
        x = _data(rng, n, dtype) if dtype != "float16" else (rng.standard_normal(n) * 10).astype(dtype)
        _bitwise(core.tensor(x).sum(), torch.tensor(x).sum())


SHAPES = [(3, 5), (7, 33), (33, 7), (16, 16), (17, 100), (100, 17), (65, 129), (1024, 1024), (3, 1000),
          (1000, 3), (5, 70, 9), (2, 3, 4, 5), (8, 1, 300), (300, 2, 64), (9, 17, 65)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dims_keepdim_and_layouts(torch, shape, dtype):
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    x = _data(rng, shape, dtype) if dtype != "float16" else (rng.standard_normal(shape) * 10).astype(dtype)
    dimsets = [None, 0, -1, (0, 1)] + ([1, (0, 2), (1, 2), (0, -1), (2, 0, 1)] if len(shape) > 2 else [])
    for name, view in [("contiguous", lambda m: m), ("transposed", lambda m: m.transpose(0, -1)),
                       ("step", lambda m: m[..., ::2]), ("permuted", lambda m: m.permute(*range(m.dim())[::-1])[::2])]:
        c, t = view(core.tensor(x)), view(torch.tensor(x))
        for dims in dimsets:
            for keepdim in (False, True):
                if dims is None:
                    _bitwise(c.sum(), t.sum())
                else:
                    _bitwise(c.sum(dims, keepdim), t.sum(dims, keepdim))


MAX_RANDOM_NUMEL = 1 << 21


@pytest.mark.parametrize("seed", range(4))
def test_random_shapes_strides_and_dims(torch, seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(120):
        nd = int(rng.integers(1, 5))
        shape = [int(v) for v in rng.integers(1, 40, nd)]
        if rng.random() < 0.3:
            shape[-1] = int(rng.integers(1, 3000))
        while np.prod(shape) > MAX_RANDOM_NUMEL:   # sizes themselves are test_full_sum_of_every_size's
            shape[int(np.argmax(shape))] //= 2
        dtype = ["float32", "float64", "float16"][int(rng.integers(3))]
        x = _data(rng, shape, dtype) if dtype != "float16" else \
            (rng.standard_normal(shape) * 10.0 ** rng.uniform(-2, 2, shape)).astype(dtype)
        perm = [int(p) for p in rng.permutation(nd)]
        c, t = core.tensor(x).permute(*perm), torch.tensor(x).permute(*perm)
        if rng.random() < 0.3:
            steps = tuple(slice(None, None, int(rng.integers(1, 3))) for _ in range(nd))
            c, t = c[steps], t[steps]
        k = int(rng.integers(0, nd + 1))
        dims = [int(d) for d in rng.choice(nd, k, replace=False)]
        keepdim = bool(rng.integers(2))
        if not dims:
            _bitwise(c.sum(), t.sum())
        else:
            _bitwise(c.sum(dims, keepdim), t.sum(dims, keepdim))


@pytest.mark.parametrize("src,dst", [("float32", "float64"), ("float16", "float32"), ("float16", "float64"),
                                     ("float64", "float32"), ("int64", "float32"), ("int32", "float64")])
def test_sum_with_dtype_casts_first(torch, src, dst):
    rng = np.random.default_rng(7)
    views = [lambda m: m, lambda m: m[..., ::2], lambda m: m.transpose(0, -1)[::2]]
    for shape in [(1000,), (37, 129), (129, 37), (4, 5, 300)]:
        x = (_data(rng, shape, "float64") if "float" in src else rng.integers(-1000, 1000, shape)).astype(src)
        for view in views:                # the cast keeps a strided input's dim order, as NumPy's order="K"
            c, t = view(core.tensor(x)), view(torch.tensor(x))
            for dims in [None, 0, -1]:
                if dims is None:
                    _bitwise(c.sum(dtype=getattr(core, dst)), t.sum(dtype=getattr(torch, dst)))
                else:
                    _bitwise(c.sum(dims, dtype=getattr(core, dst)), t.sum(dims, dtype=getattr(torch, dst)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_mean_is_sum_over_n(torch, dtype):
    rng = np.random.default_rng(11)
    for shape in [(7,), (1000,), (33, 70), (5, 6, 700), (1024, 1024)]:
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        c, t = core.tensor(x, dtype=getattr(core, dtype)), torch.tensor(x, dtype=getattr(torch, dtype))
        _bitwise(c.mean(), t.mean())
        _bitwise(c.mean(0), t.mean(0))
        _bitwise(c.mean(-1, keepdim=True), t.mean(-1, keepdim=True))
        _bitwise(c.mean(dtype=core.float64), t.mean(dtype=torch.float64))
        _bitwise(c.t().mean(0) if len(shape) == 2 else c.mean(), t.t().mean(0) if len(shape) == 2 else t.mean())


def test_special_values(torch):
    cases = [np.full(100, -0.0, np.float32), np.array([-0.0], np.float32), np.full((3, 40), -0.0, np.float32),
             np.array([np.inf, -np.inf] * 20, np.float32), np.array([1e38] * 50 + [-1e38] * 50, np.float32),
             np.array([np.nan] + [1.0] * 70, np.float32), np.array([3e38, 3e38, -3e38] * 30, np.float32),
             np.array(2.5, np.float32), np.zeros((0, 5), np.float32)]
    for x in cases:
        c, t = core.tensor(x), torch.tensor(x)
        _bitwise(c.sum(), t.sum())
        if x.ndim:
            _bitwise(c.sum(0), t.sum(0))
            _bitwise(c.sum(-1, keepdim=True), t.sum(-1, keepdim=True))


def test_layouts_not_modelled_keep_values(torch):
    """Expanded (stride 0) inputs and negative NumPy strides take the previous NumPy path: same values
    within float tolerance, same shapes and dtypes."""
    x = np.random.default_rng(3).standard_normal((1, 300)).astype(np.float32)
    c, t = core.tensor(x).expand(40, 300), torch.tensor(x).expand(40, 300)
    for dims in [None, 0, 1]:
        a, b = (c.sum(), t.sum()) if dims is None else (c.sum(dims), t.sum(dims))
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)


def test_gradients_unchanged(torch):
    x = np.random.default_rng(5).standard_normal((6, 70)).astype(np.float32)
    for fn in [lambda m: m.sum(), lambda m: m.sum(1), lambda m: m.mean(0, keepdim=True) * 3, lambda m: m.mean()]:
        c = core.tensor(x, requires_grad=True)
        t = torch.tensor(x, requires_grad=True)
        oc, ot = fn(c), fn(t)
        _bitwise(oc, ot)
        assert oc.grad_fn.name() == ot.grad_fn.name()
        oc.sum().backward()
        ot.sum().backward()
        _bitwise(c.grad, t.grad)


@pytest.mark.parametrize("seed", range(3))
def test_dim0_sum_fed_in_blocks_of_rows(torch, seed):
    """_sum_order.Dim0Sum (for streamed reductions): any split into blocks of rows gives torch's sum(0)."""
    rng = np.random.default_rng(200 + seed)
    for it in range(80):
        n = int(rng.integers(2, 20)) if it % 4 == 0 else int(rng.integers(2, 3000)) if it % 3 else \
            int(rng.integers(2, 70000))
        row = (int(rng.integers(2, 100)),) if it % 5 == 0 else tuple(int(v) for v in rng.integers(1, 8, 2))
        dtype = ["float32", "float64"][it % 2]
        x = _data(rng, (n,) + row, dtype)
        s = _sum_order.Dim0Sum.create(n, row, dtype)
        if s is None:
            assert int(np.prod(row)) == 1
            continue
        r0 = 0
        while r0 < n:
            k = int(rng.integers(1, max(2, n // 3)))
            s.feed(x[r0:r0 + k])
            r0 += k
        _bitwise(core.tensor(s.result()), torch.tensor(x).sum(0))


@pytest.mark.parametrize("shape", [(), (300,), (1000, 1), (1, 300), (2, 1000, 300), (1, 1)])
def test_broadcast_gradients_are_reduced_in_torchs_sum_order(torch, shape):
    """at::sum_to reduces a broadcast operand's gradient with the sum kernel: the same bits as torch's."""
    g = np.random.default_rng(len(shape)).standard_normal((1000, 300)).astype(np.float32)
    g = np.stack([g, g]) if len(shape) == 3 else g
    res = []
    for L in (core, torch):
        b = L.zeros(shape, requires_grad=True)
        (L.tensor(g) * 1 + b).backward(L.tensor(g))
        res.append(b.grad.numpy())
    np.testing.assert_array_equal(res[0], res[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_sums_through_blocks_of_the_lane_transposition(torch, dtype):
    """Sums big enough that the cascade's first level goes through _red_transposed's ~1 MiB blocks (whole and
    partial blocks of chunks): the same folds as one reduction over the rows, and torch's bits end to end."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2 * (_sum_order._BLOCK_BYTES // (16 * 32 * 4)) + 5, 16, 32)).astype(dtype)
    assert a.nbytes > _sum_order._BLOCK_BYTES
    assert _sum_order._red_transposed(a).tobytes() == np.add.reduce(a, 1).tobytes()
    for shape, dims in [((1024, 1024), (0, 1)), ((3000, 700), (0,)), ((700, 3000), (1,)), (((1 << 20) + 37,), (0,))]:
        x = _data(rng, shape, dtype)
        _bitwise(core.tensor(x).sum(dims), torch.tensor(x).sum(dims))
