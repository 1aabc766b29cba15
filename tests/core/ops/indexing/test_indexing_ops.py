"""Differential tests vs torch for the indexing ops (function, method and in-place forms): values,
dtypes, shapes, grad_fn names, gradients, and errors (class and PyTorch's message)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from indexing_util import arr, compare, inplace_on_leaf_refused, inplace_writes_self

A = arr(3, 4)
A3 = arr(2, 3, 4, seed=2)
A4 = arr(2, 3, 4, 5, seed=3)
S = np.array(5.0, np.float32)
I = np.array([[0, 1], [2, 0], [1, 1]])
M = A > 0
TIES = np.array([[1., 2, 2, 0], [0, 3, 3, 1]], np.float32)
TIES_SRC = np.array([[1., 1, 2], [3, 3, 0]], np.float32)


def T(L, v, dtype=None):
    return L.tensor(v) if dtype is None else L.tensor(v, dtype=getattr(L, dtype))


def F(L):
    return L.nn.functional


# (id, fn(lib, *tensors), input arrays[, options])
GATHER = [
    ("dim1", lambda L, x: x.gather(1, T(L, I)), [A]),
    ("dim0", lambda L, x: L.gather(x, 0, T(L, [[0, 1, 2, 0], [2, 2, 2, 2]])), [A]),
    ("neg_dim", lambda L, x: x.gather(-1, T(L, I)), [A]),
    ("kwargs", lambda L, x: L.gather(x, dim=1, index=T(L, I)), [A]),
    ("3d_dim1_smaller_index", lambda L, x: x.gather(1, T(L, [[[0, 1, 2, 2]], [[2, 2, 1, 0]]])), [A3]),
    ("3d_dim2", lambda L, x: x.gather(2, T(L, np.zeros((1, 2, 5), np.int64) + 3)), [A3]),
    ("4d_dim_minus3", lambda L, x: x.gather(-3, T(L, np.array([[[[2, 0, 1]]]]))), [A4]),
    ("int32_index", lambda L, x: x.gather(1, T(L, I, "int32")), [A]),
    ("duplicates_accumulate_grad", lambda L, x: x.gather(1, T(L, [[0, 0, 0], [1, 1, 1], [2, 3, 3]])), [A]),
    ("index_longer_along_dim", lambda L, x: x.gather(1, T(L, np.zeros((3, 7), np.int64))), [A]),
    ("empty_index", lambda L, x: x.gather(1, L.zeros(0, 2, dtype=L.long)), [A]),
    ("empty_index_any_rank", lambda L, x: x.gather(1, L.zeros(0, dtype=L.long)), [A]),
    ("zero_dim_input", lambda L, x: L.gather(x, 0, T(L, 0)), [S]),
    ("zero_dim_input_1d_index", lambda L, x: L.gather(x, 0, T(L, [0, 0])), [S]),
    ("sparse_grad_flag", lambda L, x: L.gather(x, 1, T(L, I), sparse_grad=True), [A]),
    ("int_input", lambda L: L.gather(T(L, [10, 20, 30, 40, 50]), 0, T(L, [0, 2, 4, 1])), []),
    ("err_out_of_bounds", lambda L, x: x.gather(1, T(L, [[0, 9], [7, 0]])), [A]),
    ("err_out_of_bounds_dim0", lambda L, x: x.gather(0, T(L, [[0, 9], [7, 0]])), [A]),
    ("err_negative_index", lambda L, x: x.gather(1, T(L, [[0, -1]])), [A]),
    ("err_float_index", lambda L, x: x.gather(1, T(L, [[0.]])), [A]),
    ("err_dim_out_of_range", lambda L, x: x.gather(2, T(L, I)), [A]),
    ("err_rank_mismatch", lambda L, x: x.gather(1, T(L, [0, 1])), [A]),
    ("err_size_mismatch", lambda L, x: x.gather(1, L.zeros(4, 2, dtype=L.long)), [A]),
    ("err_size_mismatch_dim0", lambda L, x: x.gather(0, L.zeros(3, 7, dtype=L.long)), [A]),
    ("err_zero_dim_index_1", lambda L, x: L.gather(x, 0, T(L, [1])), [S]),
]

SCATTER = [
    ("src", lambda L, x, s: x.scatter(1, T(L, [[0, 1], [2, 0], [3, 3]]), s), [A, A[:, :2] * 2]),
    ("value", lambda L, x: x.scatter(1, T(L, I), 2.5), [A]),
    ("value_kw", lambda L, x: L.scatter(x, 1, T(L, I), value=2.5), [A]),
    ("src_kw", lambda L: L.ones(2, 2).scatter(1, T(L, [[0]]), src=L.zeros(2, 2)), []),
    ("dim0_seed_example", lambda L, s: L.zeros(3, 4).scatter(0, T(L, [[0, 1, 2], [2, 0, 0]]), s), [A[:2, :3]]),
    ("3d_dim_minus1", lambda L, x, s: x.scatter(-1, T(L, np.array([[[3, 0]], [[1, 1]]])), s), [A3, A3]),
    ("int32_index", lambda L, x: x.scatter(1, T(L, I, "int32"), 1.0), [A]),
    ("long_self_float_value", lambda L: L.ones(2, 2, dtype=L.long).scatter(1, T(L, [[0]]), 2.7), []),
    ("empty_index", lambda L, x: x.scatter(1, L.zeros(0, dtype=L.long), 2.0), [A]),
    ("zero_dim", lambda L, x: x.scatter(0, T(L, 0), 2.0), [S]),
    ("reduce_add_not_differentiable", lambda L, x, s: x.scatter(1, T(L, I), s, reduce="add"), [A, A]),
    ("reduce_multiply_value", lambda L, x: x.scatter(1, T(L, I), 3.0, reduce="multiply"), [A]),
    ("reduce_add_no_grad", lambda L: L.ones(2, 2).scatter(1, T(L, [[0, 0]]), L.ones(2, 2), reduce="add"), []),
    ("add_", lambda L, x, s: x.scatter_add(1, T(L, [[0, 0], [1, 1], [3, 3]]), s), [A, A[:, :2] * 2]),
    ("add_index_longer_along_dim", lambda L, x, s: x.scatter_add(0, L.zeros(4, 1, dtype=L.long), s),
     [A, np.ones((4, 1), np.float32)]),
    ("add_int", lambda L: L.zeros(5, dtype=L.long).scatter_add(0, T(L, [0, 0, 4]), T(L, [1, 2, 3])), []),
    ("err_bad_reduce", lambda L, x: x.scatter(1, T(L, I), 3.0, reduce="sum"), [A]),
    ("err_out_of_bounds", lambda L, x: x.scatter(1, T(L, [[0, 5]]), 3.0), [A]),
    ("err_negative_index", lambda L, x: x.scatter(1, T(L, [[0, -1]]), 3.0), [A]),
    ("err_rank", lambda L, x: x.scatter(1, T(L, [0]), 3.0), [A]),
    ("err_src_rank", lambda L, x: x.scatter(1, T(L, [[0]]), L.ones(3)), [A]),
    ("err_src_zero_dim", lambda L, x: x.scatter(1, T(L, [[0]]), L.tensor(1.)), [A]),
    ("err_size_self", lambda L, x, s: x.scatter(1, L.zeros(4, 1, dtype=L.long), s), [A, A]),
    ("err_size_src", lambda L, x: x.scatter(0, T(L, [[0, 0, 0]]), L.ones(1, 2)), [A]),
    ("err_dtype", lambda L, x: x.scatter(0, T(L, [[0]]), L.ones(1, 1, dtype=L.float64)), [A]),
    ("err_float_index", lambda L, x: x.scatter(0, T(L, [[0.]]), 1.0), [A]),
    ("err_dim", lambda L, x: x.scatter(2, T(L, [[0]]), 1.0), [A]),
    ("err_grad_src_larger_than_index", lambda L, x, s: x.scatter(1, T(L, [[0], [1], [2]]), s), [A, A]),
    ("add_err_src_number", lambda L, x: x.scatter_add(1, T(L, I), 1.0), [A]),
]

REDUCE = []
for _red in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        REDUCE += [
            (f"{_red}_{_inc}", lambda L, x, s, r=_red, i=_inc:
             x.scatter_reduce(1, T(L, [[0, 0, 1], [2, 2, 2], [3, 0, 3]]), s, r, include_self=i), [A, A[:, :3] * 2]),
            (f"{_red}_{_inc}_ties", lambda L, x, s, r=_red, i=_inc:
             x.scatter_reduce(1, T(L, [[0, 0, 1], [1, 1, 1]]), s, r, include_self=i), [TIES, TIES_SRC]),
            (f"{_red}_{_inc}_int", lambda L, r=_red, i=_inc:
             T(L, [1, 2, 3, 4]).scatter_reduce(0, T(L, [0, 0, 1]), T(L, [4, 5, 7]), r, include_self=i), []),
        ]
REDUCE += [
    ("prod_zeros", lambda L, x, s: x.scatter_reduce(0, T(L, [0, 0, 1, 2]), s, "prod"),
     [np.array([2., 0., 3.], np.float32), np.array([0., 4., 5., 0.], np.float32)]),
    ("mean_float", lambda L, x: x.scatter_reduce(0, T(L, [0, 0]), T(L, [2., 4.]), "mean"), [np.ones(3, np.float32)]),
    ("err_bad_reduce", lambda L, x, s: x.scatter_reduce(1, T(L, [[0]]), s, "add"), [A, A]),
    ("err_dtype", lambda L, x: x.scatter_reduce(0, T(L, [0]), L.ones(1, dtype=L.float64), "sum"), [A[0]]),
    ("err_oob", lambda L, x: x.scatter_reduce(0, T(L, [4]), L.ones(1), "sum"), [A[0]]),
]

INDEX_SELECT = [
    (f"dim{d}", lambda L, x, d=d: x.index_select(d, T(L, [0, 2, 2])), [A]) for d in (0, 1, -1)
] + [
    ("function_form", lambda L, x: L.index_select(x, 1, T(L, [3, 0])), [A]),
    ("zero_dim_index", lambda L, x: x.index_select(1, T(L, 1)), [A]),
    ("int32_index", lambda L, x: x.index_select(1, T(L, [1, 1], "int32")), [A]),
    ("zero_dim_input", lambda L, x: x.index_select(0, T(L, [0])), [S]),
    ("empty_index", lambda L, x: x.index_select(1, L.tensor([], dtype=L.long)), [A]),
    ("seed_linspace", lambda L: L.index_select(L.linspace(1, 12, steps=12).view(3, 4), 1, L.LongTensor([0, 2])), []),
    ("err_oob_dim0", lambda L, x: x.index_select(0, T(L, [0, 7])), [A]),
    ("err_oob_dim1", lambda L, x: x.index_select(1, T(L, [0, 7])), [A]),
    ("err_negative_dim1", lambda L, x: x.index_select(1, T(L, [0, -1])), [A]),
    ("err_oob_3d_dim2", lambda L, x: x.index_select(2, T(L, [0, 7])), [A3]),
    ("err_oob_3d_dim1", lambda L, x: x.index_select(1, T(L, [0, 7])), [A3]),
    ("err_2d_index", lambda L, x: x.index_select(1, T(L, [[1]])), [A]),
    ("err_float_index", lambda L, x: x.index_select(1, T(L, [1.])), [A]),
    ("err_zero_dim_two_values", lambda L, x: x.index_select(0, T(L, [0, 0])), [S]),
    ("err_zero_dim_oob", lambda L, x: x.index_select(0, T(L, [1])), [S]),
    ("err_dim", lambda L, x: x.index_select(2, T(L, [1])), [A]),
]

INDEX_ADD = [
    ("alpha_duplicates", lambda L, x, s: x.index_add(1, T(L, [0, 0, 3]), s, alpha=2), [A, A[:, :3]]),
    ("dim0", lambda L, x, s: L.index_add(x, 0, T(L, [2, 2]), s), [A, A[:2]]),
    ("int32_index", lambda L, x, s: x.index_add(0, T(L, [2, 0], "int32"), s), [A, A[:2]]),
    ("zero_dim", lambda L, x, s: x.index_add(0, T(L, [0]), s), [S, S]),
    ("zero_dim_index", lambda L, x: x.index_add(0, T(L, 1), T(L, [2.])), [A[0, :3]]),
    ("long_alpha", lambda L: L.ones(3, dtype=L.long).index_add(0, T(L, [1]), T(L, [2]), alpha=3), []),
    ("large_slabs_dim0", lambda L, x, s: x.index_add(0, T(L, [2, 0, 2, 2]), s, alpha=0.5), [arr(3, 600), arr(4, 600)]),
    ("large_slabs_dim1", lambda L, x, s: x.index_add(1, T(L, [1, 1, 0]), s), [arr(600, 2), arr(600, 3)]),
    ("long_float_alpha_truncated", lambda L: L.ones(3, dtype=L.long).index_add(0, T(L, [1]), T(L, [3]), alpha=2.7), []),
    ("err_oob", lambda L, x, s: x.index_add(1, T(L, [0, 4]), s), [A, A[:, :2]]),
    ("err_negative", lambda L, x, s: x.index_add(1, T(L, [0, -1]), s), [A, A[:, :2]]),
    ("err_oob_alpha", lambda L, x, s: x.index_add(1, T(L, [0, 4]), s, alpha=2), [A, A[:, :2]]),
    ("err_oob_1d", lambda L, x: x.index_add(0, T(L, [0, 7]), L.ones(2)), [A[0]]),
    ("err_num_indices", lambda L, x, s: x.index_add(1, T(L, [0, 1]), s), [A, A[:, :3]]),
    ("err_shape", lambda L, x, s: x.index_add(1, T(L, [0, 1]), s), [A, A[:2, :2]]),
    ("err_2d_index", lambda L, x, s: x.index_add(1, T(L, [[0, 1]]), s), [A, A[:, :2]]),
    ("err_float_index", lambda L, x, s: x.index_add(1, T(L, [0., 1]), s), [A, A[:, :2]]),
    ("err_dtype", lambda L, x: x.index_add(1, T(L, [0, 1]), L.ones(3, 2, dtype=L.float64)), [A]),
    ("err_source_rank", lambda L, x: x.index_add(1, T(L, [0, 1]), L.ones(3, 2, 1)), [A]),
    ("err_zero_dim_source", lambda L, x: x.index_add(0, T(L, [0]), L.tensor(2.)), [A[0]]),
]

INDEX_FILL = [
    ("scalar", lambda L, x: x.index_fill(1, T(L, [0, 0, -1]), 2.5), [A]),
    ("tensor_value", lambda L, x, v: x.index_fill(0, T(L, [0, 2]), v), [A, np.array(2.5, np.float32)]),
    ("tensor_value_negative_index_backward", lambda L, x, v: x.index_fill(1, T(L, [0, -1]), v),
     [A, np.array(2.5, np.float32)]),
    ("zero_dim_index", lambda L, x: x.index_fill(1, T(L, 2), 2.5), [A]),
    ("zero_dim_self", lambda L, x: x.index_fill(0, T(L, [0]), 2.5), [S]),
    ("long_self_float_value", lambda L: L.ones(3, dtype=L.long).index_fill(0, T(L, [1]), 2.7), []),
    ("err_value_1d", lambda L, x, v: x.index_fill(1, T(L, [0]), v), [A, np.array([2.5], np.float32)]),
    ("err_oob", lambda L, x: x.index_fill(1, T(L, [4]), 2.5), [A]),
    ("err_oob_negative", lambda L, x: x.index_fill(1, T(L, [-5]), 2.5), [A]),
    ("err_int32_index", lambda L, x: x.index_fill(1, T(L, [0], "int32"), 2.5), [A]),
    ("err_2d_index", lambda L, x: x.index_fill(1, T(L, [[0]]), 2.5), [A]),
]

MASKED = [
    ("fill", lambda L, x: x.masked_fill(T(L, M), 1.5), [A]),
    ("fill_tensor_value", lambda L, x, v: x.masked_fill(T(L, M), v), [A, np.array(1.5, np.float32)]),
    ("fill_broadcast_mask", lambda L, x: x.masked_fill(T(L, M[None, :2]), 1.5), [A[:2]]),
    ("fill_broadcast_self", lambda L, x: x.masked_fill(T(L, np.stack([M, ~M])), 1.5), [A]),
    ("fill_long_self_float_value", lambda L: L.ones(3, dtype=L.long).masked_fill(T(L, [True, False, True]), 2.7), []),
    ("fill_long_self_tensor_value", lambda L: L.ones(3, dtype=L.long).masked_fill(T(L, [True, False, True]),
                                                                                 L.tensor(2.7)), []),
    ("fill_inplace_broadcast_mask", lambda L: L.ones(2, 4).masked_fill_(L.ones(1, 4, dtype=L.bool), 1.0), []),
    ("fill_inplace_grad", lambda L, x, v: (x * 1).masked_fill_(T(L, M), v), [A, np.array(1.5, np.float32)]),
    ("err_fill_value_1d", lambda L, x, v: x.masked_fill(T(L, M), v), [A, np.array([1.5], np.float32)]),
    ("err_fill_shape", lambda L, x: x.masked_fill(L.ones(5, dtype=L.bool), 1.5), [A]),
    ("err_fill_inplace_broadcast", lambda L: L.ones(2, 4).masked_fill_(L.ones(3, 1, 4, dtype=L.bool), 1.0), []),
] + [
    (f"err_fill_mask_{dt}", lambda L, x, dt=dt: x.masked_fill(T(L, M).to(getattr(L, dt)), 1.5), [A])
    for dt in ("int64", "uint8", "int32", "float32", "float64", "int16", "int8", "float16")
] + [
    ("select", lambda L, x: x.masked_select(T(L, M)), [A]),
    ("select_function", lambda L, x: L.masked_select(x, x.ge(0.5)), [A]),
    ("select_broadcast_self", lambda L, x: x.masked_select(T(L, np.stack([M, ~M]))), [A]),
    ("select_broadcast_mask", lambda L, x: x.masked_select(T(L, M[0])), [A]),
    ("select_zero_dim", lambda L, x: x.masked_select(L.tensor(True)), [S]),
    ("err_select_shape", lambda L, x: x.masked_select(L.ones(5, dtype=L.bool)), [A]),
    ("err_select_float_mask", lambda L, x: x.masked_select(L.ones(4)), [A]),
    ("err_select_uint8_mask", lambda L, x: x.masked_select(L.ones(4, dtype=L.uint8)), [A]),
]

TAKE = [
    ("take", lambda L, x: x.take(T(L, [[0, 11], [-1, -12], [3, 3]])), [A]),
    ("take_function", lambda L, x: L.take(x, T(L, [5, 5])), [A]),
    ("take_zero_dim", lambda L, x: x.take(T(L, 0)), [S]),
    ("take_empty", lambda L: L.ones(0).take(L.tensor([], dtype=L.long)), []),
    ("err_take_oob", lambda L, x: x.take(T(L, [[0, 19], [17, 0]])), [A]),
    ("err_take_oob_negative", lambda L, x: x.take(T(L, [-13])), [A]),
    ("err_take_int32", lambda L, x: x.take(T(L, [1], "int32")), [A]),
    ("err_take_from_empty", lambda L: L.ones(0).take(T(L, [0])), []),
    ("along_dim", lambda L, x: x.take_along_dim(T(L, [[0], [1], [2]]), 1), [A]),
    ("along_dim_broadcast", lambda L, x: L.take_along_dim(x, T(L, [[0, 1, 2]]), 1), [A]),
    ("along_dim_wraps_modulo", lambda L, x: x.take_along_dim(T(L, [[0, -5, 9]]), 1), [A]),
    ("along_dim_none", lambda L, x: x.take_along_dim(T(L, [[0], [1], [2]])), [A]),
    ("along_dim_none_1d", lambda L, x: x.take_along_dim(T(L, [0, 11])), [A]),
    ("along_dim_none_int32", lambda L, x: x.take_along_dim(T(L, [0], "int32")), [A]),
    ("along_dim_3d", lambda L, x: L.take_along_dim(x, T(L, [[[0], [2]]]), -1), [A3]),
    ("err_along_dim_none_negative", lambda L, x: x.take_along_dim(T(L, [0, -1])), [A]),
    ("err_along_dim_broadcast", lambda L, x: x.take_along_dim(T(L, [[0, 1, 2]]), 0), [A]),
    ("err_along_dim_rank", lambda L, x: x.take_along_dim(T(L, [[[0]]]), 1), [A]),
    ("err_along_dim_int32", lambda L, x: x.take_along_dim(T(L, [[0]], "int32"), 1), [A]),
    ("err_along_dim_float", lambda L, x: x.take_along_dim(T(L, [[1.]]), 1), [A]),
    ("err_along_dim_dim", lambda L, x: x.take_along_dim(T(L, [[1]]), 2), [A]),
]

NZ = np.array([[1, 0], [0, 3]])
NONZERO = [
    ("nonzero", lambda L: L.nonzero(T(L, NZ)), []),
    ("nonzero_as_tuple", lambda L: L.nonzero(T(L, NZ), as_tuple=True), []),
    ("nonzero_method_float", lambda L, x: x.nonzero(), [A]),
    ("nonzero_zero_dim", lambda L: L.nonzero(T(L, 3)), []),
    ("nonzero_zero_dim_zero", lambda L: L.nonzero(T(L, 0)), []),
    ("nonzero_zero_dim_as_tuple", lambda L: L.nonzero(T(L, 3), as_tuple=True), []),
    ("nonzero_zero_dim_zero_as_tuple", lambda L: L.nonzero(T(L, 0), as_tuple=True), []),
    ("nonzero_bool", lambda L: T(L, [True, False, True]).nonzero(), []),
    ("argwhere", lambda L: L.argwhere(T(L, NZ)), []),
    ("argwhere_zero_dim", lambda L: L.argwhere(T(L, 2.)), []),
    ("where_one_arg", lambda L: L.where(T(L, NZ)), []),
    ("where_one_arg_3d", lambda L, x: L.where(x > 0), [A3]),
]

ONE_HOT = [
    ("infer", lambda L: F(L).one_hot(T(L, [0, 2, 1])), []),
    ("num_classes", lambda L: F(L).one_hot(T(L, [[0, 2], [1, 0]]), 5), []),
    ("zero_dim", lambda L: F(L).one_hot(T(L, 2), 3), []),
    ("empty_with_num_classes", lambda L: F(L).one_hot(L.tensor([], dtype=L.long), 3), []),
    ("core_namespace", lambda L: (L.one_hot if L is core else L.nn.functional.one_hot)(T(L, [1]), 2), []),
    ("err_too_small", lambda L: F(L).one_hot(T(L, [0, 2, 1]), 2), []),
    ("err_negative", lambda L: F(L).one_hot(T(L, [0, -1, 1]), 3), []),
    ("err_negative_infer", lambda L: F(L).one_hot(T(L, [0, -1, 1])), []),
    ("err_float", lambda L: F(L).one_hot(T(L, [0., 1])), []),
    ("err_int32", lambda L: F(L).one_hot(T(L, [0, 1], "int32")), []),
    ("err_empty_infer", lambda L: F(L).one_hot(L.tensor([], dtype=L.long)), []),
    ("err_num_classes_minus2", lambda L: F(L).one_hot(T(L, [1]), -2), []),
]

TRI = [
    (f"{fn}_{r}_{c}_{o}", lambda L, fn=fn, r=r, c=c, o=o: getattr(L, fn)(r, c, o), [])
    for fn in ("triu_indices", "tril_indices")
    for r, c, o in [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (3, 0, 0), (5, 2, -10), (2, 5, 10), (1, 1, 0)]
] + [
    ("tril_indices_int32", lambda L: L.tril_indices(3, 3, dtype=L.int32), []),
    ("err_tril_indices_negative_row", lambda L: L.tril_indices(-1, 3), []),
    ("err_triu_indices_negative_col", lambda L: L.triu_indices(3, -1), []),
    ("err_tril_indices_float", lambda L: L.tril_indices(3, 3, dtype=L.float32), []),
] + [
    (f"triu_{k}", lambda L, x, k=k: x.triu(k), [A]) for k in (0, 1, -1, 5, -5)
] + [
    (f"tril_{k}_batched", lambda L, x, k=k: L.tril(x, k), [A3]) for k in (0, 1, -1, 5, -5)
] + [
    ("triu_bool", lambda L: L.ones(3, 3, dtype=L.bool).triu(), []),
    ("tril_long", lambda L: L.ones(3, 3, dtype=L.long).tril(-1), []),
    ("triu_inplace", lambda L, x: (x * 1).triu_(1), [A]),
    ("tril_inplace_no_grad", lambda L: L.ones(3, 3).tril_(), []),
    ("triu_out", lambda L, x: L.triu(x, out=L.empty(0)), [A], {"grad": False}),
    ("err_tril_inplace_leaf", lambda L, x: x.tril_(1), [A]),
    ("err_tril_1d", lambda L, x: x.tril(), [A[0]]),
]

DIAG = [
    (f"diag_embed_{args}", lambda L, x, a=args: L.diag_embed(x, *a), [A])
    for args in [(), (1,), (-1,), (0, 0, 2), (-1, 0, 2), (1, -1, 0)]
] + [
    (f"diagonal_{args}", lambda L, x, a=args: L.diagonal(x, *a), [A])
    for args in [(), (1,), (-1,), (7,), (-7,), (0, 1, 0)]
] + [
    (f"diagonal_3d_{args}", lambda L, x, a=args: x.diagonal(*a), [A3])
    for args in [(), (1,), (-1, 0, 2), (1, -1, 0), (0, 2, 1)]
] + [
    (f"diag_1d_{k}", lambda L, x, k=k: L.diag(x, k), [A[0]]) for k in (0, 1, -1, 3)
] + [
    (f"diag_2d_{k}", lambda L, x, k=k: L.diag(x, k), [A]) for k in (0, 1, -1, 3)
] + [
    ("err_diag_embed_same_dims", lambda L, x: L.diag_embed(x, 0, 1, 1), [A]),
    ("err_diagonal_same_dims", lambda L, x: L.diagonal(x, 0, 1, 1), [A]),
    ("err_diagonal_1d", lambda L, x: L.diagonal(x), [A[0]]),
    ("err_diag_3d", lambda L, x: L.diag(x), [A3]),
    ("err_diag_0d", lambda L, x: L.diag(x), [S]),
]

INDEX_PUT = [
    ("rows", lambda L, x, v: x.index_put((T(L, [0, 1]),), v), [A, A[0]]),
    ("accumulate", lambda L, x, v: x.index_put((T(L, [0, 0, 2]),), v, accumulate=True), [A, A[0]]),
    ("accumulate_two_indices", lambda L, x, v: x.index_put((T(L, [0, 0, 2]), T(L, [1, 1, -1])), v, accumulate=True),
     [A, A[0, :3]]),
    ("duplicates_without_accumulate", lambda L, x, v: x.index_put((T(L, [1, 1]),), v), [A, A[0]]),
    ("list_of_indices_seed", lambda L, x: L.index_put(x, [T(L, [0, 1]), T(L, [0, 0]), T(L, [0, 1])], T(L, [1., 5])),
     [A3]),
    ("broadcast_indices", lambda L, x, v: x.index_put((T(L, [[0], [2]]), T(L, [1, 3])), v), [A, A[:2, :2]]),
    ("mask", lambda L, x: x.index_put((T(L, [True, False, True]),), T(L, [1.])), [A]),
    ("mask_value_other_dtype", lambda L, x: x.index_put((T(L, [True, False, True]),), T(L, 1)), [A]),
    ("zero_dim_index", lambda L, x: x.index_put((T(L, 1),), T(L, 5.)), [A]),
    ("non_adjacent_accumulate", lambda L, x, v: x.index_put((T(L, [0, 1]), T(L, [0, 2])), v, accumulate=True),
     [A4, A4[0, 0, 0, :]]),
    ("inplace", lambda L, x, v: (x * 1).index_put_((T(L, [0, 1]),), v, accumulate=True), [A, A[0]]),
    ("accumulate_large_rows", lambda L, x, v: x.index_put((T(L, [3, 0, 3]),), v, accumulate=True),
     [arr(4, 520), arr(3, 520)]),
    ("accumulate_large_rows_2d_index", lambda L, x, v: x.index_put((T(L, [[1], [1]]), T(L, [0, 0])), v, True),
     [arr(2, 2, 600), arr(2, 2, 600)]),
    ("accumulate_large_rows_noncontiguous", lambda L, x, v: x.t().index_put((T(L, [3, 3]),), v, accumulate=True),
     [arr(520, 4), arr(2, 520)]),
    ("getitem_backward_large_rows", lambda L, x: x[[1, 1, 0]], [arr(2, 700)]),
    ("inplace_no_grad_value_grad", lambda L, v: L.zeros(3).index_put_((T(L, [1]),), v), [np.array([5.], np.float32)]),
    ("err_inplace_leaf", lambda L, x, v: x.index_put_((T(L, [0, 1]),), v), [A, A[0]]),
    ("err_oob", lambda L, x, v: x.index_put((T(L, [0, 5]),), v), [A, A[0]]),
    ("err_oob_negative", lambda L, x, v: x.index_put((T(L, [0, -4]),), v), [A, A[0]]),
    ("err_value_number", lambda L, x: x.index_put((T(L, [0, 1]),), 1.), [A]),
    ("err_value_shape", lambda L, x: x.index_put((T(L, [0, 1]),), L.ones(3)), [A]),
    ("err_value_dtype", lambda L, x: x.index_put((T(L, [0, 1]),), L.ones(4, dtype=L.float64)), [A]),
    ("err_float_index", lambda L, x: x.index_put((T(L, [0., 1]),), L.ones(4)), [A]),
    ("err_too_many", lambda L, x: x.index_put((T(L, [0]), T(L, [0]), T(L, [0])), T(L, [1.])), [A]),
    ("err_none_index", lambda L, x: x.index_put((None, T(L, [0])), T(L, [1.])), [A]),
    ("err_list_index", lambda L, x: x.index_put(([0],), T(L, [1.])), [A]),
]

ALL = {"gather": GATHER, "scatter": SCATTER, "scatter_reduce": REDUCE, "index_select": INDEX_SELECT,
       "index_add": INDEX_ADD, "index_fill": INDEX_FILL, "masked": MASKED, "take": TAKE, "nonzero": NONZERO,
       "one_hot": ONE_HOT, "tri": TRI, "diag": DIAG, "index_put": INDEX_PUT}
PARAMS = [pytest.param(c[1], c[2], c[3] if len(c) > 3 else {}, id=f"{fam}-{c[0]}")
          for fam, cases in ALL.items() for c in cases]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fn,arrays,opts", PARAMS)
def test_op_matches_torch(torch, fn, arrays, opts):
    compare(torch, fn, arrays, **opts)


# -- out=, in-place forms, version counters -------------------------------------------------------------------

@pytest.mark.parametrize("name,call", [
    ("gather", lambda L, x, o: L.gather(x, 1, L.tensor(I), out=o)),
    ("index_select", lambda L, x, o: L.index_select(x, 0, L.tensor([2, 0]), out=o)),
    ("masked_select", lambda L, x, o: L.masked_select(x, x > 0, out=o)),
    ("take", lambda L, x, o: L.take(x, L.tensor([1, 5]), out=o)),
    ("take_along_dim", lambda L, x, o: L.take_along_dim(x, L.tensor([[0], [2], [1]]), 1, out=o)),
    ("nonzero", lambda L, x, o: L.nonzero(x > 0, out=o)),
])
def test_out_argument_fills_and_returns_same_object(torch, name, call):
    res = []
    for L in (core, torch):
        x = L.tensor(A)
        o = L.empty(0, dtype=L.long if name == "nonzero" else L.float32)
        r = call(L, x, o)
        assert r is o
        res.append(o)
    np.testing.assert_array_equal(res[0]._data, res[1].numpy())


def test_gather_out_with_grad_input_raises_like_torch(torch):
    errs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            L.gather(x, 1, L.tensor(I), out=L.empty(0))
        errs.append(type(e.value))
    assert errs[0] is RuntimeError


INPLACE = [
    ("scatter_", lambda L, y: y.scatter_(1, L.tensor(I), L.tensor(A[:, :2] * 2))),
    ("scatter_value", lambda L, y: y.scatter_(1, L.tensor(I), 7.0)),
    ("scatter_reduce_kw", lambda L, y: y.scatter_(1, L.tensor(I), 3.0, reduce="multiply")),
    ("scatter_add_", lambda L, y: y.scatter_add_(0, L.tensor([[0, 0, 0, 0], [0, 2, 2, 2]]), L.tensor(A[:2]))),
    ("scatter_reduce_", lambda L, y: y.scatter_reduce_(1, L.tensor(I), L.tensor(A[:, :2]), "amax", include_self=False)),
    ("index_add_", lambda L, y: y.index_add_(1, L.tensor([0, 0]), L.tensor(A[:, :2]), alpha=-1)),
    ("index_fill_", lambda L, y: y.index_fill_(0, L.tensor([-1]), -3.0)),
    ("masked_fill_", lambda L, y: y.masked_fill_(L.tensor(M), 0.5)),
    ("index_put_", lambda L, y: y.index_put_((L.tensor([0, 0]), L.tensor([1, 1])), L.tensor([1., 2.]), True)),
    ("triu_", lambda L, y: y.triu_(1)),
    ("tril_", lambda L, y: y.tril_(-1)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_writes_self_and_bumps_version(torch, name, fn):
    inplace_writes_self(torch, fn, A)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_leaf_requiring_grad_raises_and_is_allowed_under_no_grad(torch, name, fn):
    inplace_on_leaf_refused(torch, fn, A)


@pytest.mark.parametrize("name,fn", [
    ("scatter_", lambda L, y: y.scatter_(0, L.tensor([[0]]), y)),
    ("scatter_add_", lambda L, y: y.scatter_add_(0, L.tensor([[0]]), y[1:])),
    ("scatter_transposed", lambda L, y: y.scatter_(0, L.tensor([[0]]), y.t())),
    ("scatter_reduce_", lambda L, y: y.scatter_reduce_(0, L.tensor([[0]]), y, "sum")),
])
def test_inplace_with_overlapping_src_raises_like_torch(torch, name, fn):
    for L in (core, torch):
        y = L.tensor(A)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            fn(L, y)


def test_scatter_with_tensor_src_and_reduce_warns_deprecation():
    # torch emits this once per process (TORCH_WARN_ONCE): with set_warn_always, on every call
    core.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
            core.ones(2, 2).scatter(1, core.tensor([[0]]), core.ones(2, 2), reduce="add")
    finally:
        core.set_warn_always(False)


def test_scatter_reduce_backward_raises_not_implemented(torch):
    msgs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        r = x.scatter(1, L.tensor(I), 2.0, reduce="add")
        assert r.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError) as e:
            r.sum().backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_gather_backward_keeps_index_out_of_graph(torch):
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        assert len(x.gather(1, L.tensor(I)).grad_fn.next_functions) == 1
        assert len(x.scatter(1, L.tensor(I), x[:, :2]).grad_fn.next_functions) == 2


def test_gather_saved_index_modified_inplace_fails_backward(torch):
    errs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        i = L.tensor(I)
        y = x.gather(1, i)
        i.add_(0)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        errs.append(str(e.value).split(",")[0])
    assert errs[0] == errs[1]


def test_one_hot_is_registered_for_nn_functional():
    from core.ops.registry import FUNCTIONS
    assert FUNCTIONS["one_hot"] is core.ops.indexing.one_hot


def test_one_hot_refuses_huge_allocation():
    old = core.set_allocation_limit(1000)
    try:
        with pytest.raises(RuntimeError, match="not enough memory"):
            core.one_hot(core.tensor([0, 1]), 10 ** 6)
    finally:
        core.set_allocation_limit(old)
