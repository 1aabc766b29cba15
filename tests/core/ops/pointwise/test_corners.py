"""Corner cases found by differential fuzzing against torch: signs of zero, error classes."""
import numpy as np
import pytest

import core
from tests.conftest import same_error


def test_remainder_zero_keeps_dividend_sign(torch):
    a = [-3.0, 3.0, -2.5, 0.0, -0.0]
    b = [-3.0, 3.0, 2.5, -1.0, 1.0]
    rc = core.remainder(core.tensor(a), core.tensor(b))
    rt = torch.remainder(torch.tensor(a), torch.tensor(b))
    assert repr(rc) == repr(rt)
    np.testing.assert_array_equal(np.signbit(rc.numpy()), np.signbit(rt.numpy()))


def test_scalar_mod_tensor_zero_sign(torch):
    x = [-2.0, 3.0, -1.0]
    assert repr(0.0 % core.tensor(x)) == repr(0.0 % torch.tensor(x))


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_of_bool_raises(torch, fn):
    ec, et = same_error(lambda: getattr(core.tensor([True, False]), fn)(),
                        lambda: getattr(torch.tensor([True, False]), fn)())
    assert str(ec) == str(et)


@pytest.mark.parametrize("fn", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_refuse_python_numbers(torch, fn):
    ec, et = same_error(lambda: getattr(core.ones(2), fn)(2), lambda: getattr(torch.ones(2), fn)(2))
    assert str(ec) == str(et)


def test_matmul_operator_with_number_is_type_error(torch):
    same_error(lambda: core.ones(2) @ 2, lambda: torch.ones(2) @ 2)


@pytest.mark.parametrize("other", [None, "a", [1, 2], (1, 2), Ellipsis])
def test_equality_with_non_tensor_objects_is_false(torch, other):
    assert (core.tensor([1, 2]) == other) == (torch.tensor([1, 2]) == other)
    assert (core.tensor([1, 2]) != other) == (torch.tensor([1, 2]) != other)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "<", "**", "%", "&"])
def test_operators_with_unsupported_operands_raise_python_type_error(torch, op):
    import operator
    fn = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "<": operator.lt,
          "**": operator.pow, "%": operator.mod, "&": operator.and_}[op]
    ec, et = same_error(lambda: fn(core.tensor([1, 2]), None), lambda: fn(torch.tensor([1, 2]), None))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: fn(None, core.tensor([1, 2])), lambda: fn(None, torch.tensor([1, 2])))
    assert str(ec) == str(et)


def test_tensor_in_list_membership_uses_identity_for_other_objects(torch):
    assert (Ellipsis in [core.tensor([1])]) == (Ellipsis in [torch.tensor([1])]) is False
