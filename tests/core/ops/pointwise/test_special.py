"""core/ops/pointwise/special.py against torch: the inverse hyperbolics, erfc, erfinv, lgamma, digamma, sinc,
i0, deg2rad/rad2deg, sgn, logit, nan_to_num, signbit, isposinf/isneginf: values, dtypes, grad_fn names,
gradients, special values, in-place variants, errors."""
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


SPECIAL_VALUES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, np.inf, -np.inf, np.nan, 1e-8, 30.0], dtype=np.float64)


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



@pytest.mark.parametrize("name", ["i0e", "i1e", "i1"])
def test_scaled_bessel_across_the_series_switch_and_signed_zero(torch, name):
    """The power series below |x| = 15, Horner's asymptotic series above, on each side of the switch; I1(-0) is +0."""
    x = np.array([0.0, -0.0, 1e-300, -3.0, 14.999, 15.0, 15.001, -40.0, 700.0, np.inf, -np.inf, np.nan])
    want = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    got = getattr(core.special, name)(core.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    finite = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[finite]), np.signbit(want[finite]))
