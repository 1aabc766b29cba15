"""Differential tests: tensor creation (core.tensor inference, factories, RNG, NumPy bridge, legacy ctors)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from agreement import agree
from conftest import assert_same, same_error


def both(torch, fn):
    """Run fn(module) on core and torch; return (core_result, torch_result)."""
    return fn(core), fn(torch)


def exact(c, t):
    """Same shape, dtype and bit-identical values."""
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_array_equal(np.asarray(c._data), t.detach().numpy())


# -- core.tensor dtype inference -----------------------------------------------------------

INFER_CASES = {
    "ints": lambda m: [1, 2, 3],
    "floats": lambda m: [1.0, 2.5],
    "int_and_float": lambda m: [1, 2.5],
    "bools": lambda m: [True, False],
    "bool_and_int": lambda m: [True, 2],
    "bool_and_float": lambda m: [True, 2.5],
    "nested_lists": lambda m: [[1, 2], [3, 4]],
    "nested_tuples": lambda m: ((1, 2), (3, 4)),
    "mixed_list_tuple": lambda m: [(1.0, 2), [3, 4]],
    "zero_dim_int": lambda m: 5,
    "zero_dim_float": lambda m: 5.0,
    "zero_dim_bool": lambda m: True,
    "empty_list": lambda m: [],
    "empty_nested": lambda m: [[]],
    "empty_rows": lambda m: [[], []],
    "numpy_int32": lambda m: np.array([1, 2], dtype=np.int32),
    "numpy_float64": lambda m: np.array([[1.0, 2.0]], dtype=np.float64),
    "numpy_uint8": lambda m: np.array([1, 200], dtype=np.uint8),
    "numpy_bool": lambda m: np.array([True, False]),
    "numpy_float16": lambda m: np.array([1.5], dtype=np.float16),
    "numpy_scalar_float64": lambda m: np.float64(1.5),
    "numpy_scalar_int32": lambda m: np.int32(3),
    "numpy_scalar_bool": lambda m: np.bool_(True),
    "numpy_float64_in_list": lambda m: [np.float64(1.0), 2],
    "numpy_int16_in_list": lambda m: [np.int16(1), 2],
    "numpy_arrays_in_list": lambda m: [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
    "tensors_in_list": lambda m: [m.tensor(1.0), m.tensor(2.0)],
    "int_and_float_tensors_in_list": lambda m: [m.tensor(1), m.tensor(2.0)],
    "double_tensor_and_int_in_list": lambda m: [m.tensor(1.0, dtype=m.float64), 2],
    "large_int": lambda m: [2 ** 62, 1],
    "negative_zero": lambda m: [-0.0, 0.0],
    "inf_nan": lambda m: [float("inf"), float("nan"), -float("inf")],
}


@pytest.mark.parametrize("case", sorted(INFER_CASES))
def test_tensor_infers_dtype_and_values_like_torch(torch, case):
    make = INFER_CASES[case]
    c, t = core.tensor(make(core)), torch.tensor(make(torch))
    exact(c, t)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "uint8", "float16", "int8", "int16"])
def test_tensor_with_explicit_dtype_converts(torch, dtype):
    data = [[1.7, -0.2], [0.0, 3.0]] if dtype not in ("uint8",) else [[1.7, 0.2], [0.0, 3.0]]
    exact(core.tensor(data, dtype=getattr(core, dtype)), torch.tensor(data, dtype=getattr(torch, dtype)))


def test_tensor_accepts_dtype_aliases(torch):
    for name in ("float", "double", "long", "int", "half", "short"):
        exact(core.tensor([1, 2], dtype=getattr(core, name)), torch.tensor([1, 2], dtype=getattr(torch, name)))


def test_tensor_requires_grad_makes_leaf(torch):
    c, t = core.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    assert c.requires_grad and c.is_leaf and c.grad_fn is None
    assert t.requires_grad and t.is_leaf


def test_tensor_requires_grad_on_int_raises(torch):
    ec, et = same_error(lambda: core.tensor([1, 2], requires_grad=True),
                        lambda: torch.tensor([1, 2], requires_grad=True))
    assert str(ec) == str(et)


def test_tensor_copies_numpy_input(torch):
    a = np.array([1.0, 2.0])
    c = core.tensor(a)
    a[0] = 9
    assert c.tolist() == [1.0, 2.0]


def test_tensor_from_tensor_warns_and_copies(torch):
    src = core.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="detach\\(\\)\\.clone\\(\\)"):
        c = core.tensor(src)
    c._data[0] = 5.0
    assert src.tolist() == [1.0, 2.0]


RAGGED = {
    "short_row": lambda: [[1, 2], [3]],
    "long_row": lambda: [[1], [2, 3]],
    "deep": lambda: [[[1, 2], [3, 4]], [[1, 2], [3]]],
    "empty_row": lambda: [[1, 2], []],
}


@pytest.mark.parametrize("case", sorted(RAGGED))
def test_ragged_nested_list_raises_value_error_with_torch_message(torch, case):
    ec, et = same_error(lambda: core.tensor(RAGGED[case]()), lambda: torch.tensor(RAGGED[case]()))
    assert isinstance(ec, ValueError)
    assert str(ec) == str(et)


def test_ragged_message_names_length_and_dim():
    with pytest.raises(ValueError, match=r"^expected sequence of length 2 at dim 1 \(got 1\)$"):
        core.tensor([[1, 2], [3]])


BAD_DATA = {
    "string": lambda: "abc",
    "none": lambda: None,
    "string_in_list": lambda: [1, "a"],
    "none_in_list": lambda: [None],
    "dict": lambda: {1: 2},
    "object": lambda: object(),
    "scalar_then_list": lambda: [[1, 2], 3],
    "list_then_scalar": lambda: [1, [2, 3]],
    "multi_element_tensors_in_list": lambda: [np.array([1, 2]), np.array([1])],
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
def test_bad_data_raises_like_torch(torch, case):
    same_error(lambda: core.tensor(BAD_DATA[case]()), lambda: torch.tensor(BAD_DATA[case]()))


def test_list_of_multi_element_tensors_raises_like_torch(torch):
    same_error(lambda: core.tensor([core.tensor([1, 2]), core.tensor([3, 4])]),
               lambda: torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])]))


OVERFLOW = {
    "python_int_beyond_int64": lambda m: m.tensor([1, 2 ** 64]),
    "python_int_2_63": lambda m: m.tensor([1, 2 ** 63]),
    "scalar_2_63": lambda m: m.tensor(2 ** 63),
    "int8_out_of_range": lambda m: m.tensor([200], dtype=m.int8),
    "int32_out_of_range": lambda m: m.tensor([2 ** 40], dtype=m.int32),
    "float_into_int32_out_of_range": lambda m: m.tensor([3.5e9], dtype=m.int32),
    "nan_into_int64": lambda m: m.tensor([float("nan")], dtype=m.int64),
    "uint8_300": lambda m: m.tensor([300], dtype=m.uint8),
    "uint8_negative_float": lambda m: m.tensor([-1.5], dtype=m.uint8),
}


@pytest.mark.parametrize("case", sorted(OVERFLOW))
def test_out_of_range_values_raise_like_torch(torch, case):
    ec, et = same_error(lambda: OVERFLOW[case](core), lambda: OVERFLOW[case](torch))
    assert str(ec) == str(et)


IN_RANGE = {
    "min_int64": lambda m: m.tensor([1, -2 ** 63]),
    "big_int_to_float": lambda m: m.tensor([1.0, 2 ** 64]),
    "big_int_float64_dtype": lambda m: m.tensor([2 ** 64], dtype=m.float64),
    "uint8_minus_one_wraps": lambda m: m.tensor([-1], dtype=m.uint8),
    "float_truncates_to_int": lambda m: m.tensor([1.9, -2.7], dtype=m.int64),
    "float16_overflow_is_inf": lambda m: m.tensor([70000.0], dtype=m.float16),
    "float32_overflow_is_inf": lambda m: m.tensor([1e40]),
    "bool_dtype_from_floats": lambda m: m.tensor([2, 0.5, 0], dtype=m.bool),
    "range_data": lambda m: m.tensor(range(3)),
    "list_of_ranges": lambda m: m.tensor([range(2), range(2)]),
    "tensor_row_in_list": lambda m: m.tensor([[1, 2], m.tensor([3, 4])]),
    "one_element_tensors_in_list": lambda m: m.tensor([m.tensor([1.0]), m.tensor([3.0])]),
    "empty_first_row": lambda m: m.tensor([[], [1, 2]]),
    "numpy_int8_and_uint8": lambda m: m.tensor([np.int8(1), np.uint8(2)]),
    "numpy_float16_and_float": lambda m: m.tensor([np.float16(1), 2.0]),
}


@pytest.mark.parametrize("case", sorted(IN_RANGE))
def test_edge_values_convert_like_torch(torch, case):
    exact(IN_RANGE[case](core), IN_RANGE[case](torch))


EXPLICIT_DTYPE_ERRORS = {
    "none_float": lambda m: m.tensor([None], dtype=m.float32),
    "none_int": lambda m: m.tensor([None], dtype=m.int64),
    "list_in_scalar_slot_float": lambda m: m.tensor([[1], [[2]]], dtype=m.float32),
    "list_in_scalar_slot_bool": lambda m: m.tensor([[1], [[2]]], dtype=m.bool),
    "float_tensor_as_index": lambda m: m.tensor([m.tensor([1.5, 2.0])], dtype=m.int64),
    "zero_dim_array_in_list": lambda m: m.tensor([np.array(1.5), 2]),
    "string_elements": lambda m: m.tensor(["a", None]),
    "bytes": lambda m: m.tensor(b"ab"),
}


@pytest.mark.parametrize("case", sorted(EXPLICIT_DTYPE_ERRORS))
def test_unconvertible_elements_raise_like_torch(torch, case):
    ec, et = same_error(lambda: EXPLICIT_DTYPE_ERRORS[case](core), lambda: EXPLICIT_DTYPE_ERRORS[case](torch))
    assert str(ec) == str(et)


# -- factories ---------------------------------------------------------------------------

FACTORIES = {
    "zeros_varargs": lambda m: m.zeros(2, 3),
    "zeros_tuple": lambda m: m.zeros((2, 3)),
    "zeros_list": lambda m: m.zeros([4]),
    "zeros_size": lambda m: m.zeros(m.Size([2, 1])),
    "zeros_scalar_shape": lambda m: m.zeros(()),
    "zeros_zero_len": lambda m: m.zeros(0, 3),
    "zeros_int": lambda m: m.zeros(2, dtype=m.int64),
    "ones": lambda m: m.ones(3, 2),
    "ones_bool": lambda m: m.ones(2, 2, dtype=m.bool),
    "ones_double": lambda m: m.ones(2, dtype=m.double),
    "full_float": lambda m: m.full((2, 2), 3.5),
    "full_int": lambda m: m.full((2,), 3),
    "full_bool": lambda m: m.full((2,), True),
    "full_scalar_shape": lambda m: m.full([], 7.0),
    "full_with_dtype": lambda m: m.full((3,), 2, dtype=m.float64),
    "full_list_size": lambda m: m.full([1, 3], -1),
    "zeros_like": lambda m: m.zeros_like(m.tensor([[1, 2]])),
    "zeros_like_dtype": lambda m: m.zeros_like(m.tensor([1, 2]), dtype=m.float64),
    "ones_like": lambda m: m.ones_like(m.tensor([1.0, 2.0, 3.0])),
    "full_like_int_float_fill": lambda m: m.full_like(m.tensor([1, 2]), 2.7),
    "full_like_float_int_fill": lambda m: m.full_like(m.tensor([1.0, 2.0]), 2),
    "full_like_dtype": lambda m: m.full_like(m.tensor([1, 2]), 2.5, dtype=m.float32),
    "eye": lambda m: m.eye(3),
    "eye_rect": lambda m: m.eye(2, 4),
    "eye_int": lambda m: m.eye(2, 3, dtype=m.int64),
    "eye_zero": lambda m: m.eye(0),
    "new_zeros": lambda m: m.tensor([1, 2]).new_zeros(2, 2),
    "new_ones": lambda m: m.tensor([1.0]).new_ones((3,)),
    "new_full": lambda m: m.tensor([1.0], dtype=m.float64).new_full((2,), 4),
    "new_tensor": lambda m: m.tensor([1.0], dtype=m.float64).new_tensor([1, 2]),
}


@pytest.mark.parametrize("case", sorted(FACTORIES))
def test_factory_matches_torch(torch, case):
    c, t = both(torch, FACTORIES[case])
    exact(c, t)


@pytest.mark.parametrize("dtype", [None, "float64", "int32", "bool"])
def test_empty_shape_and_dtype(torch, dtype):
    kw = {} if dtype is None else {"dtype": getattr(core, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    c, t = core.empty(2, 3, **kw), torch.empty(2, 3, **tkw)
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
    c2, t2 = core.empty_like(c), torch.empty_like(t)
    assert tuple(c2.shape) == tuple(t2.shape) and str(c2.dtype) == str(t2.dtype)


def test_factory_requires_grad(torch):
    for name in ("zeros", "ones", "empty"):
        c = getattr(core, name)(2, requires_grad=True)
        t = getattr(torch, name)(2, requires_grad=True)
        assert c.requires_grad == t.requires_grad and c.is_leaf


BAD_FACTORIES = {
    "zeros_negative": lambda m: m.zeros(2, -1),
    "zeros_float_size": lambda m: m.zeros((2, 3.0)),
    "zeros_string": lambda m: m.zeros("a"),
    "full_int_size": lambda m: m.full(2, 3.0),
    "full_negative": lambda m: m.full((-2,), 3.0),
    "eye_negative": lambda m: m.eye(-1),
    "eye_negative_m": lambda m: m.eye(2, -1),
    "ones_int_requires_grad": lambda m: m.ones(2, dtype=m.int64, requires_grad=True),
    "full_bad_fill": lambda m: m.full((2,), "a"),
}


@pytest.mark.parametrize("case", sorted(BAD_FACTORIES))
def test_bad_factory_arguments_raise_like_torch(torch, case):
    same_error(lambda: BAD_FACTORIES[case](core), lambda: BAD_FACTORIES[case](torch))


# -- arange / linspace -------------------------------------------------------------------

ARANGE = [
    (5,), (0,), (2, 7), (1, 10, 3), (10, 0, -3), (5.0,), (0, 1, 0.1), (1, 2.5, 0.5), (-1.5, 1.5, 0.3),
    (0, 5, 0.7), (3, -2, -0.5), (0.1, 0.9, 0.2), (-10, 10, 3), (1.0, 1.0), (0, 1, 1 / 3),
]


@pytest.mark.parametrize("args", ARANGE, ids=str)
def test_arange_matches_torch(torch, args):
    c, t = core.arange(*args), torch.arange(*args)
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_allclose(c._data, t.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args,dtype", [((0, 5), "float64"), ((0.5, 5), "int64"), ((0, 3), "int32"),
                                        ((0, 1, 0.25), "float64"), ((1, 4), "float16")], ids=str)
def test_arange_with_dtype(torch, args, dtype):
    exact(core.arange(*args, dtype=getattr(core, dtype)), torch.arange(*args, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("args", [(0, 10, -1), (0, 10, 0), (5, 0, 1)], ids=str)
def test_arange_bad_step_raises_like_torch(torch, args):
    ec, et = same_error(lambda: core.arange(*args), lambda: torch.arange(*args))
    assert str(ec) == str(et)


@pytest.mark.parametrize("args", [(0, 1, 5), (0, 1, 1), (0, 1, 0), (-3.3, 7.1, 11), (1, -1, 7), (0, 10, 100),
                                  (2.5, 2.5, 3), (-1e3, 1e3, 33), (0, 1, 2)], ids=str)
def test_linspace_float32_values_are_exact(torch, args):
    exact(core.linspace(*args), torch.linspace(*args))


@pytest.mark.parametrize("args,dtype", [((0, 10, 5), "int64"), ((-3, 7, 4), "int64"), ((0, 1, 7), "float64"),
                                        ((-2.5, 9.25, 9), "float64")], ids=str)
def test_linspace_with_dtype(torch, args, dtype):
    exact(core.linspace(*args, dtype=getattr(core, dtype)), torch.linspace(*args, dtype=getattr(torch, dtype)))


def test_linspace_negative_steps_raises_like_torch(torch):
    ec, et = same_error(lambda: core.linspace(0, 1, -1), lambda: torch.linspace(0, 1, -1))
    assert str(ec) == str(et)


# -- random numbers ------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_rand_shapes_and_dtypes(torch, fn):
    for args, kw in [((2, 3), {}), (((4,),), {}), ((3,), {"dtype": "float64"}), (((),), {})]:
        ckw = {k: getattr(core, v) for k, v in kw.items()}
        tkw = {k: getattr(torch, v) for k, v in kw.items()}
        c, t = getattr(core, fn)(*args, **ckw), getattr(torch, fn)(*args, **tkw)
        assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)


def test_rand_is_in_unit_interval():
    core.manual_seed(0)
    x = core.rand(10000)._data
    assert x.min() >= 0 and x.max() < 1 and 0.45 < x.mean() < 0.55


def test_randn_is_standard_normal():
    core.manual_seed(0)
    x = core.randn(20000)._data
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05


@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_rand_integer_dtype_raises_like_torch(torch, fn):
    ec, et = same_error(lambda: getattr(core, fn)(2, dtype=core.int64),
                        lambda: getattr(torch, fn)(2, dtype=torch.int64))
    assert str(ec) == str(et)


def test_randint_shapes_dtypes_and_range(torch):
    core.manual_seed(1)
    for args, kw in [((10, (3, 4)), {}), ((3, 10, (500,)), {}), ((-5, 5, (2,)), {"dtype": "int32"}),
                     ((0, 2, (3,)), {"dtype": "float32"})]:
        ckw = {k: getattr(core, v) for k, v in kw.items()}
        tkw = {k: getattr(torch, v) for k, v in kw.items()}
        c, t = core.randint(*args, **ckw), torch.randint(*args, **tkw)
        assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
        lo, hi = (0, args[0]) if len(args) == 2 else args[:2]
        assert c._data.min() >= lo and c._data.max() < hi
    assert set(core.randint(3, 10, (500,)).tolist()) == set(range(3, 10))


def test_randint_size_keyword(torch):
    c, t = core.randint(0, 5, size=(2, 2)), torch.randint(0, 5, size=(2, 2))
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)


def test_randint_empty_range_raises_like_torch(torch):
    ec, et = same_error(lambda: core.randint(10, 3, (2,)), lambda: torch.randint(10, 3, (2,)))
    assert str(ec) == str(et)


@pytest.mark.parametrize("fn", [lambda: core.rand(5), lambda: core.randn(2, 3), lambda: core.randint(0, 100, (7,)),
                                lambda: core.randperm(9)])
def test_manual_seed_reproduces_values(fn):
    core.manual_seed(123)
    a = fn()._data.copy()
    core.manual_seed(123)
    b = fn()._data.copy()
    np.testing.assert_array_equal(a, b)
    core.manual_seed(124)
    assert not np.array_equal(a, fn()._data)


def test_manual_seed_returns_generator_and_initial_seed():
    g = core.manual_seed(42)
    assert isinstance(g, core.Generator)
    assert core.initial_seed() == 42


def test_generator_argument_is_independent_of_global_stream():
    g = core.Generator().manual_seed(7)
    a = core.rand(4, generator=g)._data.copy()
    core.rand(3)
    g2 = core.Generator().manual_seed(7)
    np.testing.assert_array_equal(a, core.rand(4, generator=g2)._data)


def test_randperm_is_permutation(torch):
    c, t = core.randperm(10), torch.randperm(10)
    assert str(c.dtype) == str(t.dtype)
    assert sorted(c.tolist()) == list(range(10))


# -- NumPy bridge and Python conversion -----------------------------------------------------

@pytest.mark.parametrize("npdt", ["float32", "float64", "int64", "int32", "uint8", "bool", "float16", "int8", "int16"])
def test_from_numpy_keeps_dtype_and_shares_memory(torch, npdt):
    a = np.arange(6).reshape(2, 3).astype(npdt)
    c, t = core.from_numpy(a), torch.from_numpy(a.copy())
    exact(c, t)
    a[0, 0] = 1
    assert c._data[0, 0] == 1


def test_from_numpy_unsupported_dtype_raises_like_torch(torch):
    a = np.array(["a", "b"])
    same_error(lambda: core.from_numpy(a), lambda: torch.from_numpy(a))


def test_from_numpy_non_array_raises_like_torch(torch):
    same_error(lambda: core.from_numpy([1, 2]), lambda: torch.from_numpy([1, 2]))


def test_numpy_shares_memory():
    c = core.zeros(3)
    c.numpy()[1] = 5.0
    assert c.tolist() == [0.0, 5.0, 0.0]


def test_numpy_of_requires_grad_raises_like_torch(torch):
    ec, et = same_error(lambda: core.ones(2, requires_grad=True).numpy(),
                        lambda: torch.ones(2, requires_grad=True).numpy())
    assert str(ec) == str(et)


def test_detach_numpy_works_on_requires_grad(torch):
    c = core.ones(2, requires_grad=True)
    np.testing.assert_array_equal(c.detach().numpy(), torch.ones(2).numpy())


@pytest.mark.parametrize("case", ["[[1, 2], [3, 4]]", "[1.5, -2.0]", "[True, False]", "3.5", "7", "[]"])
def test_tolist_matches_torch(torch, case):
    data = eval(case)
    c, t = core.tensor(data).tolist(), torch.tensor(data).tolist()
    assert c == t and type(c) is type(t)
    if isinstance(c, list) and c:
        flat_c = c[0] if not isinstance(c[0], list) else c[0][0]
        flat_t = t[0] if not isinstance(t[0], list) else t[0][0]
        assert type(flat_c) is type(flat_t)


@pytest.mark.parametrize("case", ["3.5", "7", "True", "[2.0]", "[[5]]"])
def test_item_matches_torch(torch, case):
    data = eval(case)
    c, t = core.tensor(data).item(), torch.tensor(data).item()
    assert c == t and type(c) is type(t)


@pytest.mark.parametrize("data", [[1, 2], [], [[1.0, 2.0]]], ids=str)
def test_item_on_non_single_element_raises_like_torch(torch, data):
    ec, et = same_error(lambda: core.tensor(data).item(), lambda: torch.tensor(data).item())
    assert isinstance(ec, RuntimeError) and str(ec) == str(et)


def test_python_conversions_match_torch(torch):
    for data in (2.5, 3, True):
        c, t = core.tensor(data), torch.tensor(data)
        assert float(c) == float(t) and int(c) == int(t) and bool(c) == bool(t)


def test_bool_of_multi_element_tensor_raises_like_torch(torch):
    ec, et = same_error(lambda: bool(core.tensor([1, 2])), lambda: bool(torch.tensor([1, 2])))
    assert str(ec) == str(et)


# -- legacy constructors and Variable --------------------------------------------------------

LEGACY = {
    "float_data": lambda m: m.FloatTensor([1, 2]),
    "float_sizes": lambda m: m.FloatTensor(2, 3),
    "float_nested": lambda m: m.FloatTensor([[1, 2], [3, 4]]),
    "long_data": lambda m: m.LongTensor([1, 2]),
    "long_sizes": lambda m: m.LongTensor(2),
    "long_float_data": lambda m: m.LongTensor([1.5, -2.7]),
    "double_data": lambda m: m.DoubleTensor([1.5]),
    "int_data": lambda m: m.IntTensor([1, 2]),
    "byte_data": lambda m: m.ByteTensor([1, 2]),
    "bool_data": lambda m: m.BoolTensor([1, 0]),
    "float_from_float_tensor": lambda m: m.FloatTensor(m.tensor([1.0, 2.0])),
    "float_size_obj": lambda m: m.FloatTensor(m.Size([2, 2])),
    "tensor_class_data": lambda m: m.Tensor([1, 2]),
    "tensor_class_sizes": lambda m: m.Tensor(2, 3),
}


@pytest.mark.parametrize("case", sorted(LEGACY))
def test_legacy_constructor_matches_torch(torch, case):
    c, t = both(torch, LEGACY[case])
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
    if "sizes" not in case and "size_obj" not in case:
        exact(c, t)


def test_legacy_constructor_from_other_dtype_tensor_raises_like_torch(torch):
    same_error(lambda: core.FloatTensor(core.tensor([1, 2])), lambda: torch.FloatTensor(torch.tensor([1, 2])))


def test_variable_passes_tensor_through(torch):
    c = core.autograd.Variable(core.tensor([1.0, 2.0]), requires_grad=True)
    t = torch.autograd.Variable(torch.tensor([1.0, 2.0]), requires_grad=True)
    assert isinstance(c, core.Tensor)
    assert c.requires_grad == t.requires_grad and c.is_leaf
    (c * 3).sum().backward()
    (t * 3).sum().backward()
    assert_same(c.grad, t.grad)


def test_variable_without_requires_grad(torch):
    c = core.autograd.Variable(core.tensor([1.0]))
    t = torch.autograd.Variable(torch.tensor([1.0]))
    assert c.requires_grad == t.requires_grad


# -- full / full_like / new_full: out-of-range fill values (c10's checked_convert) ---------------------

FILL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
FILL_VALUES = [2 ** 63, 2 ** 64 - 1, -2 ** 63 - 1, 2 ** 64, 2 ** 100, -2 ** 63, 2 ** 8, -1, -129, -256, 300, 2 ** 31,
               2 ** 53 + 1, 1e300, -1e300, float("inf"), float("-inf"), float("nan"), 70000.0, 65504.5, 3.4028235e38,
               3.5e38, 127.5, -128.5, 255.5, 256.7, -0.5, -0.0, True, False, 1 + 2j, 3 + 0j, np.bool_(True),
               np.uint64(2 ** 63), np.uint64(5), np.int8(-5), np.float32(1.5), np.float64(1e300)]
FILL_FNS = {
    "full": lambda m, v, d, n: m.full((n,), v, dtype=d),
    "full_default_dtype": lambda m, v, d, n: m.full((n,), v),
    "full_like": lambda m, v, d, n: m.full_like(m.zeros(n, dtype=d), v),
    "new_full": lambda m, v, d, n: m.zeros(1, dtype=d).new_full((n,), v),
}


@pytest.mark.parametrize("fn", list(FILL_FNS))
@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("numel", [0, 1, 2])
def test_full_out_of_range_fill_values_like_torch(torch, fn, dtype, numel):
    """Python ints beyond int64 are uint64 Scalars (OverflowError past 2**64 - 1 or below -2**63); each value is
    then checked against the dtype (RuntimeError '... without overflow'), except a one-element float16 fill."""
    for v in FILL_VALUES:
        if fn == "full_default_dtype" and isinstance(v, complex):
            continue   # torch makes complex64: core has no complex dtypes
        run = (lambda m: FILL_FNS[fn](m, v, getattr(m, dtype), numel))
        ec, et = same_error(lambda: run(core), lambda: run(torch))
        if et is not None:
            assert str(ec) == str(et), (v, ec, et)
        else:
            exact(run(core), run(torch))


@pytest.mark.parametrize("data", [[2 ** 63 - 1, 1.5], [[2 ** 62 + 1, 1.5], [3, -2.7]], [2 ** 53 + 1, 0.5, True],
                                  [-2 ** 63, 2.5], [2 ** 63 - 1, float("nan")]])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float64", "bool"])
def test_tensor_ints_mixed_with_floats_convert_per_element(torch, data, dtype):
    """torch.tensor stores each element from its own Python value: a large int next to a float is not rounded
    through a double on its way to an integer dtype."""
    ec, et = same_error(lambda: core.tensor(data, dtype=getattr(core, dtype)),
                        lambda: torch.tensor(data, dtype=getattr(torch, dtype)))
    if et is None:
        exact(core.tensor(data, dtype=getattr(core, dtype)), torch.tensor(data, dtype=getattr(torch, dtype)))


ARANGE_INTEGRAL = [
    ((0.1, -7.9, -4.0), {"dtype": "int64"}),
    ((0.1, -7.9, -4.0), {"dtype": "int32"}),
    ((-0.5, 7.9, 1.4), {"dtype": "int32"}),
    ((-0.5, 7.9, 1.4), {"dtype": "int64"}),
    ((0.5, -7.9, -1.4), {"dtype": "int64"}),
    ((0.0, 3.0, 0.5), {"dtype": "int64"}),       # the step truncates to 0: ValueError
    ((0.0, 3.0, 0.5), {"dtype": "int32"}),       # ... but not for int32: size from the doubles, all zeros
    ((0.0, 3.0, 0.2), {"dtype": "uint8"}),
    ((0.0, 3.0, -0.5), {"dtype": "int64"}),      # the sign check comes first
    ((0.5, 0.2, 1), {"dtype": "int32"}),
    ((0, 3, 0), {}),
    ((0.0, 3.0, 0.5), {"dtype": "bool"}),
    ((0.0, 3.0, 0.5), {"dtype": "float16"}),
    ((1549556900, 1549556828, 1989724), {}),
    ((-3, 10, 3), {}),
    ((10, -3, -3), {}),
]


ARANGE_OUT = [
    ((0, 64, 0.5), "int64", (0,)),      # op_db's error input: ValueError
    ((0.5, 5.7, 1.3), "int64", (0,)),
    ((0.5, 5.2, 0.7), "int32", (2,)),   # resized, with torch's warning
    ((0, 5, 1.5), "float32", (0,)),
    ((5,), "float32", (5, 1)),          # numel fits: shape kept
    ((5,), "float64", (2, 3)),
    ((0, 3, 0), "float32", (0,)),
    ((5,), "bool", (5,)),
]


LOGSPACE = [
    ((0, 1.2, 2), {"dtype": "int64"}),
    ((0.5, 3.7, 5), {"dtype": "int32", "base": 3}),
    ((-1.5, 4.9, 7), {"dtype": "int64", "base": 2.5}),
    ((0.1, 2.9, 1), {"dtype": "int64"}),
    ((0, 3, 4), {"dtype": "uint8"}),
    ((0, 1, 0), {"dtype": "int64"}),
    ((-2, 2, 5), {"dtype": "int64"}),
    ((0, 1.2, 3), {"dtype": "float64"}),
]


@pytest.mark.parametrize("args,kw", ARANGE_INTEGRAL, ids=[f"{a}-{k.get('dtype')}" for a, k in ARANGE_INTEGRAL])
def test_arange_integral_results(torch, args, kw):
    agree(torch, lambda m: m.arange(*args, **{k: getattr(m, v) for k, v in kw.items()}))


@pytest.mark.parametrize("args,dtype,shape", ARANGE_OUT, ids=[f"{a}-{d}-{s}" for a, d, s in ARANGE_OUT])
def test_arange_out(torch, args, dtype, shape):
    """out= decides the dtype, is written (core ignored it) and returned."""
    def fn(m):
        o = m.empty(shape, dtype=getattr(m, dtype))
        r = m.arange(*args, out=o)
        assert r is o
        return o
    agree(torch, fn)


def test_arange_out_warns_like_torch(torch):
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[2\\] is 2"):
        core.arange(5, out=core.empty(2))
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[2\\] is 2"):
        torch.arange(5, out=torch.empty(2))


@pytest.mark.parametrize("case", ["dtype_mismatch", "requires_grad"])
def test_arange_out_errors(torch, case):
    if case == "dtype_mismatch":
        agree(torch, lambda m: m.arange(5, out=m.empty(0, dtype=m.int32), dtype=m.int64))
    else:
        agree(torch, lambda m: m.arange(5, out=m.empty(0, requires_grad=True)))


@pytest.mark.parametrize("args,kw", LOGSPACE, ids=[f"{a}-{k}" for a, k in LOGSPACE])
def test_logspace_integral_dtype(torch, args, kw):
    """Integral logspace: start/end truncated, base as float32, powers from both ends, truncated (ATen)."""
    agree(torch, lambda m: m.logspace(*args, **{k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}))


def test_logspace_tensor_bounds_integral(torch):
    agree(torch, lambda m: m.logspace(m.tensor(0.7), m.tensor(3.2), 4, dtype=m.int16))


FACTORIES_OUT = {
    "zeros": lambda m, o: m.zeros(2, 3, out=o),
    "ones": lambda m, o: m.ones(4, out=o),
    "full": lambda m, o: m.full((2,), 3.5, out=o),
    "linspace": lambda m, o: m.linspace(0, 1, 5, out=o),
    "logspace": lambda m, o: m.logspace(0, 1, 3, out=o),
    "eye": lambda m, o: m.eye(3, out=o),
    "zeros_same_numel": lambda m, o: m.zeros((5,), out=o),
    "arange_requires_grad": lambda m, o: m.arange(5, out=o, requires_grad=True),
}


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("name", sorted(FACTORIES_OUT))
def test_factories_write_into_out(torch, name, dtype):
    """Factories with out=: out's dtype, resized without a warning, written and returned."""
    def fn(m):
        o = m.zeros(5, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = FACTORIES_OUT[name](m, o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("case", ["out_requires_grad", "dtype_mismatch"])
def test_factories_out_errors(torch, case):
    if case == "out_requires_grad":
        agree(torch, lambda m: m.zeros(2, out=m.empty(0, requires_grad=True)))
    else:
        agree(torch, lambda m: m.linspace(0, 1, 3, out=m.empty(0, dtype=m.long), dtype=m.float32))
