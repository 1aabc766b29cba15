"""The indexing ops added after the package split, vs torch: index_copy(_), index_reduce(_), masked_scatter(_),
put(_), select_scatter, slice_scatter, diagonal_scatter, unravel_index. Values, dtypes, shapes, grad_fn names,
gradients (plain, numerical and double backward), errors (class and message), in-place forms, strides."""
from __future__ import annotations

import numpy as np
import pytest

import core
from gradcheck import gradcheck
from indexing_util import arr, assert_tensor_equal, compare, inplace_on_leaf_refused, inplace_writes_self

A = arr(3, 4)
A3 = arr(2, 3, 4, seed=2)
S = np.array(5.0, np.float32)
POS = np.abs(arr(3, 4, seed=4)) + 0.5
TIES = np.array([[1., 2, 2, 0], [0, 3, 3, 1]], np.float32)


def T(L, v, dtype=None):
    return L.tensor(v) if dtype is None else L.tensor(v, dtype=getattr(L, dtype))


INDEX_COPY = [
    ("dim1", lambda L, x, s: x.index_copy(1, T(L, [0, 2]), s), [A, A[:, :2] * 2]),
    ("dim0_fn", lambda L, x, s: L.index_copy(x, 0, T(L, [2, 0]), s), [A, A[:2] + 1]),
    ("kwargs", lambda L, x, s: x.index_copy(dim=0, index=T(L, [1]), source=s), [A, A[:1] * 3]),
    ("neg_dim_3d", lambda L, x, s: x.index_copy(-1, T(L, [3, 1]), s), [A3, A3[..., :2] - 1]),
    ("duplicates_last_wins", lambda L, x, s: x.index_copy(1, T(L, [1, 1]), s), [A, A[:, :2] * 2]),
    ("zero_dim_index", lambda L, x, s: x.index_copy(0, T(L, 1), s), [A[0], S]),
    ("zero_dim_self", lambda L, x, s: x.index_copy(0, T(L, [0]), s), [S, S * 2]),
    ("zero_dim_self_1d_source", lambda L, x, s: x.index_copy(0, T(L, [0]), s), [S, np.ones(1, np.float32)]),
    ("empty_index", lambda L, x, s: x.index_copy(0, L.zeros(0, dtype=L.long), s), [A, A[:0]]),
    ("empty_slices_skip_bounds", lambda L: L.zeros(3, 0).index_copy(0, T(L, [0, 9]), L.ones(2, 0)), []),
    ("int", lambda L: T(L, [[1, 2], [3, 4]]).index_copy(0, T(L, [1]), T(L, [[7, 8]])), []),
    ("inplace_grad", lambda L, x, s: (x * 1).index_copy_(1, T(L, [3, 1]), s), [A, A[:, :2] * 2]),
    ("inplace_transposed_no_grad", lambda L, s: L.zeros(4, 3).t().index_copy_(1, T(L, [3, 1]), s), [A[:, :2]]),
    ("err_oob", lambda L, x, s: x.index_copy(1, T(L, [0, 5]), s), [A, A[:, :2]]),
    ("err_negative", lambda L, x, s: x.index_copy(1, T(L, [0, -1]), s), [A, A[:, :2]]),
    ("err_int32_index", lambda L, x, s: x.index_copy(1, T(L, [0, 2], "int32"), s), [A, A[:, :2]]),
    ("err_float_index", lambda L, x, s: x.index_copy(1, T(L, [0., 2]), s), [A, A[:, :2]]),
    ("err_2d_index", lambda L, x, s: x.index_copy(1, T(L, [[0, 2]]), s), [A, A[:, :2]]),
    ("err_dtype", lambda L, x: x.index_copy(1, T(L, [0, 2]), L.ones(3, 2, dtype=L.float64)), [A]),
    ("err_count", lambda L, x: x.index_copy(1, T(L, [0, 2]), L.ones(3, 3)), [A]),
    ("err_slice_shape", lambda L, x: x.index_copy(1, T(L, [0, 2]), L.ones(2, 2)), [A]),
    ("err_slice_shape_3d", lambda L: L.zeros(3, 4, 5).index_copy(1, T(L, [0]), L.ones(3, 1, 4)), []),
    ("err_dims", lambda L, x: x.index_copy(1, T(L, [0, 2]), L.ones(2)), [A]),
    ("err_scalar_source_count", lambda L, x: x.index_copy(1, T(L, [1, 1]), T(L, 5.)), [A]),
    ("err_dim", lambda L, x, s: x.index_copy(2, T(L, [0, 2]), s), [A, A[:, :2]]),
    ("err_source_number", lambda L, x: x.index_copy(0, T(L, [1]), 5), [A]),
    ("err_zero_dim_oob", lambda L, x, s: x.index_copy(0, T(L, [1]), s), [S, S]),
]

INDEX_REDUCE = [
    *[(f"{how}_{'self' if inc else 'noself'}", (lambda h, i: lambda L, x, s: x.index_reduce(
        1, T(L, [0, 2, 0]), s, h, include_self=i))(how, inc), [POS, POS[:, :3] * 1.37])
      for how in ("prod", "mean", "amax", "amin") for inc in (True, False)],
    ("amax_ties", lambda L, x, s: x.index_reduce(1, T(L, [1, 2, 2]), s, "amax"), [TIES, TIES[:, :3]]),
    ("amin_ties_noself", lambda L, x, s: x.index_reduce(1, T(L, [1, 1, 0]), s, "amin", include_self=False),
     [TIES, TIES[:, 1:]]),
    ("prod_zeros", lambda L, x, s: x.index_reduce(0, T(L, [1, 1]), s, "prod"),
     [np.array([[0., 2], [3, 0]], np.float32), np.array([[0., 1], [2, 3]], np.float32)]),
    ("dim0_int32_index", lambda L, x, s: x.index_reduce(0, T(L, [2, 0], "int32"), s, "mean"), [A, A[:2]]),
    ("3d", lambda L, x, s: L.index_reduce(x, -1, T(L, [3, 3]), s, "amin"), [A3, A3[..., :2]]),
    ("zero_dim_self", lambda L, x, s: x.index_reduce(0, T(L, [0]), s, "amax"), [S, S * 2]),
    ("inplace_grad", lambda L, x, s: (x * 1).index_reduce_(1, T(L, [3, 3]), s, "prod"), [POS, POS[:, :2]]),
    ("inplace_transposed_no_grad", lambda L, s: L.ones(4, 3).t().index_reduce_(1, T(L, [3, 3]), s, "mean"),
     [A[:, :2]]),
    ("empty_index", lambda L, x: x.index_reduce(0, L.zeros(0, dtype=L.long), L.zeros(0, 4), "amax"), [A]),
    ("int_mean_floor", lambda L: T(L, [-7, 7, 9]).index_reduce(0, T(L, [0, 0, 2]), T(L, [2, 3, 4]), "mean"), []),
    ("uint8_amin", lambda L: T(L, [5, 7, 9], "uint8").index_reduce(0, T(L, [0, 0, 2]), T(L, [2, 3, 4], "uint8"),
                                                                  "amin", include_self=False), []),
    ("half_mean", lambda L: L.ones(2, 3, dtype=L.float16).index_reduce(
        0, T(L, [1, 1]), L.full((2, 3), 1000., dtype=L.float16), "mean"), []),
    ("err_reduce_sum", lambda L, x, s: x.index_reduce(1, T(L, [0, 0]), s, "sum"), [A, A[:, :2]]),
    ("err_reduce_first", lambda L, x: x.index_reduce(0, T(L, [9], "int32"), L.ones(1, 4), "foo"), [A]),
    ("err_oob", lambda L, x, s: x.index_reduce(1, T(L, [0, 5]), s, "prod"), [A, A[:, :2]]),
    ("err_oob_empty_slices", lambda L: L.zeros(0, 3).index_reduce(1, T(L, [5]), L.ones(0, 1), "prod"), []),
    ("err_negative", lambda L, x, s: x.index_reduce(1, T(L, [0, -1]), s, "prod"), [A, A[:, :2]]),
    ("err_oob_noself", lambda L, x, s: x.index_reduce(1, T(L, [0, 5]), s, "mean", include_self=False), [A, A[:, :2]]),
    ("err_negative_noself", lambda L, x, s: x.index_reduce(1, T(L, [0, -1]), s, "amax", include_self=False),
     [A, A[:, :2]]),
    ("err_oob_noself_1d", lambda L: L.zeros(1).index_reduce(0, T(L, [1]), L.ones(1), "prod", include_self=False), []),
    ("err_2d_index", lambda L, x, s: x.index_reduce(1, T(L, [[0, 1]]), s, "prod"), [A, A[:, :2]]),
    ("err_dtype", lambda L, x: x.index_reduce(1, T(L, [0, 1]), L.ones(3, 2, dtype=L.float64), "prod"), [A]),
    ("err_count", lambda L, x, s: x.index_reduce(1, T(L, [0, 1, 2]), s, "prod"), [A, A[:, :2]]),
    ("err_shape", lambda L, x: x.index_reduce(1, T(L, [0, 1]), L.ones(2, 2), "prod"), [A]),
    ("err_scalar_source_dim", lambda L, x: x.index_reduce(1, T(L, [0]), L.ones(()), "prod"), [A]),
    ("err_bool", lambda L: T(L, [True, False]).index_reduce(0, T(L, [0, 1]), T(L, [True, True]), "prod"), []),
    ("err_source_number", lambda L, x: x.index_reduce(0, T(L, [1]), 5, "amax"), [A]),
]

MASKED_SCATTER = [
    ("basic", lambda L, x, s: x.masked_scatter(T(L, A > 0), s), [A, arr(12, seed=5)]),
    ("longer_source_2d", lambda L, x, s: x.masked_scatter(T(L, A > 0), s), [A, arr(4, 5, seed=5)]),
    ("broadcast_mask", lambda L, x, s: x.masked_scatter(T(L, [True, False, True, False]), s), [A, arr(6, seed=5)]),
    ("broadcast_self", lambda L, x, s: x.masked_scatter(T(L, A > 0), s), [A[0], arr(12, seed=5)]),
    ("all_false_empty_source", lambda L, x: x.masked_scatter(L.zeros(3, 4, dtype=L.bool), L.zeros(0)), [A]),
    ("zero_dim", lambda L, x, s: x.masked_scatter(T(L, True), s), [S, S * 3]),
    ("int", lambda L: T(L, [0, 0]).masked_scatter(T(L, [False, True]), T(L, [3])), []),
    ("inplace_grad", lambda L, x, s: (x * 1).masked_scatter_(T(L, A > 0), s), [A, arr(12, seed=5)]),
    ("inplace_transposed_no_grad", lambda L, s: L.zeros(4, 3).t().masked_scatter_(T(L, A > 0), s), [arr(12, seed=5)]),
    ("inplace_broadcast_mask", lambda L, s: L.zeros(2, 3).masked_scatter_(T(L, [True, False, True]), s),
     [arr(6, seed=5)]),
    ("inplace_zero_dim", lambda L: L.zeros(()).masked_scatter_(T(L, True), T(L, [4.])), []),
    ("err_inplace_zero_dim_self_1d_mask", lambda L: L.zeros(()).masked_scatter_(T(L, [True]), T(L, [4.])), []),
    ("err_short_source", lambda L, x: x.masked_scatter(T(L, A > -10), L.ones(11)), [A]),
    ("err_uint8_mask", lambda L, x, s: x.masked_scatter(T(L, A > 0).to(L.uint8), s), [A, arr(12)]),
    ("err_long_mask", lambda L, x, s: x.masked_scatter(T(L, A > 0).long(), s), [A, arr(12)]),
    ("err_dtype", lambda L, x: x.masked_scatter(T(L, A > 0), L.ones(12, dtype=L.float64)), [A]),
    ("err_broadcast", lambda L, x, s: x.masked_scatter(L.ones(5, dtype=L.bool), s), [A, arr(12)]),
    ("err_inplace_expand", lambda L, s: L.zeros(3).masked_scatter_(L.ones(2, 3, dtype=L.bool), s), [arr(6)]),
    ("err_inplace_expand_size", lambda L, s: L.zeros(2, 3).masked_scatter_(L.ones(4, dtype=L.bool), s), [arr(6)]),
    ("err_mask_number", lambda L, x, s: x.masked_scatter(5, s), [A, arr(12)]),
    ("err_source_number", lambda L, x: x.masked_scatter_(T(L, A > 0), 5), [A]),
    ("err_zero_dim_empty_source", lambda L, x: x.masked_scatter(T(L, True), L.zeros(0)), [S]),
]

PUT = [
    ("negative", lambda L, x, s: x.put(T(L, [1, -1]), s), [A, arr(2, seed=5)]),
    ("index_shape_differs", lambda L, x, s: x.put(T(L, [[1], [4]]), s), [A, arr(2, seed=5)]),
    ("source_2d", lambda L, x, s: L.put(x, T(L, [1, 2, 11, 0]), s), [A, arr(2, 2, seed=5)]),
    ("duplicates_last_wins", lambda L, x, s: x.put(T(L, [3, 3]), s), [A, arr(2, seed=5)]),
    ("accumulate", lambda L, x, s: x.put(T(L, [1, 1, -1]), s, accumulate=True), [A, arr(3, seed=5)]),
    ("accumulate_positional", lambda L, x, s: x.put(T(L, [1, 1, -1]), s, True), [A, arr(3, seed=5)]),
    ("transposed_self", lambda L, x, s: x.t().put(T(L, [1, 3]), s), [A, arr(2, seed=5)]),
    ("transposed_self_accumulate", lambda L, x, s: x.t().put(T(L, [1, 1, 7]), s, True), [A, arr(3, seed=5)]),
    ("inplace_transposed_no_grad", lambda L, s: L.zeros(3, 4).t().put_(T(L, [1, -1, 5]), s), [arr(3, seed=5)]),
    ("zero_dim", lambda L, x, s: x.put(T(L, [-1]), s), [S, np.ones(1, np.float32)]),
    ("empty", lambda L: L.zeros(0).put(L.zeros(0, dtype=L.long), L.zeros(0)), []),
    ("int_accumulate", lambda L: L.zeros(3, dtype=L.int32).put(T(L, [0, 0]), T(L, [1, 2], "int32"), True), []),
    ("inplace_grad", lambda L, x, s: (x * 1).put_(T(L, [0, 5]), s, accumulate=True), [A, arr(2, seed=5)]),
    ("err_oob", lambda L, x, s: x.put(T(L, [1, 12]), s), [A, arr(2)]),
    ("err_oob_negative", lambda L, x, s: x.put(T(L, [1, -13]), s), [A, arr(2)]),
    ("err_int32_index", lambda L, x, s: x.put(T(L, [1, 2], "int32"), s), [A, arr(2)]),
    ("err_dtype", lambda L, x: x.put(T(L, [1, 2]), L.ones(2, dtype=L.float64)), [A]),
    ("err_numel", lambda L, x, s: x.put(T(L, [1, 2]), s), [A, arr(3)]),
    ("err_empty_self", lambda L: L.zeros(0).put(T(L, [0]), T(L, [1.])), []),
    ("err_source_number", lambda L, x: x.put(T(L, [1, 2]), 5.), [A]),
]

SCATTER_VIEWS = [
    ("select_dim0", lambda L, x, s: x.select_scatter(s, 0, 1), [A, A[0] * 2]),
    ("select_neg_index", lambda L, x, s: L.select_scatter(x, s, dim=1, index=-1), [A, A[:, 0] * 2]),
    ("select_3d", lambda L, x, s: x.select_scatter(s, -1, 2), [A3, A3[..., 0] + 1]),
    ("select_1d", lambda L, x, s: x.select_scatter(s, 0, -2), [A[0], S]),
    ("select_cast_src", lambda L, x, s: x.select_scatter(s.double(), 0, 1), [A, A[0] * 2]),
    ("select_int_src", lambda L, x: x.select_scatter(L.ones(4, dtype=L.long), 0, 1), [A]),
    ("err_select_oob", lambda L, x, s: x.select_scatter(s, 0, 3), [A, A[0]]),
    ("err_select_oob_neg", lambda L, x, s: x.select_scatter(s, 0, -4), [A, A[0]]),
    ("err_select_size", lambda L, x, s: x.select_scatter(s, 0, 1), [A, A[0, :3]]),
    ("err_select_zero_dim", lambda L, x, s: x.select_scatter(s, 0, 0), [S, S]),
    ("err_select_dim", lambda L, x, s: x.select_scatter(s, 2, 0), [A, A[0]]),
    ("err_select_src_number", lambda L, x: x.select_scatter(5., 0, 0), [A]),
    ("slice_dim0", lambda L, x, s: x.slice_scatter(s, 0, 1, 3), [A, A[:2] * 2]),
    ("slice_step", lambda L, x, s: x.slice_scatter(s, start=0, step=2), [A, A[:2] * 2]),
    ("slice_defaults", lambda L, x, s: L.slice_scatter(x, s), [A, A * 2]),
    ("slice_negative_clamped", lambda L, x, s: x.slice_scatter(s, 1, -10, 1), [A, A[:, :1] * 2]),
    ("slice_end_past", lambda L, x, s: x.slice_scatter(s, 1, -2, 100), [A, A[:, :2] * 2]),
    ("slice_empty", lambda L, x, s: x.slice_scatter(s, 1, 3, 1), [A, A[:, :0]]),
    ("slice_step3", lambda L, x, s: x.slice_scatter(s, -1, 0, 3, 3), [A3, A3[..., :1] * 2]),
    ("err_slice_step0", lambda L, x, s: x.slice_scatter(s, 1, 0, 3, 0), [A, A[:, :2]]),
    ("err_slice_step_neg", lambda L, x, s: x.slice_scatter(s, 1, 0, 3, -1), [A, A[:, :2]]),
    ("err_slice_size", lambda L, x, s: x.slice_scatter(s, 1, 0, 3, 3), [A, A[:, :2]]),
    ("err_slice_zero_dim", lambda L, x, s: x.slice_scatter(s), [S, S]),
    ("err_slice_dim", lambda L, x, s: x.slice_scatter(s, 2), [A, A]),
    ("diag_main", lambda L, x, s: x.diagonal_scatter(s), [A, A[0, :3] * 2]),
    ("diag_offset", lambda L, x, s: x.diagonal_scatter(s, 1), [A, A[0, :3] * 2]),
    ("diag_offset_neg", lambda L, x, s: x.diagonal_scatter(s, -1), [A, A[0, :2] * 2]),
    ("diag_dims_swapped", lambda L, x, s: L.diagonal_scatter(x, s, 0, 1, 0), [A, A[0, :3] * 2]),
    ("diag_3d", lambda L, x, s: x.diagonal_scatter(s, 0, 0, 1), [A3, A3[0, :, :2].T.copy()]),
    ("diag_3d_last_dims", lambda L, x, s: x.diagonal_scatter(s, 1, 1, 2), [A3, A3[:, 0, :3] * 2]),
    ("diag_empty", lambda L, x, s: x.diagonal_scatter(s, 5), [A, A[0, :0]]),
    ("err_diag_size", lambda L, x, s: x.diagonal_scatter(s), [A, A[0, :2]]),
    ("err_diag_same_dims", lambda L, x, s: x.diagonal_scatter(s, 0, 0, 0), [A, A[0, :3]]),
    ("err_diag_dim", lambda L, x, s: x.diagonal_scatter(s, 0, 0, 2), [A, A[0, :3]]),
    ("err_diag_1d", lambda L, x, s: x.diagonal_scatter(s), [A[0], A[0]]),
]

UNRAVEL = [
    ("basic", lambda L: L.unravel_index(T(L, [5, 7, -1]), (3, 4)), []),
    ("zero_dim", lambda L: L.unravel_index(T(L, 5), (3, 4)), []),
    ("2d_indices", lambda L: L.unravel_index(T(L, [[1234], [5678]]), (10, 10, 10, 10)), []),
    ("int_shape", lambda L: L.unravel_index(T(L, [5, 13]), 12), []),
    ("size_shape", lambda L: L.unravel_index(T(L, [5]), L.Size([3, 4])), []),
    ("list_shape", lambda L: L.unravel_index(T(L, [5]), [3, 4]), []),
    ("wraps_too_large", lambda L: L.unravel_index(T(L, [12, -13]), (3, 4)), []),
    ("int32_indices", lambda L: L.unravel_index(T(L, [1], "int32"), (3, 4)), []),
    ("uint8_indices", lambda L: L.unravel_index(T(L, [7], "uint8"), (3, 4)), []),
    ("empty_indices_zero_shape", lambda L: L.unravel_index(L.zeros(0, dtype=L.long), (3, 0)), []),
    ("err_float", lambda L: L.unravel_index(T(L, [1.]), (3, 4)), []),
    ("err_bool", lambda L: L.unravel_index(T(L, [True]), (3, 4)), []),
    ("err_negative_shape", lambda L: L.unravel_index(T(L, [1]), (3, -4)), []),
    ("err_zero_shape", lambda L: L.unravel_index(T(L, [1]), (3, 0)), []),
    ("err_float_shape", lambda L: L.unravel_index(T(L, [1]), 3.0), []),
    ("err_float_in_shape", lambda L: L.unravel_index(T(L, [1]), [3, 2.]), []),
    ("err_tensor_shape", lambda L: L.unravel_index(T(L, [1]), T(L, [3, 4])), []),
    ("err_list_indices", lambda L: L.unravel_index([1], (3, 4)), []),
]

ALL = {"index_copy": INDEX_COPY, "index_reduce": INDEX_REDUCE, "masked_scatter": MASKED_SCATTER, "put": PUT,
       "scatter_views": SCATTER_VIEWS, "unravel_index": UNRAVEL}
PARAMS = [pytest.param(c[1], c[2], id=f"{fam}-{c[0]}") for fam, cases in ALL.items() for c in cases]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fn,arrays", PARAMS)
def test_op_matches_torch(torch, fn, arrays):
    compare(torch, fn, arrays)


def test_unravel_index_with_empty_shape_is_empty_tuple(torch):
    for L in (core, torch):
        assert L.unravel_index(L.tensor([0, 1]), ()) == ()


def test_index_add_source_dim_error_is_runtime_error_like_torch(torch):
    compare(torch, lambda L, x: x.index_add(1, T(L, [0]), L.ones(())), [A])


# -- in-place forms, overlap, layout -----------------------------------------------------------------------------

INPLACE = [
    ("index_copy_", lambda L, y: y.index_copy_(1, L.tensor([3, 0]), L.tensor(A[:, :2] * 2))),
    ("index_reduce_", lambda L, y: y.index_reduce_(0, L.tensor([2, 2]), L.tensor(A[:2] * 2), "amax")),
    ("index_reduce_noself", lambda L, y: y.index_reduce_(1, L.tensor([0, 0]), L.tensor(A[:, :2]), "mean",
                                                         include_self=False)),
    ("masked_scatter_", lambda L, y: y.masked_scatter_(L.tensor(A > 0), L.tensor(arr(12, seed=5)))),
    ("put_", lambda L, y: y.put_(L.tensor([0, -1]), L.tensor([7., 8.]))),
    ("put_accumulate", lambda L, y: y.put_(L.tensor([1, 1]), L.tensor([7., 8.]), accumulate=True)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_writes_self_and_bumps_version(torch, name, fn):
    inplace_writes_self(torch, fn, A)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_leaf_requiring_grad_raises_and_is_allowed_under_no_grad(torch, name, fn):
    inplace_on_leaf_refused(torch, fn, A)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", [
    ("index_copy_", lambda L, y: y.index_copy_(0, L.tensor([1]), y[:1])),
    ("index_reduce_", lambda L, y: y.index_reduce_(0, L.tensor([1]), y[:1], "prod")),
    ("put_", lambda L, y: y.put_(L.tensor([1, 3]), y[0, :2])),
])
def test_inplace_with_overlapping_source_raises_like_torch(torch, name, fn):
    for L in (core, torch):
        y = L.tensor(A)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            fn(L, y)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", [
    ("index_copy", lambda L, x: x.index_copy(0, L.tensor([1]), L.ones(1, 3))),
    ("index_reduce", lambda L, x: x.index_reduce(0, L.tensor([1]), L.ones(1, 3), "amax")),
    ("masked_scatter", lambda L, x: x.masked_scatter(L.ones(4, 3, dtype=L.bool), L.ones(12))),
    ("put", lambda L, x: x.put(L.tensor([1]), L.ones(1))),
    ("select_scatter", lambda L, x: x.select_scatter(L.ones(3), 0, 1)),
    ("slice_scatter", lambda L, x: x.slice_scatter(L.ones(4, 1), 1, 0, 1)),
    ("diagonal_scatter", lambda L, x: x.diagonal_scatter(L.ones(3))),
])
def test_result_strides_match_torch_for_a_transposed_input(torch, name, fn):
    strides = [fn(L, L.zeros(3, 4).t()).stride() for L in (core, torch)]
    assert strides[0] == strides[1]


def test_index_reduce_warns_beta_once_like_torch():
    # TORCH_WARN_ONCE: only the text is checked (the first call in the process warns)
    import core.ops.indexing.index_copy_reduce as m
    m._warned.clear()
    with pytest.warns(UserWarning, match=r"index_reduce\(\) is in beta"):
        core.zeros(2).index_reduce(0, core.tensor([0]), core.ones(1), "amax")


# -- gradients ----------------------------------------------------------------------------------------------------

X = arr(3, 4, dtype=np.float64)
XP = np.abs(X) + 0.5


def t(v):
    return core.tensor(v)


GRADCHECK = [
    ("index_copy", lambda x, s: x.index_copy(1, t([3, 0]), s), [X, X[:, :2] * 2]),
    ("index_copy_zero_dim_source", lambda x, s: x.index_copy(0, t([2]), s), [X[0], np.array(0.3)]),
    ("index_reduce_prod", lambda x, s: x.index_reduce(1, t([0, 2, 0]), s, "prod"), [XP, XP[:, :3] + 0.25]),
    ("index_reduce_mean_noself", lambda x, s: x.index_reduce(0, t([1, 1]), s, "mean", include_self=False),
     [X, X[:2]]),
    ("index_reduce_amax", lambda x, s: x.index_reduce(1, t([3, 3, 1]), s, "amax"), [XP, XP[:, :3] * 1.37]),
    ("masked_scatter", lambda x, s: x.masked_scatter(t(X > 0), s), [X, arr(14, seed=6, dtype=np.float64)]),
    ("masked_scatter_broadcast_self", lambda x, s: x.masked_scatter(t(X > 0), s), [X[0], X.reshape(-1)]),
    ("put", lambda x, s: x.put(t([1, -1, 4]), s), [X, X[0, :3]]),
    ("put_accumulate", lambda x, s: x.put(t([[1], [1]]), s, accumulate=True), [X, X[0, :2]]),
    ("select_scatter", lambda x, s: x.select_scatter(s, 1, 2), [X, X[:, 0] * 2]),
    ("slice_scatter", lambda x, s: x.slice_scatter(s, 1, 1, None, 2), [X, X[:, :2] * 2]),
    ("diagonal_scatter", lambda x, s: x.diagonal_scatter(s, -1), [X, X[0, :2] * 2]),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn,inputs", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_numerical_gradient(name, fn, inputs):
    assert gradcheck(fn, *[core.tensor(a) for a in inputs])


DOUBLE = [
    ("index_copy", lambda L, x: x.index_copy(1, L.tensor([3, 0]), x[:, :2] * 2)),
    ("index_reduce_mean", lambda L, x: x.index_reduce(1, L.tensor([3, 3]), x[:, :2] * 2, "mean")),
    ("index_reduce_prod", lambda L, x: x.index_reduce(1, L.tensor([3, 0]), x[:, :2] + 1, "prod")),
    ("masked_scatter", lambda L, x: x.masked_scatter(x > 0, x.flip(0) * 3)),
    ("put", lambda L, x: x.put(L.tensor([1, -1]), x[1, :2] * 2)),
    ("select_scatter", lambda L, x: x.select_scatter(x[1] * 3, 0, 0)),
    ("slice_scatter", lambda L, x: x.slice_scatter(x[:, 1:3] * 3, 1, 0, 4, 2)),
    ("diagonal_scatter", lambda L, x: x.diagonal_scatter(x[0, :3] * 3, 0)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", DOUBLE, ids=[c[0] for c in DOUBLE])
def test_double_backward_matches_torch(torch, name, fn):
    res = []
    for L in (core, torch):
        x = L.tensor(X, requires_grad=True)
        y = fn(L, x)
        (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (g * L.tensor(X)).sum().backward()
        res.append((g.detach(), x.grad))
    assert_tensor_equal(res[0][0], res[1][0])
    assert_tensor_equal(res[0][1], res[1][1])


# -- registry metadata ----------------------------------------------------------------------------------------------

NEW = ("index_copy", "index_reduce", "masked_scatter", "put", "select_scatter", "slice_scatter", "diagonal_scatter")


@pytest.mark.parametrize("name", NEW)
def test_new_ops_are_scatter_like_cli_commands_with_formula_and_example(name):
    from core.ops.registry import OPS
    from tensorcli import opspec
    info = OPS[name]
    assert info.kind == "scatter" and info.category == "indexing" and opspec.is_command(name)
    assert "=" in opspec.entry(name).rule(2, 1)
    assert opspec.examples(name)[0].startswith(f"tensorcli {name.replace('_', '-')} ")


@pytest.mark.parametrize("name,inplace", [("index_copy", "index_copy_"), ("index_reduce", "index_reduce_"),
                                          ("masked_scatter", "masked_scatter_"), ("put", "put_")])
def test_inplace_variants_are_recorded_and_bound(name, inplace):
    from core.ops.registry import METHODS, OPS
    assert OPS[name].inplace == inplace
    assert getattr(core.Tensor, inplace) is METHODS[inplace]


def test_unravel_index_is_a_cli_command():
    from tensorcli import opspec
    assert opspec.is_command("unravel_index") and opspec.entry("unravel_index").params == {"indices": "tensor"}


# -- CLI commands (--json results vs torch) -------------------------------------------------------------------------

XJ = "[[1,2,3],[4,5,6]]"
SRC = "[[10,20],[30,40]]"
CLI_CASES = [
    (["index-copy", XJ, "--dim", "1", "--index", "[2,0]", "--source", SRC],
     lambda t, x: x.index_copy(1, t.tensor([2, 0]), t.tensor([[10, 20], [30, 40]]))),
    (["index-reduce", XJ, "--dim", "1", "--index", "[2,2]", "--source", SRC, "--reduce", "amin", "--no-include-self"],
     lambda t, x: x.index_reduce(1, t.tensor([2, 2]), t.tensor([[10, 20], [30, 40]]), "amin", include_self=False)),
    (["masked-scatter", XJ, "--mask", "[[true,false,true],[false,false,true]]", "--source", "[10,20,30,40]"],
     lambda t, x: x.masked_scatter(t.tensor([[True, False, True], [False, False, True]]), t.tensor([10, 20, 30, 40]))),
    (["put", XJ, "--index", "[0,5,0]", "--source", "[10,20,30]", "--accumulate"],
     lambda t, x: x.put(t.tensor([0, 5, 0]), t.tensor([10, 20, 30]), accumulate=True)),
    (["select-scatter", XJ, "--src", "[7,8]", "--dim", "1", "--index", "0"],
     lambda t, x: x.select_scatter(t.tensor([7, 8]), 1, 0)),
    (["slice-scatter", XJ, "--src", "[[7],[9]]", "--dim", "1", "--start", "1", "--end", "2"],
     lambda t, x: x.slice_scatter(t.tensor([[7], [9]]), 1, 1, 2)),
    (["diagonal-scatter", XJ, "--src", "[7,8]", "--offset", "1"],
     lambda t, x: x.diagonal_scatter(t.tensor([7, 8]), 1)),
    (["unravel-index", "[5,7,-1]", "--shape", "3,4"], lambda t, x: t.unravel_index(x, (3, 4))),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("argv,ref", CLI_CASES, ids=[c[0][0] for c in CLI_CASES])
def test_cli_command_json_result_matches_torch(torch, argv, ref):
    import json
    from typer.testing import CliRunner
    from conftest import cli_app_with
    r = CliRunner().invoke(cli_app_with(("ops",)), [*argv, "--json"], env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["result"]
    want = ref(torch, torch.tensor(json.loads(argv[1])))
    for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
        assert g["shape"] == list(w.shape) and g["dtype"] == str(w.dtype).replace("torch.", "")
        assert g["data"] == w.tolist()


# -- blocked gather / scatter kernels (flat offsets per block of index rows) ------------------------------------------

BLOCKED = [
    ("gather_dim1", lambda L, x, i: L.gather(x, 1, i), (37, 29), (37, 23), 1),
    ("gather_dim0", lambda L, x, i: L.gather(x, 0, i), (37, 29), (41, 29), 0),
    ("gather_3d_smaller_index", lambda L, x, i: L.gather(x, 2, i), (9, 7, 11), (8, 5, 13), 2),
    ("gather_3d_dim0", lambda L, x, i: L.gather(x, 0, i), (9, 7, 11), (12, 6, 10), 0),
    ("gather_transposed_input", lambda L, x, i: L.gather(x.t(), 1, i), (29, 37), (37, 23), 1),
    ("scatter_dim1", lambda L, x, i: x.clone().scatter_(1, i, x.clone()[:, :23] * 2), (37, 29), (37, 23), 1),
    ("scatter_dim0_value", lambda L, x, i: x.clone().scatter_(0, i, 1.5), (37, 29), (30, 29), 0),
    ("scatter_3d", lambda L, x, i: x.clone().scatter_(1, i, x.clone() + 1), (9, 7, 11), (8, 5, 10), 1),
    ("scatter_add_dim1", lambda L, x, i: x.clone().scatter_add_(1, i, x.clone()[:, :23]), (37, 29), (37, 23), 1),
    ("scatter_add_dim0", lambda L, x, i: x.clone().scatter_add_(0, i, x.clone()[:30]), (37, 29), (30, 29), 0),
    ("scatter_add_transposed_self", lambda L, x, i: x.clone().t().scatter_add_(1, i, x.clone().t()[:, :20]),
     (29, 37), (37, 20), 1),
    ("scatter_add_int32_index", lambda L, x, i: x.clone().scatter_add_(1, i.int(), x.clone()[:, :23]), (37, 29),
     (37, 23), 1),
    ("scatter_reduce_amax", lambda L, x, i: x.scatter_reduce(1, i, x[:, :23] * 3, "amax", include_self=False),
     (37, 29), (37, 23), 1),
]


@pytest.mark.parametrize("block", [7, 64, 1 << 16])
@pytest.mark.parametrize("name,fn,xshape,ishape,dim", BLOCKED, ids=[c[0] for c in BLOCKED])
def test_blocked_kernels_are_bitwise_equal_to_torch(torch, monkeypatch, block, name, fn, xshape, ishape, dim):
    from core.ops.indexing import kernels
    monkeypatch.setattr(kernels, "_BLOCK", block)
    x = arr(*xshape, seed=7)
    size = x.T.shape[dim] if "transposed" in name else xshape[dim]
    i = np.random.default_rng(8).integers(0, size, ishape)
    r = [fn(L, L.tensor(x), L.tensor(i)) for L in (core, torch)]
    assert r[0].shape == tuple(r[1].shape) and str(r[0].dtype) == str(r[1].dtype)
    np.testing.assert_array_equal(r[0]._data, r[1].numpy())


@pytest.mark.parametrize("block", [7, 64, 1 << 16])
@pytest.mark.parametrize("op", ["scatter_", "scatter_add_"])
@pytest.mark.parametrize("dim,bad", [(1, (20, 3)), (0, (11, 5)), (1, (0, 0))])
def test_out_of_bounds_scatter_writes_the_elements_before_it_like_torch(torch, monkeypatch, block, op, dim, bad):
    from core.ops.indexing import kernels
    monkeypatch.setattr(kernels, "_BLOCK", block)
    i = np.random.default_rng(9).integers(0, 29 if dim == 1 else 37, (30, 23))
    i[bad] = -1 if bad == (11, 5) else 99
    res = []
    for L in (core, torch):
        y = L.zeros(37, 29)
        with pytest.raises(RuntimeError) as e:
            getattr(y, op)(dim, L.tensor(i), L.ones(30, 23))
        res.append((str(e.value), y))
    assert res[0][0] == res[1][0]
    np.testing.assert_array_equal(res[0][1]._data, res[1][1].numpy())


def test_gather_out_of_bounds_in_a_later_block_raises_torchs_error(torch, monkeypatch):
    from core.ops.indexing import kernels
    monkeypatch.setattr(kernels, "_BLOCK", 64)
    i = np.zeros((40, 8), np.int64)
    i[33, 2], i[35, 0] = 8, -3
    compare(torch, lambda L, x: x.gather(1, L.tensor(i)), [arr(40, 8)])
    compare(torch, lambda L, x: x.t().gather(1, L.tensor(i)), [arr(8, 40)])


# -- random shapes (hypothesis) -------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def slab_case(draw):
    """input, dim, a 1-D index along dim (sometimes out of bounds) and a matching source."""
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    dim = draw(st.integers(-nd, nd - 1))
    n = draw(st.integers(0, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    hi = shape[dim] + (1 if draw(st.integers(0, 5)) == 0 else 0)
    idx = rng.integers(0, hi, n)
    sshape = list(shape)
    sshape[dim] = n
    return rng.standard_normal(shape).astype(np.float32), dim, idx, rng.standard_normal(sshape).astype(np.float32)


@pytest.mark.filterwarnings("ignore::UserWarning")
@SETTINGS
@given(case=slab_case(), how=st.sampled_from(["copy", "prod", "mean", "amax", "amin"]), include_self=st.booleans())
def test_index_copy_and_reduce_random(torch, case, how, include_self):
    x, dim, idx, src = case
    if how == "copy":
        idx = np.unique(idx)[:src.shape[dim]]   # distinct indices: torch leaves duplicates' order undefined
        src = src[(slice(None),) * (dim % x.ndim) + (slice(0, len(idx)),)]
        compare(torch, lambda L, a, s: a.index_copy(dim, L.tensor(idx), s), [x, src])
    else:
        compare(torch, lambda L, a, s: a.index_reduce(dim, L.tensor(idx), s, how, include_self=include_self), [x, src])


@SETTINGS
@given(case=slab_case(), accumulate=st.booleans(), start=st.integers(-5, 5), step=st.integers(1, 3))
def test_put_and_slice_scatter_random(torch, case, accumulate, start, step):
    x, dim, idx, _ = case
    flat = np.random.default_rng(int(idx.sum())).integers(-x.size, x.size + (len(idx) == 3), len(idx))
    if not accumulate:
        flat = np.unique(flat % x.size)
    vals = np.arange(len(flat), dtype=np.float32) + 1
    compare(torch, lambda L, a, v: a.put(L.tensor(flat), v, accumulate), [x, vals])
    d = dim % x.ndim
    n = len(range(*slice(start, None, step).indices(x.shape[d])))
    src = np.ones(x.shape[:d] + (n,) + x.shape[d + 1:], np.float32) * 7
    compare(torch, lambda L, a, s: a.slice_scatter(s, dim, start, None, step), [x, src])


@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 2 ** 16),
       extra=st.integers(-1, 2), dim=st.integers(-3, 2), offset=st.integers(-3, 3))
def test_masked_select_and_diagonal_scatter_random(torch, shape, seed, extra, dim, offset):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    mask = rng.random(shape[-1 if extra < 0 else 0:]) > 0.5     # sometimes only the last dim: broadcasts
    k = int(np.count_nonzero(np.broadcast_to(mask, x.shape)))
    src = rng.standard_normal(max(0, k + extra)).astype(np.float32)   # extra < 0: too short, an error
    compare(torch, lambda L, a, s: a.masked_scatter(L.tensor(mask), s), [x, src])
    if len(shape) > 1 or dim in (-1, 0):
        d = dim % len(shape) if -len(shape) <= dim < len(shape) else 0
        sel = rng.standard_normal(x.shape[:d] + x.shape[d + 1:]).astype(np.float32)
        i = int(rng.integers(-x.shape[d], x.shape[d]))
        compare(torch, lambda L, a, s: a.select_scatter(s, d, i), [x, sel])
    if len(shape) >= 2:
        dshape = np.diagonal(x, offset, 0, 1).shape if abs(offset) < 5 else ()
        compare(torch, lambda L, a, s: a.diagonal_scatter(s, offset), [x, np.ones(dshape, np.float32)])
