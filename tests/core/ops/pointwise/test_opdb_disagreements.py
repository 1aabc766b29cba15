"""Disagreements PyTorch's op_db found in the pointwise family, each checked against torch side by side
(tests/harness.compare_call: values, dtypes, grad_fns, gradients, error classes)."""
from __future__ import annotations

import pytest

import core
from harness import compare_call

NAN, INF = float("nan"), float("inf")


def _agree(torch, core_fn, torch_fn, *args, **kw):
    d = compare_call(core_fn, torch_fn, args, {}, torch, **kw)
    assert not d, "; ".join(map(str, d))


def _leaf(torch, vals):
    return torch.tensor(vals, dtype=torch.float64, requires_grad=True)


NO_SCALAR_SELF = ["clamp_max", "clamp_min", "atan2", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "fmax", "fmin",
                  "fmod", "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "lcm", "gcd", "ldexp",
                  "rsub", "hypot", "nextafter"]
SCALAR_SELF = ["bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "remainder",
               "pow", "float_power"]


@pytest.mark.parametrize("name", NO_SCALAR_SELF + SCALAR_SELF)
def test_python_number_as_first_argument(torch, name):
    """torch.<op>(number, tensor) and torch.<op>(number, number): TypeError unless the op has a Scalar-self
    overload (then only number, number fails)."""
    t = torch.tensor([1, 2])
    _agree(torch, lambda a: getattr(core, name)(2, a), lambda a: getattr(torch, name)(2, a), t)
    _agree(torch, lambda a: getattr(core, name)(2, 3), lambda a: getattr(torch, name)(2, 3), t)
    _agree(torch, lambda a: getattr(core, name)(a, 2), lambda a: getattr(torch, name)(a, 2), t)


@pytest.mark.parametrize("kw", [{"rtol": -1.0}, {"atol": -1e-3}, {"rtol": 0.0, "atol": 0.0}])
def test_isclose_tolerances(torch, kw):
    x = torch.tensor([1.0, 2.0, NAN])
    y = torch.tensor([1.0, 2.0 + 1e-6, NAN])
    _agree(torch, lambda a, b: core.isclose(a, b, **kw), lambda a, b: torch.isclose(a, b, **kw), x, y)
    _agree(torch, lambda a, b: core.allclose(a, b, **kw), lambda a, b: torch.allclose(a, b, **kw), x[:2], y[:2])


def test_isclose_dtype_mismatch(torch):
    x = torch.tensor([1.0, 2.0])
    _agree(torch, core.isclose, torch.isclose, x, x.double())
    _agree(torch, core.isclose, torch.isclose, x, torch.tensor([1, 2]))


def test_zero_function(torch):
    x = _leaf(torch, [1.0, -2.0])
    _agree(torch, lambda t: core.zero_(t.clone()), lambda t: torch.zero_(t.clone()), x)


BINARY_GRADS = {
    "atan2": (lambda m, a, b: m.atan2(a, b), [0.0, 1.0, NAN, 0.0, 2.0, -0.0], [0.0, 1.0, 1.0, NAN, 2.0, 0.0]),
    "maximum": (lambda m, a, b: m.maximum(a, b), [1.0, NAN, 2.0, NAN, 3.0], [1.0, 1.0, NAN, NAN, 2.0]),
    "minimum": (lambda m, a, b: m.minimum(a, b), [1.0, NAN, 2.0, NAN, 3.0], [1.0, 1.0, NAN, NAN, 2.0]),
    "max.binary": (lambda m, a, b: m.max(a, b), [1.0, NAN, 2.0, 3.0], [1.0, 1.0, NAN, 2.0]),
    "min.binary": (lambda m, a, b: m.min(a, b), [1.0, NAN, 2.0, 3.0], [1.0, 1.0, NAN, 2.0]),
    "__rsub__": (lambda m, a, b: a.__rsub__(b), [1.0, 2.0], [3.0, 4.0]),
    "__rpow__": (lambda m, a, b: a.__rpow__(b), [1.0, 2.0, 0.5], [3.0, 0.5, 2.0]),
    "__rmod__": (lambda m, a, b: a.__rmod__(b), [1.5, 2.0, -3.0], [3.0, -5.0, 7.0]),
}


@pytest.mark.parametrize("name", sorted(BINARY_GRADS))
def test_binary_gradients_at_ties_nan_and_reflected(torch, name):
    f, a, b = BINARY_GRADS[name]
    _agree(torch, lambda x, y: f(core, x, y), lambda x, y: f(torch, x, y), _leaf(torch, a), _leaf(torch, b))


@pytest.mark.parametrize("name", ["__rsub__", "__rpow__", "__rmod__"])
def test_reflected_with_a_number(torch, name):
    _agree(torch, lambda x: getattr(x, name)(2.0), lambda x: getattr(x, name)(2.0), _leaf(torch, [1.0, 3.0]))


UNARY_GRADS = {
    "abs": lambda m, a: m.abs(a), "relu": lambda m, a: m.relu(a), "relu_method": lambda m, a: a.relu(),
    "nn.functional.relu": lambda m, a: m.nn.functional.relu(a),
}


@pytest.mark.parametrize("name", sorted(UNARY_GRADS))
def test_unary_gradient_at_nan(torch, name):
    f = UNARY_GRADS[name]
    _agree(torch, lambda x: f(core, x), lambda x: f(torch, x), _leaf(torch, [NAN, 0.0, -0.0, -2.0, 3.0, INF]))
    _agree(torch, lambda x: f(core, x), lambda x: f(torch, x),
           torch.tensor([NAN, 0.0, -2.0, 3.0], requires_grad=True))


def test_isclose_needs_tensors(torch):
    t = torch.tensor([1, 2, 3])
    _agree(torch, lambda a: core.isclose(a, 2), lambda a: torch.isclose(a, 2), t)
    _agree(torch, lambda a: core.isclose(2, a), lambda a: torch.isclose(2, a), t)
