"""Differential tests: elementwise ops (values, dtypes, shapes, grad_fn names, gradients, errors) vs torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from gradcheck import gradcheck

RNG = np.random.default_rng(1234)


def arr(*shape, dtype=np.float32, low=-2.0, high=2.0, seed=None):
    rng = np.random.default_rng(seed) if seed is not None else RNG
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    return rng.uniform(low, high, size=shape).astype(dtype)


def pos(*shape, dtype=np.float32):
    return arr(*shape, dtype=dtype, low=0.2, high=2.0)


def unit(*shape, dtype=np.float32):
    return arr(*shape, dtype=dtype, low=-0.9, high=0.9)


def build(m, inputs, grad):
    out = []
    for x in inputs:
        if isinstance(x, np.ndarray):
            t = m.tensor(x.copy())
            if grad and x.dtype.kind == "f":
                t.requires_grad_()
            out.append(t)
        else:
            out.append(x)
    return out


def check(torch, fn, *inputs, grad=True, rtol=1e-5, atol=1e-6, grtol=None, gatol=None):
    """Run fn(module, *inputs) on core and torch; compare result, grad_fn name and every input's gradient
    (core's gradients both through plain backward and through create_graph=True, i.e. both backward paths)."""
    cin, tin = build(core, inputs, grad), build(torch, inputs, grad)
    c, t = fn(core, *cin), fn(torch, *tin)
    assert_same(c, t, rtol=rtol, atol=atol)
    assert c.requires_grad == t.requires_grad
    if t.grad_fn is not None:
        assert c.grad_fn is not None and c.grad_fn.name() == t.grad_fn.name()
        g = RNG.standard_normal(tuple(t.shape))
        ec, et = same_error(lambda: t.backward(torch.tensor(g).to(t.dtype)),
                            lambda: c.backward(core.tensor(g).to(c.dtype)))
        if et is not None:
            assert str(ec) == str(et)
            return c, t
        leaves = [(ci, ti) for ci, ti in zip(cin, tin) if isinstance(ti, torch.Tensor) and ti.requires_grad]
        for ci, ti in leaves:
            assert (ci.grad is None) == (ti.grad is None)
            if ti.grad is not None:
                assert_same(ci.grad, ti.grad, rtol=grtol or rtol * 10, atol=gatol or atol * 10)
        cin2 = build(core, inputs, grad)
        c2 = fn(core, *cin2)
        xs = [x for x in cin2 if isinstance(x, core.Tensor) and x.requires_grad]
        gs = core.autograd.grad(c2, xs, core.tensor(g).to(c2.dtype), create_graph=True, allow_unused=True)
        for gc, (_, ti) in zip(gs, leaves):
            assert (gc is None) == (ti.grad is None)
            if gc is not None:
                assert_same(gc, ti.grad, rtol=grtol or rtol * 10, atol=gatol or atol * 10)
    return c, t


# -- clamp --------------------------------------------------------------------------------------------

CLAMP = {
    "min_max": lambda m, x: m.clamp(x, -0.5, 0.5),
    "min_only": lambda m, x: x.clamp(min=0.0),
    "max_only": lambda m, x: x.clamp(max=0.3),
    "clip": lambda m, x: m.clip(x, -1, 1),
    "int_bounds_on_float": lambda m, x: x.clamp(-1, 1),
    "min_gt_max": lambda m, x: x.clamp(1.0, -1.0),
    "clamp_min": lambda m, x: x.clamp_min(0.1),
    "clamp_max": lambda m, x: x.clamp_max(0.1),
}


@pytest.mark.parametrize("name", sorted(CLAMP))
def test_clamp_with_scalar_bounds(torch, name):
    check(torch, CLAMP[name], arr(4, 5))


def test_clamp_with_tensor_bounds_and_grads(torch):
    check(torch, lambda m, x, lo, hi: m.clamp(x, lo, hi), arr(3, 4), arr(4, low=-1, high=0), arr(3, 1, low=0, high=1))


def test_clamp_with_tensor_min_only(torch):
    check(torch, lambda m, x, lo: x.clamp(min=lo), arr(3, 4), arr(3, 4))


def test_clamp_int_tensor_with_float_bound_promotes(torch):
    check(torch, lambda m, x: x.clamp(0.5, 2.5), np.array([0, 1, 2, 3]), grad=False)


def test_clamp_int_tensor_with_int_bounds(torch):
    check(torch, lambda m, x: x.clamp(0, 2), np.array([-1, 1, 2, 3]), grad=False)


def test_clamp_nan_propagates(torch):
    check(torch, lambda m, x: x.clamp(0.0, 1.0), np.array([np.nan, 0.5, 2.0], np.float32), grad=False)


def test_clamp_without_bounds_raises_like_torch(torch):
    ec, et = same_error(lambda: core.clamp(core.ones(2)), lambda: torch.clamp(torch.ones(2)))
    assert str(ec) == str(et)


# -- binary arithmetic with broadcasting -----------------------------------------------------------

BINARY = {
    "add": lambda m, a, b: a + b,
    "add_fn_alpha": lambda m, a, b: m.add(a, b, alpha=2.5),
    "sub": lambda m, a, b: a - b,
    "sub_alpha": lambda m, a, b: m.sub(a, b, alpha=-3),
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "true_divide": lambda m, a, b: m.true_divide(a, b),
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
    "max_binary": lambda m, a, b: m.max(a, b),
    "min_binary": lambda m, a, b: m.min(a, b),
    "pow": lambda m, a, b: a.abs() ** b,
    "atan2": lambda m, a, b: m.atan2(a, b),
}

SHAPES = [((3, 4), (3, 4)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ()), ((), (2, 2)), ((4, 1, 3), (2, 1)),
          ((), ())]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcast_values_and_grads(torch, name, shapes):
    sa, sb = shapes
    b = arr(*sb)
    if name in ("div", "true_divide"):
        b = np.where(np.abs(b) < 0.2, 0.5, b).astype(np.float32)
    check(torch, BINARY[name], arr(*sa), b, rtol=1e-5, atol=1e-5)


SCALAR_OPS = {
    "add_r": lambda m, x: x + 2,
    "radd": lambda m, x: 2.5 + x,
    "sub_r": lambda m, x: x - 1.5,
    "rsub": lambda m, x: 3 - x,
    "mul_r": lambda m, x: x * -2,
    "rmul": lambda m, x: 0.5 * x,
    "div_r": lambda m, x: x / 4,
    "rdiv": lambda m, x: 2 / x,
    "pow_r": lambda m, x: x ** 2,
    "pow_half": lambda m, x: x.abs() ** 0.5,
    "pow_zero": lambda m, x: x ** 0,
    "pow_negative": lambda m, x: x ** -1,
    "pow_float_exp": lambda m, x: x.abs() ** 1.5,
    "rpow": lambda m, x: 2 ** x,
    "rpow_float": lambda m, x: 1.5 ** x,
    "rpow_zero_base": lambda m, x: 0 ** x,
    "floordiv_r": lambda m, x: x // 0.7,
    "rfloordiv": lambda m, x: 3 // x,
    "mod_r": lambda m, x: x % 0.7,
    "rmod": lambda m, x: 3 % x,
    "bool_scalar_add": lambda m, x: x + True,
    "sub_fn_rev_scalar": lambda m, x: m.sub(x, 2, alpha=2),
}


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
def test_tensor_with_python_scalar_and_reverse_operators(torch, name):
    check(torch, SCALAR_OPS[name], np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.25]], np.float32), atol=1e-5)


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
def test_int_tensor_with_python_scalar(torch, name):
    x = np.array([[1, -3, 2], [5, -4, 7]])
    ec, et = same_error(lambda: SCALAR_OPS[name](core, core.tensor(x)),
                        lambda: SCALAR_OPS[name](torch, torch.tensor(x)))
    if et is None:
        check(torch, SCALAR_OPS[name], x, grad=False)
    else:
        assert str(ec) == str(et)


@pytest.mark.parametrize("a_dtype,b_dtype", [("int64", "float32"), ("int32", "int64"), ("uint8", "int8"),
                                             ("float16", "float32"), ("bool", "int64"), ("bool", "float32"),
                                             ("int64", "float64"), ("float32", "float64")])
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "maximum", "minimum"])
def test_mixed_dtype_binary_promotes_like_torch(torch, op, a_dtype, b_dtype):
    fns = {"add": lambda m, a, b: a + b, "mul": lambda m, a, b: a * b, "sub": lambda m, a, b: a - b,
           "div": lambda m, a, b: a / b, "maximum": lambda m, a, b: m.maximum(a, b),
           "minimum": lambda m, a, b: m.minimum(a, b)}
    a = np.array([[1, 2, 3], [0, 1, 5]]).astype(a_dtype)
    b = np.array([2, 1, 3]).astype(b_dtype)
    ec, et = same_error(lambda: fns[op](core, core.tensor(a), core.tensor(b)),
                        lambda: fns[op](torch, torch.tensor(a), torch.tensor(b)))
    if et is not None:
        assert str(ec) == str(et)
    else:
        check(torch, fns[op], a, b, rtol=1e-3)


def test_int_div_int_is_float32(torch):
    check(torch, lambda m, a, b: a / b, np.array([1, 7, -7]), np.array([2, 2, 2]), grad=False)


def test_int_tensor_times_python_float_is_float32(torch):
    check(torch, lambda m, a: a * 1.5, np.array([1, 2, -3]), grad=False)


def test_int_div_by_zero_gives_inf_and_nan(torch):
    check(torch, lambda m, a, b: a / b, np.array([1, 0, -1]), np.array([0, 0, 0]), grad=False)


def test_float_div_by_zero(torch):
    check(torch, lambda m, a: a / 0, np.array([1.0, 0.0, -1.0], np.float32), grad=False)


# -- floor_divide, remainder, fmod, div rounding modes ----------------------------------------------

DIVMOD = {
    "floordiv": lambda m, a, b: a // b,
    "floor_divide": lambda m, a, b: m.floor_divide(a, b),
    "remainder": lambda m, a, b: m.remainder(a, b),
    "mod": lambda m, a, b: a % b,
    "fmod": lambda m, a, b: m.fmod(a, b),
    "div_trunc": lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda m, a, b: m.div(a, b, rounding_mode="floor"),
    "div_none": lambda m, a, b: m.div(a, b, rounding_mode=None),
}
NUMER = [7, -7, 7, -7, 0, 5, -5, 1]
DENOM = [3, 3, -3, -3, 3, 2, 2, 4]


@pytest.mark.parametrize("name", sorted(DIVMOD))
def test_divmod_ops_on_ints_with_negative_operands(torch, name):
    check(torch, DIVMOD[name], np.array(NUMER), np.array(DENOM), grad=False)


@pytest.mark.parametrize("name", sorted(DIVMOD))
def test_divmod_ops_on_floats_with_negative_operands(torch, name):
    a = np.array(NUMER, np.float32) + 0.5
    b = np.array(DENOM, np.float32) * 0.75
    check(torch, DIVMOD[name], a, b, atol=1e-5)


@pytest.mark.parametrize("name", sorted(DIVMOD))
def test_divmod_ops_with_scalar_divisor(torch, name):
    check(torch, lambda m, a: DIVMOD[name](m, a, -2.5), np.array(NUMER, np.float32) + 0.25, atol=1e-5)
    check(torch, lambda m, a: DIVMOD[name](m, a, 3), np.array(NUMER), grad=False)


@pytest.mark.parametrize("name", ["floordiv", "remainder", "fmod", "div_trunc", "div_floor"])
def test_int_divmod_by_zero_raises_like_torch(torch, name):
    ec, et = same_error(lambda: DIVMOD[name](core, core.tensor([1, 2]), core.tensor([1, 0])),
                        lambda: DIVMOD[name](torch, torch.tensor([1, 2]), torch.tensor([1, 0])))
    assert str(ec) == str(et)


@pytest.mark.parametrize("name", ["floordiv", "remainder", "fmod", "div_trunc", "div_floor"])
def test_float_divmod_by_zero(torch, name):
    check(torch, DIVMOD[name], np.array([1.0, -1.0, 0.0], np.float32), np.array([0.0, 0.0, 0.0], np.float32),
          grad=False)


def test_div_bad_rounding_mode_raises_like_torch(torch):
    ec, et = same_error(lambda: core.div(core.ones(2), 2, rounding_mode="round"),
                        lambda: torch.div(torch.ones(2), 2, rounding_mode="round"))
    assert str(ec) == str(et)


# -- pow edge cases ----------------------------------------------------------------------------------

def test_zero_to_the_zero_is_one(torch):
    check(torch, lambda m, a, b: a ** b, np.array([0.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32))
    check(torch, lambda m, a: a ** 0, np.array([0, 2]), grad=False)
    check(torch, lambda m, a: m.pow(a, 0.0), np.array([0.0, 2.0], np.float32))


def test_int_to_negative_int_power_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]) ** -1, lambda: torch.tensor([1, 2]) ** -1)
    assert str(ec) == str(et)


def test_int_tensor_to_negative_int_tensor_power_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]) ** core.tensor([-1, 2]),
                        lambda: torch.tensor([1, 2]) ** torch.tensor([-1, 2]))
    assert str(ec) == str(et)


def test_int_to_float_power_is_float(torch):
    check(torch, lambda m, a: a ** 0.5, np.array([1, 4, 9]), grad=False)


def test_python_int_to_int_tensor_power(torch):
    check(torch, lambda m, a: 2 ** a, np.array([0, 1, 10]), grad=False)


def test_pow_tensor_tensor_gradient_with_zero_base(torch):
    check(torch, lambda m, a, b: m.pow(a, b), np.array([0.0, 0.0, 2.0, 3.0], np.float32),
          np.array([2.0, 0.5, 1.5, 0.0], np.float32))


def test_pow_negative_base_fractional_exponent_is_nan(torch):
    check(torch, lambda m, a: a ** 0.5, np.array([-1.0, 4.0], np.float32), grad=False)


def test_float_power_is_double(torch):
    check(torch, lambda m, a: m.float_power(a, 2), np.array([1.5, -2.0], np.float32))


# -- bool arithmetic ---------------------------------------------------------------------------------

BOOL_OPS = {
    "add": lambda m, a, b: a + b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "sub": lambda m, a, b: a - b,
    "sub_scalar": lambda m, a, b: a - True,
    "neg": lambda m, a, b: -a,
    "add_int": lambda m, a, b: a + 1,
    "add_float": lambda m, a, b: a + 0.5,
    "pow": lambda m, a, b: a ** 2,
    "maximum": lambda m, a, b: m.maximum(a, b),
    "floordiv": lambda m, a, b: a // b,
    "sum": lambda m, a, b: a.sum(),
    "abs": lambda m, a, b: a.abs(),
}


@pytest.mark.parametrize("name", sorted(BOOL_OPS))
def test_bool_arithmetic_rules_match_torch(torch, name):
    a, b = np.array([True, False, True]), np.array([True, True, False])
    ec, et = same_error(lambda: BOOL_OPS[name](core, core.tensor(a), core.tensor(b)),
                        lambda: BOOL_OPS[name](torch, torch.tensor(a), torch.tensor(b)))
    if et is None:
        check(torch, BOOL_OPS[name], a, b, grad=False)
    else:
        assert str(ec) == str(et)


# -- comparisons, logical, bitwise ------------------------------------------------------------------

COMPARE = {
    "eq": lambda m, a, b: a == b, "ne": lambda m, a, b: a != b, "lt": lambda m, a, b: a < b,
    "le": lambda m, a, b: a <= b, "gt": lambda m, a, b: a > b, "ge": lambda m, a, b: a >= b,
    "eq_fn": lambda m, a, b: m.eq(a, b), "gt_method": lambda m, a, b: a.gt(b),
    "lt_scalar": lambda m, a, b: a < 1, "ge_float_scalar": lambda m, a, b: a >= 0.5,
    "reflected_scalar": lambda m, a, b: 1 < a, "eq_scalar": lambda m, a, b: a == 2,
}


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "float32"), ("int64", "int64"),
                                    ("bool", "int64"), ("float64", "int32")], ids=str)
@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_return_bool_with_broadcasting(torch, name, dtypes):
    a = np.array([[0, 1, 2], [2, 1, 0]]).astype(dtypes[0])
    b = np.array([1, 1, 2]).astype(dtypes[1])
    c, t = check(torch, COMPARE[name], a, b, grad=False)
    assert str(c.dtype) == "torch.bool"


def test_comparison_with_nan(torch):
    for op in ("eq", "ne", "lt", "ge"):
        check(torch, COMPARE[op], np.array([np.nan, 1.0], np.float32), np.array([np.nan, np.nan], np.float32),
              grad=False)


def test_comparison_of_requires_grad_tensor_has_no_grad(torch):
    c, t = check(torch, lambda m, a: a > 0, arr(3))
    assert not c.requires_grad and c.grad_fn is None


LOGICAL = {
    "and": lambda m, a, b: m.logical_and(a, b), "or": lambda m, a, b: m.logical_or(a, b),
    "xor": lambda m, a, b: m.logical_xor(a, b), "not": lambda m, a, b: m.logical_not(a),
    "and_method": lambda m, a, b: a.logical_and(b), "not_method": lambda m, a, b: b.logical_not(),
}


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("name", sorted(LOGICAL))
def test_logical_ops(torch, name, dtype):
    a = np.array([[0, 1, 2], [0, 0, -1]]).astype(dtype)
    b = np.array([1, 0, 3]).astype(dtype)
    check(torch, LOGICAL[name], a, b, grad=False)


BITWISE = {
    "and": lambda m, a, b: a & b, "or": lambda m, a, b: a | b, "xor": lambda m, a, b: a ^ b,
    "invert": lambda m, a, b: ~a, "and_fn": lambda m, a, b: m.bitwise_and(a, b),
    "not_fn": lambda m, a, b: m.bitwise_not(b), "and_scalar": lambda m, a, b: a & 6,
    "ror_scalar": lambda m, a, b: 3 | a,
}


@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8", "int32"])
@pytest.mark.parametrize("name", sorted(BITWISE))
def test_bitwise_ops(torch, name, dtype):
    a = np.array([[0, 1, 2], [5, 3, 7]]).astype(dtype)
    b = np.array([1, 3, 6]).astype(dtype)
    check(torch, BITWISE[name], a, b, grad=False)


@pytest.mark.parametrize("name", sorted(BITWISE))
def test_bitwise_on_float_raises_like_torch(torch, name):
    ec, et = same_error(lambda: BITWISE[name](core, core.ones(2), core.ones(2)),
                        lambda: BITWISE[name](torch, torch.ones(2), torch.ones(2)))
    assert str(ec) == str(et)


# -- where, lerp -------------------------------------------------------------------------------------

def _cond():
    return np.array([[True, False, True], [False, False, True]])


WHERE = {
    "tensors": lambda m, c, a, b: m.where(c, a, b),
    "scalar_other": lambda m, c, a, b: m.where(c, a, 0.0),
    "scalar_input": lambda m, c, a, b: m.where(c, 1.5, b),
    "int_scalar_other": lambda m, c, a, b: m.where(c, a, 2),
    "method": lambda m, c, a, b: a.where(c, b),
}


@pytest.mark.parametrize("name", sorted(WHERE))
def test_where_values_and_grads(torch, name):
    check(torch, WHERE[name], _cond(), arr(2, 3), arr(3))


def test_where_both_scalars(torch):
    check(torch, lambda m, c: m.where(c, 1.0, 0.0), _cond(), grad=False)
    check(torch, lambda m, c: m.where(c, 1, 0), _cond(), grad=False)


def test_where_mixed_dtypes_promote(torch):
    check(torch, lambda m, c, a, b: m.where(c, a, b), _cond(), np.array([1, 2, 3]), arr(2, 3))
    check(torch, lambda m, c, a: m.where(c, a, 0.5), _cond(), np.array([1, 2, 3]), grad=False)


def test_where_broadcasts_condition(torch):
    check(torch, lambda m, c, a, b: m.where(c, a, b), np.array([[True], [False]]), arr(1, 3), arr(2, 1))


def test_where_non_bool_condition_raises_like_torch(torch):
    ec, et = same_error(lambda: core.where(core.tensor([1, 0]), core.ones(2), core.zeros(2)),
                        lambda: torch.where(torch.tensor([1, 0]), torch.ones(2), torch.zeros(2)))
    assert str(ec) == str(et)


def test_where_shape_mismatch_raises_like_torch(torch):
    ec, et = same_error(lambda: core.where(core.tensor([True, False]), core.ones(3), core.zeros(3)),
                        lambda: torch.where(torch.tensor([True, False]), torch.ones(3), torch.zeros(3)))
    assert str(ec) == str(et)


def test_lerp_scalar_weight(torch):
    check(torch, lambda m, a, b: m.lerp(a, b, 0.3), arr(2, 3), arr(3))


def test_lerp_tensor_weight_grads(torch):
    check(torch, lambda m, a, b, w: m.lerp(a, b, w), arr(2, 3), arr(2, 3), arr(3, low=0, high=1))


def test_lerp_method(torch):
    check(torch, lambda m, a, b: a.lerp(b, 0.75), arr(4), arr(4))


# -- broadcasting errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "eq", "lt", "logical_and",
                                "remainder", "fmod", "atan2"])
@pytest.mark.parametrize("shapes", [((2, 3), (4,)), ((2, 3), (3, 2)), ((5,), (4,)), ((2, 1, 3), (4, 2))], ids=str)
def test_broadcast_error_message_matches_torch(torch, op, shapes):
    sa, sb = shapes
    ec, et = same_error(lambda: getattr(core, op)(core.ones(sa), core.ones(sb)),
                        lambda: getattr(torch, op)(torch.ones(sa), torch.ones(sb)))
    assert isinstance(ec, RuntimeError)
    assert str(ec) == str(et)


def test_broadcast_error_names_sizes_and_dimension():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) "
                                           r"at non-singleton dimension 1"):
        core.ones(2, 3) + core.ones(4)


@pytest.mark.parametrize("bad", ["string", "list", "none"])
def test_bad_operand_type_raises_like_torch(torch, bad):
    other = {"string": "a", "list": [1, 2], "none": None}[bad]
    for op in ("add", "mul", "sub", "div"):
        same_error(lambda: getattr(core, op)(core.ones(2), other), lambda: getattr(torch, op)(torch.ones(2), other))


# -- in-place variants --------------------------------------------------------------------------------

INPLACE = {
    "add_": lambda t, o: t.add_(o), "add_alpha": lambda t, o: t.add_(o, alpha=2), "sub_": lambda t, o: t.sub_(o),
    "mul_": lambda t, o: t.mul_(o), "div_": lambda t, o: t.div_(o), "pow_": lambda t, o: t.abs_().pow_(o),
    "iadd": lambda t, o: t.__iadd__(o), "isub": lambda t, o: t.__isub__(o), "imul": lambda t, o: t.__imul__(o),
    "itruediv": lambda t, o: t.__itruediv__(o), "clamp_": lambda t, o: t.clamp_(-0.5, 0.5),
    "exp_": lambda t, o: t.exp_(), "neg_": lambda t, o: t.neg_(), "sigmoid_": lambda t, o: t.sigmoid_(),
    "tanh_": lambda t, o: t.tanh_(), "relu_": lambda t, o: t.relu_(), "abs_": lambda t, o: t.abs_(),
    "sqrt_": lambda t, o: t.abs_().sqrt_(), "maximum_via_clamp_min_": lambda t, o: t.clamp_(min=0.1),
    "floor_divide_": lambda t, o: t.floor_divide_(o), "remainder_": lambda t, o: t.remainder_(o),
    "fmod_": lambda t, o: t.fmod_(o), "round_": lambda t, o: t.round_(), "zero_": lambda t, o: t.zero_(),
    "fill_": lambda t, o: t.fill_(1.5), "copy_": lambda t, o: t.copy_(o),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_ops_modify_self_and_return_it(torch, name):
    a, b = arr(2, 3), arr(3, low=0.5, high=2)
    res = []
    for m in (core, torch):
        t = m.tensor(a.copy())
        r = INPLACE[name](t, m.tensor(b.copy()))
        assert r is t
        res.append(t)
    assert_same(res[0], res[1], atol=1e-5)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_ops_on_non_leaf_record_grads(torch, name):
    a, b = arr(2, 3), arr(3, low=0.5, high=2)
    g = RNG.standard_normal((2, 3))
    res = []
    for m in (core, torch):
        x = m.tensor(a.copy(), requires_grad=True)
        o = m.tensor(b.copy(), requires_grad=True)
        y = x * 1.0
        INPLACE[name](y, o)
        res.append((x, o, y))
    (cx, co, cy), (tx, to, ty) = res
    assert cy.grad_fn.name() == ty.grad_fn.name()
    ec, et = same_error(lambda: cy.backward(core.tensor(g, dtype=core.float32)),
                        lambda: ty.backward(torch.tensor(g, dtype=torch.float32)))
    if et is not None:
        assert str(ec) == str(et)
        return
    assert_same(cx.grad, tx.grad, atol=1e-5)
    assert (co.grad is None) == (to.grad is None)
    if to.grad is not None:
        assert_same(co.grad, to.grad, atol=1e-5)


def test_inplace_int_add_float_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]).add_(1.5), lambda: torch.tensor([1, 2]).add_(1.5))
    assert isinstance(ec, RuntimeError)
    assert str(ec) == str(et) == "result type Float can't be cast to the desired output type Long"


def test_inplace_int_iadd_float_tensor_raises_like_torch(torch):
    def run(m):
        t = m.tensor([1, 2])
        t += m.tensor([0.5, 0.5])
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert str(ec) == str(et)


def test_inplace_int_div_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([4, 2]).div_(2), lambda: torch.tensor([4, 2]).div_(2))
    assert str(ec) == str(et)


def test_inplace_float_add_int_keeps_float(torch):
    c, t = core.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0])
    c.add_(core.tensor([1, 2]))
    t.add_(torch.tensor([1, 2]))
    assert_same(c, t)


def test_inplace_float32_add_float64_keeps_float32(torch):
    c, t = core.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0])
    c.mul_(core.tensor([1.0, 3.0], dtype=core.float64))
    t.mul_(torch.tensor([1.0, 3.0], dtype=torch.float64))
    assert_same(c, t)


def test_inplace_cannot_broadcast_self_raises_like_torch(torch):
    ec, et = same_error(lambda: core.ones(3).add_(core.ones(2, 3)), lambda: torch.ones(3).add_(torch.ones(2, 3)))
    assert str(ec) == str(et)


def test_inplace_on_leaf_requiring_grad_raises_like_torch(torch):
    ec, et = same_error(lambda: core.ones(3, requires_grad=True).add_(1),
                        lambda: torch.ones(3, requires_grad=True).add_(1))
    assert str(ec) == str(et)


def test_inplace_bumps_version(torch):
    c, t = core.ones(2), torch.ones(2)
    c.add_(1).mul_(2)
    t.add_(1).mul_(2)
    assert c._version == t._version


# -- out= ---------------------------------------------------------------------------------------------

OUT_OPS = {
    "add": lambda m, a, b, out: m.add(a, b, out=out), "mul": lambda m, a, b, out: m.mul(a, b, out=out),
    "sub": lambda m, a, b, out: m.sub(a, b, out=out), "div": lambda m, a, b, out: m.div(a, b, out=out),
    "exp": lambda m, a, b, out: m.exp(a, out=out), "clamp": lambda m, a, b, out: m.clamp(a, 0, 1, out=out),
    "maximum": lambda m, a, b, out: m.maximum(a, b, out=out), "pow": lambda m, a, b, out: m.pow(a, 2, out=out),
    "gt": lambda m, a, b, out: m.gt(a, b, out=out), "where": lambda m, a, b, out: m.where(a > 0, a, b, out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_OPS))
def test_out_argument_writes_and_returns_out(torch, name):
    a, b = arr(2, 3), arr(3, low=0.5, high=2)
    res = []
    for m in (core, torch):
        ta, tb = m.tensor(a), m.tensor(b)
        ref = OUT_OPS[name](m, ta, tb, None)
        out = m.empty(2, 3, dtype=ref.dtype)
        r = OUT_OPS[name](m, ta, tb, out)
        assert r is out
        res.append(out)
    assert_same(res[0], res[1])


def test_out_of_empty_tensor_is_resized(torch):
    c, t = core.empty(0), torch.empty(0)
    core.add(core.ones(2, 2), 1, out=c)
    torch.add(torch.ones(2, 2), 1, out=t)
    assert_same(c, t)


def test_out_with_lower_dtype_raises_like_torch(torch):
    ec, et = same_error(lambda: core.add(core.ones(2), 1.5, out=core.zeros(2, dtype=core.int64)),
                        lambda: torch.add(torch.ones(2), 1.5, out=torch.zeros(2, dtype=torch.int64)))
    assert str(ec) == str(et)


def test_out_with_higher_dtype_casts(torch):
    c, t = core.zeros(2, dtype=core.float64), torch.zeros(2, dtype=torch.float64)
    core.add(core.tensor([1, 2]), 1, out=c)
    torch.add(torch.tensor([1, 2]), 1, out=t)
    assert_same(c, t)


def test_out_with_requires_grad_input_raises_like_torch(torch):
    ec, et = same_error(lambda: core.mul(core.ones(2, requires_grad=True), 2, out=core.zeros(2)),
                        lambda: torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.zeros(2)))
    assert type(ec) is type(et)


# -- numerical gradient checks (float64) --------------------------------------------------------------


GRADCHECK_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b, "maximum": lambda a, b: core.maximum(a, b), "minimum": lambda a, b: core.minimum(a, b),
    "atan2": lambda a, b: core.atan2(a, b), "lerp": lambda a, b: core.lerp(a, b, 0.3),
    "lerp_tensor": lambda a, b: core.lerp(a, b, b), "where": lambda a, b: core.where(a > 1, a, b),
    "clamp_tensor": lambda a, b: core.clamp(a, min=b), "add_alpha": lambda a, b: core.add(a, b, alpha=-1.5),
    "remainder": lambda a, b: core.remainder(a, b), "fmod": lambda a, b: core.fmod(a, b),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK_BINARY))
def test_gradcheck_binary_broadcast(name):
    a = arr(2, 3, dtype=np.float64, low=0.5, high=2.0, seed=3)
    b = arr(3, dtype=np.float64, low=0.6, high=1.9, seed=4)
    assert gradcheck(GRADCHECK_BINARY[name], a, b)


@pytest.mark.parametrize("name", ["pow_scalar", "rpow", "clamp", "rdiv", "rsub"])
def test_gradcheck_scalar_forms(name):
    fns = {"pow_scalar": lambda a: a ** 2.5, "rpow": lambda a: 1.7 ** a, "clamp": lambda a: a.clamp(0.7, 1.5),
           "rdiv": lambda a: 2 / a, "rsub": lambda a: 2 - a}
    x = arr(2, 3, dtype=np.float64, low=0.5, high=2.0, seed=5)
    x = np.where(np.abs(x - 0.7) < 0.05, 0.8, x)
    x = np.where(np.abs(x - 1.5) < 0.05, 1.4, x)
    assert gradcheck(fns[name], x)


# -- hypothesis: broadcasting backward --------------------------------------------------------------

# -- argument errors ----------------------------------------------------------------------------------

ARG_ERRORS = {
    "unary_on_string": lambda m: m.exp("a"),
    "unary_on_float": lambda m: m.sigmoid(2.0),
    "alpha_string": lambda m: m.add(m.ones(2), 1, alpha="a"),
    "float_alpha_int_tensor": lambda m: m.tensor([1, 2]).add(1, alpha=2.5),
    "bool_alpha_float_result": lambda m: m.add(m.ones(2), 1, alpha=True),
    "bool_alpha_int_result": lambda m: m.sub(m.tensor([1, 2]), 1, alpha=True),
    "where_missing_other": lambda m: m.where(m.tensor([True, False]), m.ones(2)),
    "lerp_string_weight": lambda m: m.lerp(m.ones(2), m.ones(2), "a"),
    "lerp_int_tensors": lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5),
    "lerp_mixed_dtypes": lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
    "round_float_decimals": lambda m: m.ones(2).round(decimals=1.5),
    "round_int_decimals": lambda m: m.tensor([1, 2]).round(decimals=1),
    "fill_string": lambda m: m.ones(2).fill_("a"),
    "fill_1d_tensor": lambda m: m.ones(2).fill_(m.ones(2)),
    "clamp_int_inplace_float_bound": lambda m: m.tensor([1, 2]).clamp_(0.5),
    "clamp_min_int_inplace_float_bound": lambda m: m.tensor([1, 2]).clamp_min_(0.5),
    "clamp_int_inplace_tensor_bound": lambda m: m.tensor([1, 2]).clamp_(m.tensor(0.5)),
    "atan2_int_inplace": lambda m: m.tensor([1, 2]).atan2_(m.tensor([1, 2])),
    "pow_int_inplace_float": lambda m: m.tensor([1, 2]).pow_(1.5),
    "maximum_with_number": lambda m: m.maximum(m.ones(2), 1),
    "clamp_tensor_and_number": lambda m: m.clamp(m.ones(2), m.zeros(2), 1.0),
}


@pytest.mark.parametrize("case", sorted(ARG_ERRORS))
def test_argument_errors_match_torch(torch, case):
    ec, et = same_error(lambda: ARG_ERRORS[case](core), lambda: ARG_ERRORS[case](torch))
    assert et is not None
    if "\n" not in str(et):   # multi-line 'invalid combination of arguments' texts: class only
        assert str(ec) == str(et)


INPLACE_OK = {
    "logical_not_": lambda m: m.tensor([True, False]).logical_not_(),
    "logical_and_int": lambda m: m.tensor([1, 0, 2]).logical_and_(m.tensor([1, 1, 0])),
    "logical_or_": lambda m: m.tensor([True, False]).logical_or_(m.tensor([False, False])),
    "bitwise_xor_": lambda m: m.tensor([5, 3]).bitwise_xor_(m.tensor([1, 1])),
    "square_int": lambda m: m.tensor([1, -2]).square_(),
    "copy_float_into_int": lambda m: m.tensor([1, 2]).copy_(m.tensor([1.5, 2.7])),
    "fill_float_into_int": lambda m: m.tensor([1, 2]).fill_(1.5),
    "ifloordiv": lambda m: _iop(m.tensor([7, -7]), "__ifloordiv__", 2),
    "imod": lambda m: _iop(m.tensor([7.5, -7.5]), "__imod__", 2),
    "ipow": lambda m: _iop(m.tensor([1.5, 2.0]), "__ipow__", 2),
}


def _iop(t, name, other):
    r = getattr(t, name)(other)
    assert r is t
    return t


@pytest.mark.parametrize("case", sorted(INPLACE_OK))
def test_more_inplace_variants_match_torch(torch, case):
    assert_same(INPLACE_OK[case](core), INPLACE_OK[case](torch))


def test_augmented_assignment_is_in_place_on_views(torch):
    res = []
    for m in (core, torch):
        base = m.zeros(2, 3)
        row = base[0]
        row += 1
        row *= 3
        res.append(base)
    assert_same(res[0], res[1])


# -- hypothesis: broadcasting backward (defined only when hypothesis is installed) ----------------------

BCAST_OPS = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b, "maximum": lambda m, a, b: m.maximum(a, b),
    "where": lambda m, a, b: m.where(a > b, a, b),
}


try:
    from hypothesis import HealthCheck, given, settings, strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover - hypothesis absent
    given = None

if given is not None:
    @pytest.mark.parametrize("name", sorted(BCAST_OPS))
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
           seed=st.integers(0, 2 ** 16))
    def test_broadcast_backward_property(torch, name, shapes, seed):
        rng = np.random.default_rng(seed)
        sa, sb = shapes.input_shapes
        a = rng.uniform(0.5, 2.0, size=sa)
        b = rng.uniform(0.5, 2.0, size=sb)
        g = rng.standard_normal(shapes.result_shape)
        res = []
        for m in (core, torch):
            ta = m.tensor(a, requires_grad=True)
            tb = m.tensor(b, requires_grad=True)
            y = BCAST_OPS[name](m, ta, tb)
            y.backward(m.tensor(g))
            res.append((y, ta.grad, tb.grad))
        for c, t in zip(res[0], res[1]):
            assert_same(c, t, rtol=1e-10, atol=1e-12)


def test_out_of_wrong_nonempty_shape_is_resized_with_warning(torch):
    res = []
    for m in (core, torch):
        out = m.zeros(3)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            m.mul(m.ones(2, 2), 2, out=out)
        res.append(out)
    assert_same(res[0], res[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 3, -0.5, -1, -2, 3.0, -2.0])
def test_pow_by_a_scalar_uses_atens_special_kernels_bit_for_bit(torch, dtype, exponent):
    """ATen computes x ** 3 as x*x*x, x ** -2 as 1/(x*x), x ** -0.5 as 1/sqrt(x) (each step rounded):
    not powf, whose single rounding gives other last bits."""
    rng = np.random.default_rng(3)
    v = np.concatenate([rng.standard_normal(2000) * 10, [0.0, -0.0, np.inf, -np.inf, 1e-30, 3e38]]).astype(dtype)
    with np.errstate(all="ignore"):
        got, want = (core.tensor(v) ** exponent).numpy(), (torch.tensor(v) ** exponent).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [
    lambda L, t: L.relu(t), lambda L, t: t.clamp(min=0), lambda L, t: t.clamp(max=-0.0), lambda L, t: t.clamp_min(0),
    lambda L, t: L.maximum(t, L.zeros_like(t)), lambda L, t: L.minimum(t, L.zeros_like(t)),
    lambda L, t: L.maximum(L.zeros_like(t), t), lambda L, t: L.clamp(t, min=L.zeros_like(t)),
    lambda L, t: L.nn.functional.relu6(t), lambda L, t: L.nn.functional.hardtanh(t),
    lambda L, t: L.nn.functional.elu(t), lambda L, t: L.nn.functional.selu(t), lambda L, t: L.nn.functional.celu(t),
], ids=["relu", "clamp_min_kw", "clamp_max_kw", "clamp_min", "maximum", "minimum", "maximum_swapped",
        "clamp_tensor", "relu6", "hardtanh", "elu", "selu", "celu"])
def test_signed_zero_ties_keep_the_input_as_torch(torch, fn):
    """ATen's max/min keep their first operand on a tie, so -0.0 survives relu/clamp (and prints as -0.)."""
    values = [-0.0, 0.0, -1.0, 2.0, float("nan"), -1e-30]
    got, want = fn(core, core.tensor(values)).numpy(), fn(torch, torch.tensor(values)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


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

