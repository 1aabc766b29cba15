"""core/ops/pointwise/binary_math.py against torch: hypot, logaddexp(2), copysign, heaviside, fmax/fmin, gcd,
lcm, ldexp, xlogy, the bitwise shifts and isin: values, dtypes (mixed too), grad_fn names, gradients, Python
numbers, special values, in-place variants, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from tests.core.ops.pointwise.test_pointwise import arr, check


DTYPES = ["float32", "float64", "int64", "bool"]


def _input(dtype, low, high, shape=(2, 3), seed=0):
    if dtype == "bool":
        return arr(*shape, dtype=np.bool_, seed=seed)
    if dtype == "int64":
        return arr(*shape, dtype=np.int64, low=max(low, -3), high=min(high, 3), seed=seed)
    return arr(*shape, dtype=np.dtype(dtype), low=low, high=high, seed=seed)


def _compare(torch, fn, *inputs, rtol=1e-5, atol=1e-6, grad=True):
    """same_error on both; when both succeed, the full differential check (values, dtype, grads)."""
    ec, _ = same_error(lambda: fn(core, *[core.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]),
                       lambda: fn(torch, *[torch.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]))
    if ec is None:
        check(torch, fn, *inputs, rtol=rtol, atol=atol, grad=grad)


BINARY = {
    "hypot": (lambda m, a, b: m.hypot(a, b), -2.0, 2.0),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), -2.0, 2.0),
    "logaddexp2": (lambda m, a, b: a.logaddexp2(b), -2.0, 2.0),
    "copysign": (lambda m, a, b: m.copysign(a, b), -2.0, 2.0),
    "heaviside": (lambda m, a, b: m.heaviside(a, b), -2.0, 2.0),
    "fmax": (lambda m, a, b: m.fmax(a, b), -2.0, 2.0),
    "fmin": (lambda m, a, b: a.fmin(b), -2.0, 2.0),
    "gcd": (lambda m, a, b: m.gcd(a, b), -6.0, 6.0),
    "lcm": (lambda m, a, b: m.lcm(a, b), -6.0, 6.0),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), -2.0, 2.0),
    "xlogy": (lambda m, a, b: m.xlogy(a, b), 0.1, 2.0),
    "lshift": (lambda m, a, b: m.bitwise_left_shift(a, b), 0.0, 3.0),
    "rshift": (lambda m, a, b: m.bitwise_right_shift(a, b), 0.0, 3.0),
    "lshift_op": (lambda m, a, b: a << b, 0.0, 3.0),
    "rshift_op": (lambda m, a, b: a >> b, 0.0, 3.0),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(torch, name, dtype):
    fn, low, high = BINARY[name]
    _compare(torch, fn, _input(dtype, low, high, seed=1), _input(dtype, low, high, (3,), seed=2), atol=1e-5)


@pytest.mark.parametrize("pair", [("float32", "int64"), ("int64", "float64"), ("float32", "float64"),
                                  ("int64", "bool"), ("bool", "float32")])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_mixed_dtypes(torch, name, pair):
    fn, low, high = BINARY[name]
    _compare(torch, fn, _input(pair[0], low, high, seed=3), _input(pair[1], low, high, (3,), seed=4), atol=1e-5)


@pytest.mark.parametrize("name", ["copysign", "xlogy", "hypot", "fmax", "gcd", "ldexp", "bitwise_left_shift"])
@pytest.mark.parametrize("scalar", [2, -1.5])
def test_binary_with_a_python_number(torch, name, scalar):
    x = np.array([0.5, -1.0, 0.0, 2.0], np.float64)
    _compare(torch, lambda m, a: getattr(m, name)(a, scalar), x)
    _compare(torch, lambda m, a: getattr(m, name)(a, scalar), x.astype(np.int64))


def test_xlogy_scalar_self_and_special_values(torch):
    _compare(torch, lambda m, b: m.xlogy(2.0, b), np.array([0.5, 1.0, 3.0], np.float64))
    _compare(torch, lambda m, a, b: m.xlogy(a, b), np.array([0.0, 0.0, 1.0, 2.0]), np.array([np.nan, 0.0, 0.0, 3.0]))


def test_fmax_fmin_nan_and_ties(torch):
    a = np.array([np.nan, 1.0, 2.0, np.nan, 3.0], np.float64)
    b = np.array([2.0, np.nan, 2.0, np.nan, 1.0], np.float64)
    check(torch, lambda m, x, y: m.fmax(x, y), a, b)
    check(torch, lambda m, x, y: m.fmin(x, y), a, b)


def test_shift_out_of_range(torch):
    a = np.array([1, -1, 5, -8, 8], np.int64)
    s = np.array([64, 63, 70, 100, -1], np.int64)
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        assert_same(getattr(core, name)(core.tensor(a), core.tensor(s)), getattr(torch, name)(torch.tensor(a),
                                                                                               torch.tensor(s)))


def test_heaviside_nan_and_dtype_mismatch(torch):
    x = np.array([-1.0, 0.0, 2.0, np.nan], np.float32)
    v = np.array([0.5], np.float32)
    assert_same(core.heaviside(core.tensor(x), core.tensor(v)), torch.heaviside(torch.tensor(x), torch.tensor(v)))
    same_error(lambda: core.heaviside(core.tensor(x), core.tensor([1.0], dtype=core.float64)),
               lambda: torch.heaviside(torch.tensor(x), torch.tensor([1.0], dtype=torch.float64)))
    c = core.tensor(x, requires_grad=True)
    r = core.heaviside(c, core.tensor(v))
    t = torch.heaviside(torch.tensor(x, requires_grad=True), torch.tensor(v))
    assert r.grad_fn.name() == t.grad_fn.name()
    ec, et = same_error(lambda: r.sum().backward(), lambda: t.sum().backward())
    assert str(ec) == str(et)


@pytest.mark.parametrize("args", [([1, 2, 3], [2, 5]), ([1.0, 2.0, 2.5], 2), (2, [1, 2]), ([[1, 4], [3, 2]], [4, 3])])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(torch, args, invert):
    def mk(m, v):
        return m.tensor(v) if isinstance(v, list) else v
    assert_same(core.isin(mk(core, args[0]), mk(core, args[1]), invert=invert),
                torch.isin(mk(torch, args[0]), mk(torch, args[1]), invert=invert))


def test_inplace_binary_variants(torch):
    a = np.array([0.5, -1.0, 2.0], np.float64)
    b = np.array([1.5, 2.0, -0.5], np.float64)
    for name in ("hypot_", "copysign_", "xlogy_", "ldexp_"):
        c, t = core.tensor(a), torch.tensor(a)
        getattr(c, name)(core.tensor(b))
        getattr(t, name)(torch.tensor(b))
        assert_same(c, t)
    i, j = np.array([4, 6, 9], np.int64), np.array([6, 4, 3], np.int64)
    for name in ("gcd_", "lcm_", "bitwise_left_shift_", "bitwise_right_shift_", "__ilshift__", "__irshift__"):
        c, t = core.tensor(i), torch.tensor(i)
        getattr(c, name)(core.tensor(j))
        getattr(t, name)(torch.tensor(j))
        assert_same(c, t)



def test_xlogy_float32_is_glibcs_log_bit_for_bit(torch):
    """xlogy_kernel's x * std::log(y): glibc's logf for float32 (values and both gradients)."""
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((2, 40, 17)).astype(np.float32)
    x[0, :5] = 0
    y = np.abs(y)
    res = []
    for L in (core, torch):
        xi, yi = (L.from_numpy(v.copy()).requires_grad_(True) for v in (x, y))
        out = L.xlogy(xi, yi)
        res.append([out.detach().numpy()] + [g.numpy() for g in L.autograd.grad(out, (xi, yi), L.from_numpy(y))])
    for a, b in zip(*res):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
