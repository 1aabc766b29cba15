"""core/ops/reduce/cumulative.py against torch: cumsum / cumprod / logcumsumexp bit for bit (ATen's CPU
kernels carry one accumulator of at::acc_type along the dim, double for float32, so cancellations keep
torch's digits); diff, trapezoid and logcumsumexp values, dtypes, grads and errors."""
import warnings

import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal
from conftest import assert_same, same_error
from tests.core.ops.pointwise.test_pointwise import arr, check


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


DTYPES = ["float32", "float64", "int64", "bool"]


def _input(dtype, *shape, low=-2.0, high=2.0, seed=0):
    if dtype == "bool":
        return arr(*shape, dtype=np.bool_, seed=seed)
    if dtype == "int64":
        return arr(*shape, dtype=np.int64, low=-3, high=3, seed=seed)
    return arr(*shape, dtype=np.dtype(dtype), low=low, high=high, seed=seed)


def _compare(torch, fn, *inputs, rtol=1e-5, atol=1e-5, grad=True):
    """same_error on both; when both succeed, the full differential check (values, dtype, grads)."""
    def mk(m):
        return [m.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ec, _ = same_error(lambda: fn(core, *mk(core)), lambda: fn(torch, *mk(torch)))
        if ec is None:
            check(torch, fn, *inputs, rtol=rtol, atol=atol, grad=grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"n": 2}, {"n": 0}, {"n": 5}, {"dim": 0}, {"n": -1}])
def test_diff(torch, dtype, kw):
    _compare(torch, lambda m, x: m.diff(x, **kw), _input(dtype, 3, 4))


def test_diff_prepend_append_and_errors(torch):
    x, p = arr(2, 3, dtype=np.float64), arr(2, 1, dtype=np.float64, seed=9)
    _compare(torch, lambda m, a, b: m.diff(a, prepend=b, append=b), x, p)
    _compare(torch, lambda m, a, b: m.diff(a, dim=1, prepend=b), x, p)
    _compare(torch, lambda m, a: a.diff(), np.array(1.0))
    _compare(torch, lambda m, a, b: m.diff(a, prepend=b), arr(3, dtype=np.float64), arr(1, 1, dtype=np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_trapezoid(torch, dtype):
    y = _input(dtype, 2, 4)
    _compare(torch, lambda m, a: m.trapezoid(a), y)
    _compare(torch, lambda m, a: m.trapezoid(a, dim=0), y)
    _compare(torch, lambda m, a: m.trapezoid(a, dx=0.5), y)
    _compare(torch, lambda m, a, b: m.trapezoid(a, b), y, np.array([0.0, 0.5, 1.5, 3.0], np.float64))


def test_trapezoid_with_x_gradient_and_empty(torch):
    check(torch, lambda m, y, x: m.trapezoid(y, x), arr(3, 4, dtype=np.float64), arr(3, 4, dtype=np.float64, seed=3))
    assert_same(core.trapezoid(core.tensor(np.zeros((2, 0), np.float32))),
                torch.trapezoid(torch.tensor(np.zeros((2, 0), np.float32))))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(torch, dtype, dim):
    _compare(torch, lambda m, x: m.logcumsumexp(x, dim), _input(dtype, 3, 4))


def test_logcumsumexp_infinities(torch):
    x = np.array([[0.0, -np.inf, 1.0, np.inf], [-np.inf, -np.inf, 2.0, 3.0]], np.float64)
    assert_same(core.logcumsumexp(core.tensor(x), 1), torch.logcumsumexp(torch.tensor(x), 1))


def test_diff_of_order_zero_ignores_prepend_and_append(torch):
    x, pre, app = [[1.0, 2], [3, 5]], [[0.0, 1]], [[7.0, 7], [8, 9]]
    want = torch.diff(torch.tensor(x), 0, 0, torch.tensor(pre), torch.tensor(app))
    got = core.diff(core.tensor(x), 0, 0, core.tensor(pre), core.tensor(app))
    assert got.tolist() == want.tolist()


def test_cumsum_never_gives_negative_zero(torch):
    """ATen's accumulator starts at +0, so a running sum of -0s (or of x and -x) prints 0., not -0.; cumprod's
    gradient (a reversed cumsum) inherits it."""
    for dt in ("float32", "float64", "float16"):
        vals = [[-0.0, -0.0, 1.0, -1.0, -0.0], [-0.0, 2.0, -2.0, -0.0, -0.0]]
        ref, ours = (m.tensor(vals, dtype=getattr(m, dt)) for m in (torch, core))
        for d in (0, 1):
            assert ours.cumsum(d).numpy().tobytes() == ref.cumsum(d).numpy().tobytes()
            assert ours.t().cumsum(d).numpy().tobytes() == ref.t().cumsum(d).numpy().tobytes()
    assert core.tensor(-0.0).cumsum(0).numpy().tobytes() == torch.tensor(-0.0).cumsum(0).numpy().tobytes()
