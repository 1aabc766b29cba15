"""Differential tests: reductions (values, dtypes, shapes, grad_fn names, gradients, errors) vs torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from agreement import agree, out_pair, same_object
from conftest import assert_same, same_error
from gradcheck import gradcheck
from tests.core.ops.pointwise.test_pointwise import arr, check  # shared differential helpers

INF = float("inf")

REDUCE = {
    "sum": lambda m, x: x.sum(),
    "sum_dim": lambda m, x: x.sum(1),
    "sum_neg_dim": lambda m, x: m.sum(x, -1),
    "sum_tuple": lambda m, x: x.sum((0, 2)),
    "sum_neg_tuple": lambda m, x: x.sum(dim=(-1, 0)),
    "sum_keepdim": lambda m, x: x.sum(1, keepdim=True),
    "sum_tuple_keepdim": lambda m, x: x.sum((0, 2), keepdim=True),
    "sum_empty_tuple": lambda m, x: x.sum(dim=()),
    "sum_dtype": lambda m, x: x.sum(dtype=m.float64),
    "mean": lambda m, x: x.mean(),
    "mean_dim": lambda m, x: m.mean(x, 0),
    "mean_tuple_keepdim": lambda m, x: x.mean((1, 2), keepdim=True),
    "mean_dtype": lambda m, x: x.mean(dtype=m.float64),
    "prod": lambda m, x: x.prod(),
    "prod_dim": lambda m, x: x.prod(1),
    "prod_keepdim": lambda m, x: m.prod(x, -1, keepdim=True),
    "max": lambda m, x: x.max(),
    "max_dim_values": lambda m, x: x.max(1).values,
    "max_dim_keepdim": lambda m, x: x.max(-1, keepdim=True)[0],
    "min": lambda m, x: m.min(x),
    "min_dim_values": lambda m, x: x.min(dim=0).values,
    "amax": lambda m, x: x.amax(),
    "amax_dim": lambda m, x: m.amax(x, 1),
    "amax_tuple": lambda m, x: x.amax((0, -1), keepdim=True),
    "amin": lambda m, x: x.amin(),
    "amin_tuple": lambda m, x: m.amin(x, (0, 1)),
    "var": lambda m, x: x.var(),
    "var_dim": lambda m, x: x.var(1),
    "var_unbiased_false": lambda m, x: x.var(1, unbiased=False),
    "var_correction0": lambda m, x: m.var(x, dim=(0, 2), correction=0),
    "var_keepdim": lambda m, x: x.var(-1, keepdim=True),
    "std": lambda m, x: x.std(),
    "std_dim": lambda m, x: m.std(x, 2),
    "std_correction0_keepdim": lambda m, x: x.std(dim=0, correction=0, keepdim=True),
    "logsumexp": lambda m, x: x.logsumexp(1),
    "logsumexp_tuple_keepdim": lambda m, x: m.logsumexp(x, (0, 2), keepdim=True),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumsum_neg": lambda m, x: m.cumsum(x, dim=-1),
    "cumprod": lambda m, x: x.cumprod(2),
    "norm": lambda m, x: x.norm(),
    "norm_dim": lambda m, x: x.norm(dim=1),
    "norm_p1": lambda m, x: x.norm(p=1),
    "norm_inf": lambda m, x: x.norm(p=INF),
    "norm_p3_dim_keepdim": lambda m, x: m.norm(x, p=3, dim=-1, keepdim=True),
    "norm_fro_tuple": lambda m, x: x.norm(dim=(0, 1)),
}


def _input(shape=(2, 3, 4), dtype=np.float32, seed=0):
    return arr(*shape, dtype=dtype, low=0.5 if dtype != np.int64 else -3, high=2.0 if dtype != np.int64 else 3,
               seed=seed)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_float32_values_grads_and_grad_fn(torch, name):
    check(torch, REDUCE[name], _input(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_float64(torch, name):
    check(torch, REDUCE[name], _input(dtype=np.float64, seed=1), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_on_int_tensor_matches_torch(torch, name):
    x = np.random.default_rng(2).integers(-3, 4, size=(2, 3, 4))
    ec, et = same_error(lambda: REDUCE[name](core, core.tensor(x)), lambda: REDUCE[name](torch, torch.tensor(x)))
    if et is None:
        check(torch, REDUCE[name], x, grad=False)
    else:
        assert str(ec) == str(et)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_on_bool_tensor_matches_torch(torch, name):
    x = np.random.default_rng(3).random((2, 3, 4)) < 0.5
    ec, et = same_error(lambda: REDUCE[name](core, core.tensor(x)), lambda: REDUCE[name](torch, torch.tensor(x)))
    if et is None:
        check(torch, REDUCE[name], x, grad=False)
    else:
        assert str(ec) == str(et)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_of_zero_dim_tensor(torch, name):
    fn = REDUCE[name]
    ec, et = same_error(lambda: fn(core, core.tensor(1.5)), lambda: fn(torch, torch.tensor(1.5)))
    if et is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(torch, lambda m, x: fn(m, x), np.array(1.5, np.float32))
    else:
        assert str(ec) == str(et)


def test_mean_of_int_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]).mean(), lambda: torch.tensor([1, 2]).mean())
    assert isinstance(ec, RuntimeError) and str(ec) == str(et)


def test_mean_of_int_with_float_dtype(torch):
    check(torch, lambda m, x: x.mean(dtype=m.float32), np.array([1, 2, 4]), grad=False)


@pytest.mark.parametrize("case", ["int_to_float", "bool_to_int32", "float_to_int"])
def test_sum_dtype_argument(torch, case):
    data, dt = {"int_to_float": ([1, 2, 3], "float32"), "bool_to_int32": ([True, True], "int32"),
                "float_to_int": ([1.7, 2.6], "int64")}[case]
    c, t = core.tensor(data).sum(dtype=getattr(core, dt)), torch.tensor(data).sum(dtype=getattr(torch, dt))
    assert_same(c, t)


def test_cumsum_int_accumulates_in_int64(torch):
    check(torch, lambda m, x: x.cumsum(0), np.array([1, 2, 3], np.int32), grad=False)
    check(torch, lambda m, x: x.cumsum(0, dtype=m.float64), np.array([1, 2, 3], np.int32), grad=False)


def test_prod_int32_gives_int64(torch):
    check(torch, lambda m, x: x.prod(), np.array([2, 3, 4], np.int32), grad=False)


# -- max/min with dim: namedtuple -----------------------------------------------------------------

@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_dim_returns_values_indices_namedtuple(torch, fn):
    x = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], np.float32)
    c, t = getattr(core.tensor(x), fn)(1), getattr(torch.tensor(x), fn)(1)
    assert type(c).__name__ == type(t).__name__
    assert_same(c.values, t.values)
    assert_same(c.indices, t.indices)
    assert_same(c[0], t[0])
    assert_same(c[1], t[1])
    cv, ci = c
    assert_same(ci, t.indices)
    assert len(c) == len(t) == 2
    assert repr(c) == repr(t)


def test_max_dim_gradient_goes_to_first_maximum(torch):
    check(torch, lambda m, x: x.max(1).values, np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], np.float32))


def test_max_dim_indices_are_not_differentiable(torch):
    c, t = core.ones(2, 2, requires_grad=True).max(0), torch.ones(2, 2, requires_grad=True).max(0)
    assert c.indices.requires_grad == t.indices.requires_grad
    assert c.values.grad_fn.name() == t.values.grad_fn.name()


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin", "amax_dim", "max_dim_values"])
def test_ties_share_gradient_like_torch(torch, name):
    x = np.array([[3.0, 1.0, 3.0], [3.0, 3.0, 3.0]], np.float32)
    fns = {"max": lambda m, t: t.max(), "min": lambda m, t: (-t).min(), "amax": lambda m, t: t.amax(),
           "amin": lambda m, t: (-t).amin(), "amax_dim": lambda m, t: t.amax(1),
           "max_dim_values": lambda m, t: t.max(1).values}
    check(torch, fns[name], x)


def test_max_of_two_tensors_is_maximum(torch):
    check(torch, lambda m, a, b: m.max(a, b), arr(2, 3), arr(3))


# -- NaN handling ------------------------------------------------------------------------------------

NAN_X = np.array([[1.0, np.nan, 3.0], [2.0, 0.5, -1.0], [np.nan, np.nan, 0.0]], np.float32)


@pytest.mark.parametrize("name", ["max", "min", "amax_dim", "sum_dim", "mean", "prod_dim", "logsumexp", "cumsum",
                                  "norm_dim", "var_dim"])
def test_nan_propagates_like_torch(torch, name):
    fns = dict(REDUCE)
    fns["amax_dim"] = lambda m, x: x.amax(1)
    fns["cumsum"] = lambda m, x: x.cumsum(1)
    fns["norm_dim"] = lambda m, x: x.norm(dim=1)
    fns["logsumexp"] = lambda m, x: x.logsumexp(1)
    check(torch, fns[name], NAN_X, grad=False)


@pytest.mark.parametrize("fn", ["argmax", "argmin", "max_dim", "min_dim"])
def test_arg_reductions_pick_first_nan(torch, fn):
    fns = {"argmax": lambda m, x: x.argmax(1), "argmin": lambda m, x: x.argmin(dim=1),
           "max_dim": lambda m, x: x.max(1).indices, "min_dim": lambda m, x: x.min(1).indices}
    check(torch, fns[fn], NAN_X, grad=False)
    check(torch, lambda m, x: x.argmax(), NAN_X, grad=False)


def test_nansum_and_nanmean(torch):
    check(torch, lambda m, x: x.nansum(), NAN_X)
    check(torch, lambda m, x: m.nansum(x, 1), NAN_X)
    check(torch, lambda m, x: x.nanmean(1), NAN_X, grad=False)


# -- argmax/argmin, all/any ----------------------------------------------------------------------------

ARG = {
    "argmax": lambda m, x: x.argmax(), "argmax_dim": lambda m, x: m.argmax(x, 1),
    "argmax_keepdim": lambda m, x: x.argmax(-1, keepdim=True), "argmin": lambda m, x: x.argmin(),
    "argmin_dim": lambda m, x: x.argmin(0), "argmax_keepdim_none": lambda m, x: x.argmax(keepdim=True),
}


@pytest.mark.parametrize("name", sorted(ARG))
def test_argmax_argmin_first_occurrence_int64(torch, name):
    x = np.array([[1, 5, 5], [7, 2, 7]], np.float32)
    check(torch, ARG[name], x, grad=False)
    check(torch, ARG[name], x.astype(np.int32), grad=False)


LOGIC = {
    "all": lambda m, x: x.all(), "any": lambda m, x: x.any(), "all_dim": lambda m, x: m.all(x, 1),
    "any_dim_keepdim": lambda m, x: x.any(0, keepdim=True), "all_neg_dim": lambda m, x: x.all(dim=-1),
    "any_tuple": lambda m, x: x.any((0, 1)),
}


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "uint8"])
@pytest.mark.parametrize("name", sorted(LOGIC))
def test_all_any(torch, name, dtype):
    x = np.array([[0, 1, 2], [3, 4, 0], [1, 1, 1]]).astype(dtype)
    check(torch, LOGIC[name], x, grad=False)


# -- empty tensors and bad dims -----------------------------------------------------------------------

EMPTY = {
    "sum": lambda m, x: x.sum(), "sum_dim0": lambda m, x: x.sum(0), "mean": lambda m, x: x.mean(),
    "prod": lambda m, x: x.prod(), "max": lambda m, x: x.max(), "min": lambda m, x: x.min(),
    "max_dim0": lambda m, x: x.max(0), "max_dim1": lambda m, x: x.max(1).values, "amax": lambda m, x: x.amax(),
    "amax_dim1": lambda m, x: x.amax(1), "argmax": lambda m, x: x.argmax(), "argmax_dim0": lambda m, x: x.argmax(0),
    "argmin_dim1": lambda m, x: x.argmin(1), "logsumexp_dim0": lambda m, x: x.logsumexp(0),
    "cumsum": lambda m, x: x.cumsum(0), "norm": lambda m, x: x.norm(), "all": lambda m, x: x.all(),
    "any": lambda m, x: x.any(), "var": lambda m, x: x.var(), "std_dim1": lambda m, x: x.std(1),
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_empty_tensor_reductions_match_torch(torch, name):
    x = np.zeros((0, 3), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ec, et = same_error(lambda: EMPTY[name](core, core.tensor(x)), lambda: EMPTY[name](torch, torch.tensor(x)))
        if et is None:
            check(torch, EMPTY[name], x, grad=False)
        else:
            assert str(ec) == str(et)


@pytest.mark.parametrize("name", ["sum_dim", "mean_dim", "prod_dim", "max_dim_values", "amax_dim", "var_dim",
                                  "logsumexp", "cumsum", "norm_dim", "argmax_dim"])
@pytest.mark.parametrize("dim", [3, -4])
def test_dim_out_of_range_raises_index_error_like_torch(torch, name, dim):
    fns = {"sum_dim": lambda m, x: x.sum(dim), "mean_dim": lambda m, x: x.mean(dim),
           "prod_dim": lambda m, x: x.prod(dim), "max_dim_values": lambda m, x: x.max(dim),
           "amax_dim": lambda m, x: x.amax(dim), "var_dim": lambda m, x: x.var(dim),
           "logsumexp": lambda m, x: x.logsumexp(dim), "cumsum": lambda m, x: x.cumsum(dim),
           "norm_dim": lambda m, x: x.norm(dim=dim), "argmax_dim": lambda m, x: x.argmax(dim)}
    x = _input()
    ec, et = same_error(lambda: fns[name](core, core.tensor(x)), lambda: fns[name](torch, torch.tensor(x)))
    assert isinstance(ec, IndexError) and str(ec) == str(et)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "var", "logsumexp", "norm"])
def test_repeated_dim_raises_like_torch(torch, name):
    fns = {"sum": lambda m, x: x.sum((0, -3)), "mean": lambda m, x: x.mean((1, 1)), "amax": lambda m, x: x.amax((0, 0)),
           "var": lambda m, x: x.var((2, -1)), "logsumexp": lambda m, x: x.logsumexp((0, 0)),
           "norm": lambda m, x: x.norm(dim=(1, 1))}
    x = _input()
    ec, et = same_error(lambda: fns[name](core, core.tensor(x)), lambda: fns[name](torch, torch.tensor(x)))
    assert str(ec) == str(et)


def test_var_of_single_element_is_nan_like_torch(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(torch, lambda m, x: x.var(), np.array([1.5], np.float32), grad=False)
        check(torch, lambda m, x: x.std(0), np.array([[1.5, 2.0]], np.float32), grad=False)


def test_var_of_int_raises_like_torch(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]).var(), lambda: torch.tensor([1, 2]).var())
    assert str(ec) == str(et)


# -- gradients at special points ---------------------------------------------------------------------

@pytest.mark.parametrize("case", ["one_zero", "two_zeros", "zero_dim_only"])
def test_prod_gradient_with_zeros(torch, case):
    x = {"one_zero": [[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]], "two_zeros": [[0.0, 0.0, 3.0], [1.0, 0.0, 5.0]],
         "zero_dim_only": [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]}[case]
    x = np.array(x, np.float32)
    check(torch, lambda m, t: t.prod(), x)
    check(torch, lambda m, t: t.prod(1), x)
    check(torch, lambda m, t: t.prod(0, keepdim=True), x)


def test_cumprod_gradient_with_zeros(torch):
    x = np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 1.0, 0.0, 2.0]], np.float32)
    check(torch, lambda m, t: t.cumprod(1), x)
    check(torch, lambda m, t: t.cumprod(0), x)


def test_norm_gradient_at_zero_is_zero(torch):
    check(torch, lambda m, t: t.norm(), np.zeros(3, np.float32))
    check(torch, lambda m, t: t.norm(dim=1), np.array([[0.0, 0.0], [3.0, 4.0]], np.float32))


def test_std_gradient_of_constant_is_zero(torch):
    check(torch, lambda m, t: t.std(1), np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], np.float32))


def test_logsumexp_with_infinities(torch):
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [0.0, -np.inf]], np.float32)
    check(torch, lambda m, t: t.logsumexp(1), x, grad=False)


def test_logsumexp_of_int_is_float(torch):
    check(torch, lambda m, t: t.logsumexp(0), np.array([1, 2, 3]), grad=False)


def test_logsumexp_large_values_are_stable(torch):
    check(torch, lambda m, t: t.logsumexp(0), np.array([1000.0, 1000.0, -1000.0], np.float32))


# -- numerical gradient checks ------------------------------------------------------------------------

GRADCHECK = ["sum_dim", "sum_tuple_keepdim", "mean_tuple_keepdim", "prod", "prod_dim", "max", "max_dim_values",
             "amax_tuple", "amin", "var_dim", "var_correction0", "std", "std_dim", "logsumexp",
             "logsumexp_tuple_keepdim", "cumsum", "cumprod", "norm", "norm_dim", "norm_p1", "norm_p3_dim_keepdim",
             "norm_inf"]


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck_reduction(name):
    x = _input(shape=(2, 3, 3), dtype=np.float64, seed=7)
    assert gradcheck(lambda t: REDUCE[name](core, t), x)


REDUCE_ARG_ERRORS = {
    "mean_int_dtype": lambda m: m.ones(2).mean(dtype=m.int64),
    "min_keepdim_without_dim": lambda m: m.ones(2).min(keepdim=True),
    "logsumexp_empty_dims": lambda m: m.ones(2, 3).logsumexp(dim=()),
    "argmax_tuple_dim": lambda m: m.ones(2, 3).argmax(dim=(0, 1)),
    "norm_bad_order": lambda m: m.ones(3).norm(p="abc"),
    "norm_fro_three_dims": lambda m: m.ones(2, 3, 4).norm(p="fro", dim=(0, 1, 2)),
    "norm_nuc_3d_no_dim": lambda m: m.ones(2, 3, 4).norm(p="nuc"),
    "norm_inf_empty": lambda m: m.zeros(0).norm(p=INF),
    "norm_int": lambda m: m.tensor([3, 4]).norm(),
}


@pytest.mark.parametrize("case", sorted(REDUCE_ARG_ERRORS))
def test_reduction_argument_errors_match_torch(torch, case):
    ec, et = same_error(lambda: REDUCE_ARG_ERRORS[case](core), lambda: REDUCE_ARG_ERRORS[case](torch))
    assert et is not None
    if "\n" not in str(et):
        assert str(ec) == str(et)


@pytest.mark.parametrize("case", ["2d", "dims_keepdim", "batched_dims"])
def test_nuclear_norm_values_grads_and_grad_fn(torch, case):
    fn, shape = {"2d": (lambda m, x: x.norm(p="nuc"), (3, 4)),
                 "dims_keepdim": (lambda m, x: m.norm(x, p="nuc", dim=(0, 1), keepdim=True), (4, 3)),
                 "batched_dims": (lambda m, x: x.norm(p="nuc", dim=(2, 0)), (3, 2, 4))}[case]
    check(torch, fn, _input(shape=shape, seed=12), rtol=1e-5, atol=1e-5)


def test_nuclear_norm_gradcheck():
    assert gradcheck(lambda t: t.norm(p="nuc"), _input(shape=(3, 4), dtype=np.float64, seed=13))


def test_norm_with_dtype_argument(torch):
    check(torch, lambda m, x: x.norm(dtype=m.float64), _input(shape=(3,)))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("args", [(2, 3), (2,), (2.5, "t")])
def test_max_min_of_numbers(torch, name, args):
    """torch.max(2, 3): PyTorch's argument parser raises TypeError (core raised AttributeError)."""
    agree(torch, lambda m: getattr(m, name)(*(m.ones(2) if a == "t" else a for a in args)))


OVERLAP = {
    "max_out_view_of_input": lambda m: (lambda y: m.max(y, 0, out=(y[0], m.empty(3, dtype=m.long))))(m.ones(4, 3)),
}


TUPLE_OPS = {
    "max": lambda m, o: m.max(m.arange(12.).reshape(4, 3), 0, out=o),
    "min": lambda m, o: m.min(m.arange(12.).reshape(4, 3), 0, out=o),
}


REDUCE_OUT = {
    "mean": lambda m, o: m.mean(m.arange(12.).reshape(4, 3), 0, out=o),
    "logsumexp": lambda m, o: m.logsumexp(m.arange(12.).reshape(4, 3), 0, out=o),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])


@pytest.mark.parametrize("dts", [("float64", "int64"), ("float32", "int32"), ("float32", "int64")])
@pytest.mark.parametrize("name", sorted(TUPLE_OPS))
def test_out_tuple_dtypes(torch, name, dts):
    """Wrong values/indices dtypes raise each op's own message; the right ones are written and returned."""
    fn = TUPLE_OPS[name]
    second = "float32" if name == "aminmax" else dts[1]
    agree(torch, lambda m: fn(m, out_pair(m, dts[0], second)))
    if dts == ("float32", "int64"):
        same_object(torch, lambda m: (lambda o: (fn(m, o), o))(out_pair(m, "float32", second)))


def test_out_tuple_arity(torch):
    agree(torch, lambda m: m.max(m.ones(4, 3), 0, out=(m.empty(3),)))


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dtype", ["int32", "float64", "float32"])
def test_amax_amin_out(torch, name, dtype):
    """amax/amin demand out's dtype equal input's (no casting) and write into out (core ignored out)."""
    agree(torch, lambda m: getattr(m, name)(m.arange(12.).reshape(4, 3), 0, out=m.empty(3, dtype=getattr(m, dtype))))
    if dtype == "float32":
        same_object(torch, lambda m: (lambda o: (getattr(m, name)(m.arange(12.).reshape(4, 3), 0, out=o), o))(
            m.empty(7)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_all_out(torch, dtype):
    """max()/min() over all elements write into out (which may be of a wider dtype)."""
    for name in ("max", "min"):
        fn = (lambda m, name=name: (lambda o: (getattr(m, name)(m.tensor([[1., 5], [4, -2]]), out=o), o))(
            m.empty((), dtype=getattr(m, dtype))))
        agree(torch, lambda m: fn(m)[1])
        same_object(torch, fn)


@pytest.mark.parametrize("dtype,shape", [("float32", (3,)), ("float64", (3,)), ("int64", (3,)), ("float32", (5,))])
@pytest.mark.parametrize("name", sorted(REDUCE_OUT))
def test_mean_logsumexp_out(torch, name, dtype, shape):
    def fn(m):
        o = m.empty(shape, dtype=getattr(m, dtype))
        r = REDUCE_OUT[name](m, o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mean_out_with_dtype(torch, dtype):
    """mean(dtype=...) demands out of exactly that dtype."""
    agree(torch, lambda m: m.mean(m.arange(3.), dtype=m.float64, out=m.empty((), dtype=getattr(m, dtype))))


def test_full_max_min_gradient_is_evenly_distributed_with_plus_zeros(torch):
    """max() / min() over all elements: evenly_distribute_backward writes grad / count at the ties into zeros,
    so the other elements are +0 for a negative cotangent (amax / amin scale a mask instead: -0 there)."""
    x0 = [[1.0, 3.0, -2.0], [3.0, float("nan"), 0.5]]
    for vals in (x0, [[1.0, 3.0, -2.0], [3.0, 0.0, 0.5]]):
        for f in (lambda t: t.max(), lambda t: t.min(), lambda t: t.amax(), lambda t: t.amin()):
            res = []
            for m in (torch, core):
                x = m.tensor(vals, requires_grad=True)
                (gx,) = m.autograd.grad(f(x), x, m.tensor(-3.0))
                res.append(np.asarray(gx.tolist()))
            assert res[0].tobytes() == res[1].tobytes(), res
