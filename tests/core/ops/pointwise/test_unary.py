"""The unary ops of core/ops/pointwise/unary.py (neg, abs, exp, log, sqrt, trig, sigmoid, relu, rounding,
...) against torch: float32/float64/0-d values, gradients and grad_fn names, int and bool inputs (dtype or
torch's error), empty tensors, special values, gradients at the kinks."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import same_error
from gradcheck import gradcheck
from tests.core.ops.pointwise.test_pointwise import arr, check, pos, unit


UNARY = {
    # name: (function, input maker)
    "neg": (lambda m, x: -x, arr),
    "neg_fn": (lambda m, x: m.neg(x), arr),
    "abs": (lambda m, x: x.abs(), arr),
    "abs_builtin": (lambda m, x: abs(x), arr),
    "exp": (lambda m, x: m.exp(x), arr),
    "log": (lambda m, x: m.log(x), pos),
    "sqrt": (lambda m, x: x.sqrt(), pos),
    "sin": (lambda m, x: m.sin(x), arr),
    "cos": (lambda m, x: x.cos(), arr),
    "tanh": (lambda m, x: m.tanh(x), arr),
    "sigmoid": (lambda m, x: m.sigmoid(x), arr),
    "sigmoid_method": (lambda m, x: x.sigmoid(), arr),
    "relu": (lambda m, x: m.relu(x), arr),
    "sign": (lambda m, x: m.sign(x), arr),
    "floor": (lambda m, x: m.floor(x), arr),
    "ceil": (lambda m, x: x.ceil(), arr),
    "round": (lambda m, x: m.round(x), arr),
    "round_decimals": (lambda m, x: m.round(x, decimals=1), arr),
    "trunc": (lambda m, x: m.trunc(x), arr),
    "frac": (lambda m, x: m.frac(x), arr),
    "reciprocal": (lambda m, x: m.reciprocal(x), pos),
    "square": (lambda m, x: m.square(x), arr),
    "exp2": (lambda m, x: m.exp2(x), arr),
    "expm1": (lambda m, x: m.expm1(x), arr),
    "log2": (lambda m, x: m.log2(x), pos),
    "log10": (lambda m, x: m.log10(x), pos),
    "log1p": (lambda m, x: m.log1p(x), pos),
    "rsqrt": (lambda m, x: m.rsqrt(x), pos),
    "tan": (lambda m, x: m.tan(x), unit),
    "asin": (lambda m, x: m.asin(x), unit),
    "acos": (lambda m, x: m.acos(x), unit),
    "atan": (lambda m, x: m.atan(x), arr),
    "sinh": (lambda m, x: m.sinh(x), arr),
    "cosh": (lambda m, x: m.cosh(x), arr),
    "erf": (lambda m, x: m.erf(x), arr),
}


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, np.inf, -np.inf, np.nan], dtype=np.float32)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_values_grads_and_grad_fn(torch, name):
    fn, make = UNARY[name]
    check(torch, fn, make(3, 4))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float64_and_zero_dim(torch, name):
    fn, make = UNARY[name]
    check(torch, fn, make(5, dtype=np.float64))
    check(torch, fn, make(dtype=np.float64))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_int_tensor_dtype_matches_torch(torch, name):
    fn, make = UNARY[name]
    x = np.array([[1, 2, 3], [4, 0, 7]], dtype=np.int64) if make is pos else \
        np.array([[-2, -1, 0], [1, 2, 3]], dtype=np.int64)
    if make is unit:
        x = np.array([0, 0, 1], dtype=np.int64)
    same = same_error(lambda: fn(core, core.tensor(x)), lambda: fn(torch, torch.tensor(x)))
    if same[0] is None:
        check(torch, fn, x, grad=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_bool_tensor_matches_torch(torch, name):
    fn, _ = UNARY[name]
    x = np.array([True, False, True])
    ec, et = same_error(lambda: fn(core, core.tensor(x)), lambda: fn(torch, torch.tensor(x)))
    if et is None:
        check(torch, fn, x, grad=False)
    else:
        assert str(ec) == str(et)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_empty_tensor(torch, name):
    fn, _ = UNARY[name]
    check(torch, fn, np.zeros((0, 3), np.float32))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_special_values(torch, name):
    fn, _ = UNARY[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(torch, fn, SPECIAL, grad=False)


@pytest.mark.parametrize("name,x", [("abs", [0.0, -1.0, 2.0]), ("relu", [0.0, -1.0, 2.0]),
                                    ("sqrt", [0.0, 4.0]), ("sign", [0.0, -3.0]), ("clamp", [-1.0, 0.0, 1.0, 2.0])])
def test_gradient_at_kinks_matches_torch(torch, name, x):
    fns = {"abs": lambda m, t: t.abs(), "relu": lambda m, t: t.relu(), "sqrt": lambda m, t: t.sqrt(),
           "sign": lambda m, t: t.sign(), "clamp": lambda m, t: t.clamp(0.0, 1.0)}
    check(torch, fns[name], np.array(x, np.float32))


GRADCHECK_UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal",
                   "square", "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "tan", "asin", "acos", "atan",
                   "sinh", "cosh", "erf", "frac"]



@pytest.mark.parametrize("name", GRADCHECK_UNARY)
def test_gradcheck_unary(name):
    fn, make = UNARY[name]
    x = make(2, 3, dtype=np.float64)
    if name in ("abs", "relu", "frac"):
        x = np.where(np.abs(x - np.round(x)) < 0.1, x + 0.25, x)
    assert gradcheck(lambda t: fn(core, t), x)



ZERO_GRAD = {
    "round": lambda m, x: x.round(), "round_decimals": lambda m, x: x.round(decimals=1),
    "floor": lambda m, x: x.floor(), "ceil": lambda m, x: x.ceil(), "trunc": lambda m, x: x.trunc(),
    "sign": lambda m, x: x.sign(), "sgn": lambda m, x: x.sgn(), "pow_0": lambda m, x: x.pow(0),
    "fill_": lambda m, x: x.clone().fill_(3.0), "zero_": lambda m, x: x.clone().zero_(),
    "div_trunc": lambda m, x: m.div(x, m.tensor([2.0, -3.0, 0.5, 4.0]), rounding_mode="trunc"),
    "div_floor": lambda m, x: m.div(m.tensor([2.0, -3.0, 0.5, 4.0]), x, rounding_mode="floor"),
}


@pytest.mark.parametrize("name", sorted(ZERO_GRAD))
def test_zero_gradients_are_zeros_like_grad(torch, name):
    """derivatives.yaml's zeros_like(grad): +0 everywhere, also where the incoming gradient is negative, inf or
    NaN (grad * 0 would give -0 and NaN)."""
    g = [-1.0, 2.0, float("nan"), float("-inf")]
    res = []
    for m in (torch, core):
        x = m.tensor([1.3, -2.7, 0.5, 2.0], requires_grad=True)
        (gx,) = m.autograd.grad(ZERO_GRAD[name](m, x), x, m.tensor(g))
        res.append(np.asarray((m.zeros(4) if m is torch and gx._is_zerotensor() else gx).tolist()))
    assert res[0].tobytes() == res[1].tobytes(), res
