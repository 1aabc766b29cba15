"""Differential tests for the pointwise / special ops added after the split (addcmul, hypot, erfinv,
nan_to_num, shifts, ...): values, dtypes, grad_fn names, gradients (both backward paths), errors vs torch."""
from __future__ import annotations

import warnings

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


# -- unary -------------------------------------------------------------------------------------------

UNARY = {
    # name: (function, low, high, rtol)
    "acosh": (lambda m, x: m.acosh(x), 1.05, 3.0, 1e-5),
    "arccosh": (lambda m, x: x.arccosh(), 1.05, 3.0, 1e-5),
    "asinh": (lambda m, x: m.asinh(x), -2.0, 2.0, 1e-5),
    "atanh": (lambda m, x: m.atanh(x), -0.9, 0.9, 1e-5),
    "erfc": (lambda m, x: m.erfc(x), -2.0, 2.0, 1e-5),
    "erfinv": (lambda m, x: m.erfinv(x), -0.95, 0.95, 1e-5),
    "lgamma": (lambda m, x: m.lgamma(x), 0.1, 4.0, 1e-5),
    "lgamma_neg": (lambda m, x: m.lgamma(x), -2.9, -0.1, 1e-4),
    "digamma": (lambda m, x: m.digamma(x), 0.1, 4.0, 1e-5),
    "digamma_neg": (lambda m, x: m.digamma(x), -2.9, -0.1, 1e-4),
    "sinc": (lambda m, x: m.sinc(x), -2.0, 2.0, 1e-5),
    "logit": (lambda m, x: m.logit(x), 0.05, 0.95, 1e-5),
    "logit_eps": (lambda m, x: m.logit(x, eps=0.2), 0.05, 0.95, 1e-5),
    "i0": (lambda m, x: m.i0(x), -3.0, 3.0, 1e-5),
    "deg2rad": (lambda m, x: m.deg2rad(x), -200.0, 200.0, 1e-5),
    "rad2deg": (lambda m, x: x.rad2deg(), -3.0, 3.0, 1e-5),
    "nan_to_num": (lambda m, x: m.nan_to_num(x), -2.0, 2.0, 1e-5),
    "signbit": (lambda m, x: m.signbit(x), -2.0, 2.0, 1e-5),
    "isposinf": (lambda m, x: m.isposinf(x), -2.0, 2.0, 1e-5),
    "isneginf": (lambda m, x: x.isneginf(), -2.0, 2.0, 1e-5),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(torch, name, dtype):
    fn, low, high, rtol = UNARY[name]
    _compare(torch, fn, _input(dtype, low, high), rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sgn(torch, dtype):
    """sgn of a real tensor is sign; its gradient is zero (torch returns a ZeroTensor, hence no check())."""
    x = _input(dtype, -2, 2)
    assert_same(core.sgn(core.tensor(x)), torch.sgn(torch.tensor(x)))
    if dtype.startswith("float"):
        c, t = core.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        rc, rt = core.sgn(c), torch.sgn(t)
        assert rc.grad_fn.name() == rt.grad_fn.name()
        rc.sum().backward()
        rt.sum().backward()
        assert_same(c.grad, t.grad + 0)


SPECIAL_VALUES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, np.inf, -np.inf, np.nan, 1e-8, 30.0], dtype=np.float64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["acosh", "asinh", "atanh", "erfc", "erfinv", "lgamma", "digamma", "sinc", "logit",
                                  "i0", "deg2rad", "sgn", "signbit", "isposinf", "isneginf", "nan_to_num"])
def test_unary_special_values(torch, name, dtype):
    x = SPECIAL_VALUES.astype(dtype)
    assert_same(getattr(core, name)(core.tensor(x)), getattr(torch, name)(torch.tensor(x)), rtol=1e-5, atol=1e-6)


def test_nan_to_num_arguments_and_inplace(torch):
    x = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    for kw in ({}, {"nan": 2.0}, {"posinf": 3.0, "neginf": -4.0}):
        assert_same(core.nan_to_num(core.tensor(x), **kw), torch.nan_to_num(torch.tensor(x), **kw))
    c, t = core.tensor(x), torch.tensor(x)
    assert c.nan_to_num_(nan=7.0) is c
    t.nan_to_num_(nan=7.0)
    assert_same(c, t)


def test_logit_gradient_outside_eps_and_range(torch):
    check(torch, lambda m, x: m.logit(x, 0.25), np.array([0.1, 0.3, 0.8, 0.5], np.float64))
    check(torch, lambda m, x: m.logit(x), np.array([-0.5, 0.3, 1.5], np.float64))


def test_inplace_unary_variants(torch):
    x = np.array([0.2, 0.5, 0.7], np.float64)
    for name in ("acosh_", "asinh_", "atanh_", "erfc_", "erfinv_", "lgamma_", "digamma_", "sinc_", "i0_",
                 "deg2rad_", "rad2deg_", "sgn_", "arcsinh_", "arctanh_"):
        c, t = core.tensor(x + (1 if "cosh" in name else 0)), torch.tensor(x + (1 if "cosh" in name else 0))
        getattr(c, name)()
        getattr(t, name)()
        assert_same(c, t)


# -- binary ------------------------------------------------------------------------------------------

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


# -- addcmul / addcdiv --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [1, 0.5, 2])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(torch, name, value, dtype):
    a, t1, t2 = _input(dtype, -2, 2, (2, 3), 5), _input(dtype, -2, 2, (3,), 6), _input(dtype, 0.5, 2, (2, 1), 7)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z, value=value), a, t1, t2)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_mixed_dtypes_and_inplace(torch, name):
    a = np.array([1.0, 2.0, 3.0], np.float32)
    i = np.array([1, 2, 3], np.int64)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z, value=2), a, i, i)
    # forward only: torch's own backward fails here (casting the float gradient of tensor1 to input's Long)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z), i, a, i, grad=False)
    c, t = core.tensor(a), torch.tensor(a)
    assert getattr(c, name + "_")(core.tensor(a), core.tensor(a + 1), value=0.5) is c
    getattr(t, name + "_")(torch.tensor(a), torch.tensor(a + 1), value=0.5)
    assert_same(c, t)


# -- NumPy error state (issue #15: the hot paths set it without np.errstate) ----------------------------------

def test_no_numpy_warnings_and_error_state_restored(torch):
    """inf/nan results never warn (as in PyTorch), and the caller's NumPy error state is left as it was,
    even when it is 'raise' and even after an op raised."""
    x = np.array([1.0, 0.0, -1.0, 1e30], np.float32)
    # (add/sub/mul skip the silencing for speed, so `t * 1e30` still warns in NumPy: not listed here)
    ops = [lambda m, t: t / 0, lambda m, t: m.log(t), lambda m, t: m.sqrt(t), lambda m, t: m.exp(t),
           lambda m, t: t.clamp(min=float("nan")), lambda m, t: m.lerp(t, t + t, 0.7),
           lambda m, t: t.mean(), lambda m, t: t.var(), lambda m, t: t.round(decimals=40), lambda m, t: t.pow(-1)]
    with np.errstate(all="raise"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for fn in ops:
                assert_same(fn(core, core.tensor(x)), fn(torch, torch.tensor(x)), rtol=1e-5, atol=1e-6)
        same_error(lambda: core.tensor(x) + core.ones(2), lambda: torch.tensor(x) + torch.ones(2))
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"}
    assert np.geterr()["divide"] == "warn"
