"""Differential tests: dtypes, conversions, type promotion (result_type, promote_types, can_cast), attributes."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import core
from conftest import assert_same, same_error

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def sample(m, name, zero_dim):
    """A small tensor of dtype `name` (values safe for every dtype), 0-d or 1-d."""
    vals = [1, 0, 1] if name == "bool" else [1, 2, 3]
    data = vals[0] if zero_dim else vals
    return m.tensor(data, dtype=getattr(m, name))


# -- dtype objects ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_dtype_attributes_match_torch(torch, name):
    c, t = getattr(core, name), getattr(torch, name)
    assert repr(c) == repr(t) and str(c) == str(t)
    assert c.is_floating_point == t.is_floating_point
    assert c.is_signed == t.is_signed
    assert c.itemsize == t.itemsize
    assert c.is_complex == t.is_complex


@pytest.mark.parametrize("alias,name", [("float", "float32"), ("double", "float64"), ("long", "int64"),
                                        ("int", "int32"), ("half", "float16"), ("short", "int16")])
def test_dtype_aliases_are_the_same_object(torch, alias, name):
    assert getattr(core, alias) is getattr(core, name)
    assert getattr(torch, alias) is getattr(torch, name)


def test_default_dtype_is_float32(torch):
    assert repr(core.get_default_dtype()) == repr(torch.get_default_dtype())


def test_set_default_dtype_changes_float_inference(torch):
    for m in (core, torch):
        m.set_default_dtype(m.float64)
    try:
        for data in ([1.5], 2.0, [1, 2.5]):
            assert str(core.tensor(data).dtype) == str(torch.tensor(data).dtype)
        assert str(core.zeros(2).dtype) == str(torch.zeros(2).dtype)
        assert str(core.result_type(core.tensor([1]), 2.5)) == str(torch.result_type(torch.tensor([1]), 2.5))
    finally:
        core.set_default_dtype(core.float32)
        torch.set_default_dtype(torch.float32)


def test_set_default_dtype_rejects_integer(torch):
    same_error(lambda: core.set_default_dtype(core.int64), lambda: torch.set_default_dtype(torch.int64))


# -- conversions -----------------------------------------------------------------------------

CONVERSIONS = ["long", "float", "double", "int", "bool", "half", "short", "char", "byte"]
SOURCES = {
    "float": lambda m: m.tensor([[-1.7, 0.0, 2.5], [3.99, -0.5, 100.25]]),
    "int": lambda m: m.tensor([[-3, 0, 7], [1, 2, 120]]),
    "bool": lambda m: m.tensor([True, False, True]),
    "double": lambda m: m.tensor([1e-3, -2.5, 7.0], dtype=m.float64),
}


@pytest.mark.parametrize("src", sorted(SOURCES))
@pytest.mark.parametrize("method", CONVERSIONS)
def test_conversion_method_matches_torch(torch, src, method):
    if method == "byte" and src in ("float", "int", "double"):
        # negative values -> uint8 is undefined behaviour in C; use non-negative data
        c = getattr(SOURCES[src](core).abs(), method)()
        t = getattr(SOURCES[src](torch).abs(), method)()
    else:
        c, t = getattr(SOURCES[src](core), method)(), getattr(SOURCES[src](torch), method)()
    assert_same(c, t, rtol=1e-3)


@pytest.mark.parametrize("name", DTYPES)
def test_to_dtype_matches_torch(torch, name):
    c = core.tensor([0.0, 1.5, 2.25]).to(getattr(core, name))
    t = torch.tensor([0.0, 1.5, 2.25]).to(getattr(torch, name))
    assert_same(c, t)


def test_to_same_dtype_returns_self(torch):
    c, t = core.tensor([1.0]), torch.tensor([1.0])
    assert (c.to(core.float32) is c) == (t.to(torch.float32) is t)
    assert (c.float() is c) == (t.float() is t)
    assert (c.to(core.float32, copy=True) is c) == (t.to(torch.float32, copy=True) is t)


def test_to_other_tensor_takes_its_dtype(torch):
    c = core.tensor([1, 2]).to(core.tensor([1.0], dtype=core.float64))
    t = torch.tensor([1, 2]).to(torch.tensor([1.0], dtype=torch.float64))
    assert_same(c, t)


def test_to_device_cpu_and_keyword_dtype(torch):
    c = core.tensor([1, 2]).to("cpu", dtype=core.float16)
    t = torch.tensor([1, 2]).to("cpu", dtype=torch.float16)
    assert_same(c, t)


@pytest.mark.parametrize("name", DTYPES)
def test_legacy_type_string_matches_torch(torch, name):
    assert sample(core, name, False).type() == sample(torch, name, False).type()


@pytest.mark.parametrize("arg", ["torch.DoubleTensor", "torch.LongTensor", "torch.IntTensor", "torch.BoolTensor"])
def test_type_with_legacy_string_casts(torch, arg):
    assert_same(core.tensor([1.5, 0.0]).type(arg), torch.tensor([1.5, 0.0]).type(arg))


def test_type_with_dtype_casts(torch):
    assert_same(core.tensor([1.5, -2.0]).type(core.int32), torch.tensor([1.5, -2.0]).type(torch.int32))


def test_type_as_takes_other_dtype(torch):
    assert_same(core.tensor([1.7, 2.0]).type_as(core.tensor([1])), torch.tensor([1.7, 2.0]).type_as(torch.tensor([1])))


def test_float_to_int_truncates_toward_zero(torch):
    data = [-2.9, -0.1, 0.9, 2.5, 1e3]
    assert_same(core.tensor(data).long(), torch.tensor(data).long())


@pytest.mark.parametrize("method", ["double", "half", "float"])
def test_conversion_is_differentiable(torch, method):
    x = np.array([1.5, -2.0, 3.0], dtype=np.float32)
    g = np.array([0.5, 2.0, -1.0])
    res = []
    for m in (core, torch):
        a = m.tensor(x, requires_grad=True)
        y = getattr(a, method)()
        y.backward(m.tensor(g).to(y.dtype))
        res.append((a, y))
    (ca, cy), (ta, ty) = res
    assert (cy.grad_fn is None) == (ty.grad_fn is None)
    if ty.grad_fn is not None:
        assert cy.grad_fn.name() == ty.grad_fn.name()
    assert_same(ca.grad, ta.grad)


def test_conversion_to_int_detaches(torch):
    c = core.tensor([1.5], requires_grad=True).long()
    t = torch.tensor([1.5], requires_grad=True).long()
    assert c.requires_grad == t.requires_grad and (c.grad_fn is None) == (t.grad_fn is None)


def test_requires_grad_on_int_tensor_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]).requires_grad_(), lambda: torch.tensor([1, 2]).requires_grad_())
    assert str(ec) == str(et)


def test_set_requires_grad_attribute_on_int_tensor_raises_like_torch(torch):
    def run(m):
        t = m.tensor([1, 2])
        t.requires_grad = True
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert str(ec) == str(et)


# -- promotion: exhaustive over dtype pairs and dim / zero-dim -----------------------------------

def _ops(a, b):
    return {"add": lambda: a + b, "mul": lambda: a * b, "div": lambda: a / b}


@pytest.mark.parametrize("zero_a,zero_b", [(False, False), (False, True), (True, False), (True, True)],
                         ids=["dim-dim", "dim-zero", "zero-dim", "zero-zero"])
@pytest.mark.parametrize("name_a", DTYPES)
def test_result_type_and_op_dtypes_for_every_pair(torch, name_a, zero_a, zero_b):
    for name_b in DTYPES:
        ca, cb = sample(core, name_a, zero_a), sample(core, name_b, zero_b)
        ta, tb = sample(torch, name_a, zero_a), sample(torch, name_b, zero_b)
        assert str(core.result_type(ca, cb)) == str(torch.result_type(ta, tb)), (name_a, name_b)
        cops, tops = _ops(ca, cb), _ops(ta, tb)
        for op in cops:
            c, t = cops[op](), tops[op]()
            assert str(c.dtype) == str(t.dtype), (op, name_a, name_b)
            assert tuple(c.shape) == tuple(t.shape)
            np.testing.assert_allclose(c._data.astype(np.float64), t.numpy().astype(np.float64), rtol=1e-3)


SCALARS = [3, 2.5, True, -1, 0.0, False]


@pytest.mark.parametrize("zero", [False, True], ids=["dim", "zero"])
@pytest.mark.parametrize("name", DTYPES)
def test_result_type_with_python_scalars(torch, name, zero):
    for s in SCALARS:
        ca, ta = sample(core, name, zero), sample(torch, name, zero)
        assert str(core.result_type(ca, s)) == str(torch.result_type(ta, s)), (name, s)
        assert str(core.result_type(s, ca)) == str(torch.result_type(s, ta)), (name, s)
        for op in ("add", "mul", "div"):
            for order in (0, 1):
                args_c, args_t = ((ca, s), (ta, s)) if order == 0 else ((s, ca), (s, ta))
                c, t = _ops(*args_c)[op](), _ops(*args_t)[op]()
                assert str(c.dtype) == str(t.dtype), (op, name, s, order)
                np.testing.assert_allclose(c._data.astype(np.float64), t.numpy().astype(np.float64), rtol=1e-3)


def test_result_type_of_two_scalars(torch):
    for a, b in itertools.product([1, 2.5, True], repeat=2):
        assert str(core.result_type(a, b)) == str(torch.result_type(a, b)), (a, b)


@pytest.mark.parametrize("name_a", DTYPES)
def test_promote_types_matches_torch(torch, name_a):
    for name_b in DTYPES:
        c = core.promote_types(getattr(core, name_a), getattr(core, name_b))
        t = torch.promote_types(getattr(torch, name_a), getattr(torch, name_b))
        assert str(c) == str(t), (name_a, name_b)


@pytest.mark.parametrize("name_a", DTYPES)
def test_can_cast_matches_torch(torch, name_a):
    for name_b in DTYPES:
        c = core.can_cast(getattr(core, name_a), getattr(core, name_b))
        t = torch.can_cast(getattr(torch, name_a), getattr(torch, name_b))
        assert c == t, (name_a, name_b)


def test_int_tensor_times_python_float_is_float32(torch):
    assert_same(core.tensor([1, 2]) * 1.5, torch.tensor([1, 2]) * 1.5)


def test_int_divided_by_int_is_float32(torch):
    assert_same(core.tensor([1, 7]) / core.tensor([2, 2]), torch.tensor([1, 7]) / torch.tensor([2, 2]))


def test_zero_dim_float64_does_not_upcast_float32_tensor(torch):
    c = core.tensor([1.0, 2.0]) + core.tensor(1.0, dtype=core.float64)
    t = torch.tensor([1.0, 2.0]) + torch.tensor(1.0, dtype=torch.float64)
    assert_same(c, t)


def test_zero_dim_float_upcasts_int_tensor(torch):
    c = core.tensor([1, 2]) + core.tensor(1.0, dtype=core.float64)
    t = torch.tensor([1, 2]) + torch.tensor(1.0, dtype=torch.float64)
    assert_same(c, t)


def test_uint8_plus_int8_is_int16(torch):
    c = core.tensor([200], dtype=core.uint8) + core.tensor([-1], dtype=core.int8)
    t = torch.tensor([200], dtype=torch.uint8) + torch.tensor([-1], dtype=torch.int8)
    assert_same(c, t)


def test_uint8_overflow_wraps_like_torch(torch):
    c = core.tensor([250], dtype=core.uint8) + 10
    t = torch.tensor([250], dtype=torch.uint8) + 10
    assert_same(c, t)


# -- attributes ------------------------------------------------------------------------------

def _attr_cases(m):
    a = m.arange(24).reshape(2, 3, 4)
    return {
        "3d": a,
        "transposed": a.transpose(0, 2),
        "scalar": m.tensor(3.5),
        "empty": m.zeros(0, 3),
        "vector": m.tensor([1.0, 2.0]),
        "t_view": m.ones(2, 5).t(),
    }


@pytest.mark.parametrize("case", ["3d", "transposed", "scalar", "empty", "vector", "t_view"])
def test_shape_attributes_match_torch(torch, case):
    c, t = _attr_cases(core)[case], _attr_cases(torch)[case]
    assert tuple(c.shape) == tuple(t.shape) and repr(c.shape) == repr(t.shape)
    assert c.size() == t.size() and repr(c.size()) == repr(t.size())
    assert c.dim() == t.dim() and c.ndim == t.ndim
    assert c.numel() == t.numel()
    assert str(c.dtype) == str(t.dtype)
    assert c.stride() == t.stride()
    assert c.is_contiguous() == t.is_contiguous()
    for d in range(-max(t.dim(), 1), max(t.dim(), 1)):
        if t.dim():
            assert c.size(d) == t.size(d) and c.stride(d) == t.stride(d)


def test_size_out_of_range_raises_like_torch(torch):
    ec, et = same_error(lambda: core.zeros(2, 3).size(2), lambda: torch.zeros(2, 3).size(2))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: core.zeros(2, 3).size(-3), lambda: torch.zeros(2, 3).size(-3))
    assert str(ec) == str(et)


def test_T_of_2d_transposes(torch):
    c, t = core.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)
    assert_same(c.T, t.T)
    assert c.T.stride() == t.T.stride()


def test_T_of_1d_is_identity(torch):
    assert_same(core.arange(3).T, torch.arange(3).T)


def test_T_of_3d_reverses_dims(torch):
    c, t = core.arange(24).reshape(2, 3, 4), torch.arange(24).reshape(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(c.T, t.T)


def test_size_object_behaves_like_torch_size(torch):
    c, t = core.zeros(2, 3).shape, torch.zeros(2, 3).shape
    assert c == t and c[1:] == t[1:] and repr(c[1:]) == repr(t[1:]) and c.numel() == t.numel()
    assert isinstance(c, tuple) and str(c) == str(t)


def test_element_size_and_nbytes(torch):
    for name in DTYPES:
        c, t = sample(core, name, False), sample(torch, name, False)
        assert c.element_size() == t.element_size()
        assert c.nbytes == t.nbytes and c.itemsize == t.itemsize


def test_is_floating_point(torch):
    for name in DTYPES:
        c, t = sample(core, name, False), sample(torch, name, False)
        assert c.is_floating_point() == t.is_floating_point()
        assert core.is_floating_point(c) == torch.is_floating_point(t)


# -- in-place ops keep self's dtype: same-kind casting only --------------------------------------

INPLACE_OPS = {"add_": lambda a, b: a.add_(b), "mul_": lambda a, b: a.mul_(b), "sub_": lambda a, b: a.sub_(b),
               "div_": lambda a, b: a.div_(b)}


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
@pytest.mark.parametrize("name_a", DTYPES)
def test_inplace_dtype_rule_for_every_pair(torch, op, name_a):
    for name_b in DTYPES + [3, 2.5, True]:
        def run(m):
            a = sample(m, name_a, False)
            b = name_b if not isinstance(name_b, str) else sample(m, name_b, False)
            r = INPLACE_OPS[op](a, b)
            assert r is a
            return a
        ec, et = same_error(lambda: run(core), lambda: run(torch))
        if et is not None:
            assert str(ec) == str(et), (op, name_a, name_b)
        else:
            assert_same(run(core), run(torch), rtol=1e-3)
