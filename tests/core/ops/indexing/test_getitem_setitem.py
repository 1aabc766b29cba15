"""Tensor.__getitem__ / __setitem__ vs torch: basic indexing (views: storage, version counter, _base),
advanced indexing (placement of the advanced dims, masks, lists, duplicates), grad_fn names
(SelectBackward0, SliceBackward0, UnsqueezeBackward0, AliasBackward0, IndexBackward0, CopySlices,
IndexPutBackward0, FillBackward3, CopyBackwards), gradients, dtype casting and errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from indexing_util import arr, compare

A = arr(3, 4)
A3 = arr(2, 3, 4, seed=2)
A4 = arr(2, 3, 4, 5, seed=3)
S = np.array(5.0, np.float32)
V4 = arr(4, seed=5)

GET_INDICES = [
    0, -1, 3, -4, (0, 4), (1, 2, -5), slice(1, None), slice(None, None, 2), slice(None, None, -1), slice(None, None, 0),
    slice(5, 10), slice(-3, None), slice(None), None, Ellipsis, (Ellipsis, 1), (Ellipsis, 1, Ellipsis), (0, 0, 0, 0),
    (0, 0, 0), (0, slice(1, 3)), True, False, (True, 0), [0, 1], [0, -1], [0, 2], [0, -3], ([0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 2]), (slice(None), [0, 1], [1, 2]), ([0, 1], [1, 2, 3]), ([0, 1], 1),
    (0, slice(None), [1, 2]), [[0, 1], [1, 2]], [(0, 1), (1, 2)], [], (None, [0, 1]), ([0, 1], None, [0, 1]),
    (slice(None),), (slice(None), slice(None)), (slice(0, 100),), (slice(None, 3),), 1.0, "a", [1.5, 0.2],
    [True, False], [True, 1], ([],), [[], []], (slice(None), 0), (0, None), (None, 0), (0, Ellipsis), (Ellipsis, None),
    (0, [0, 1], slice(1, 3)), ([0, 1], 0, [0, 1]), [0] * 33, range(2), np.array([0, 1]), np.array(1), np.int64(1),
    np.array([[0, 1]]), np.array([True, False]), (None, 5), (Ellipsis, 9), (slice(None), None, 9), (True, 0, 9),
]
GET_TENSOR_INDICES = [
    ("mask_full", lambda L: L.tensor(A3 > 0)),
    ("mask_2d", lambda L: L.tensor((A3 > 0)[0])),
    ("mask_bad_shape", lambda L: L.ones(3, 5, dtype=L.bool)),
    ("mask_uint8", lambda L: L.ones(2, dtype=L.uint8)),
    ("int_zero_dim", lambda L: L.tensor(1)),
    ("float_zero_dim", lambda L: L.tensor(1.)),
    ("float_1d", lambda L: L.tensor([1.])),
    ("bool_zero_dim", lambda L: L.tensor(True)),
    ("int32", lambda L: L.tensor([0, 1], dtype=L.int32)),
    ("empty_long", lambda L: L.tensor([], dtype=L.long)),
    ("empty_float", lambda L: L.tensor([])),
    ("tuple_of_zero_dim", lambda L: (L.tensor(1), L.tensor(2))),
    ("list_of_tensors", lambda L: [L.tensor([0, 1]), L.tensor([1, 2])]),
]
GET_MORE = [
    ("mask_then_int", lambda L, x: x[L.ones(2, 3, dtype=L.bool), 0], [A3]),
    ("mask_and_index", lambda L, x: x[L.tensor([True, False, True]), L.tensor([0, 1])], [A3[0].T.copy()]),
    ("err_mask_and_index_broadcast", lambda L, x: x[L.tensor([True, False, True]), L.tensor([0, 1, 2])],
     [A3[0].T.copy()]),
    ("err_oob_second_dim_first", lambda L, x: x[[0, 7], [9, 2]], [A]),
    ("err_oob_first_element", lambda L, x: x[[0, 5, -7]], [A]),
    ("zero_dim_0", lambda L, x: x[0], [S]),
    ("zero_dim_1", lambda L, x: x[1], [S]),
    ("zero_dim_tuple", lambda L, x: x[(0,)], [S]),
    ("zero_dim_slice", lambda L, x: x[0:1], [S]),
    ("zero_dim_none", lambda L, x: x[None], [S]),
    ("zero_dim_ellipsis", lambda L, x: x[...], [S]),
    ("zero_dim_true", lambda L, x: x[True], [S]),
    ("zero_dim_mask", lambda L, x: x[L.tensor(True)], [S]),
    ("duplicates_accumulate", lambda L, x: x[[0, 0, 2, 0]], [A]),
    ("two_index_duplicates", lambda L, x: x[[0, 0], [1, 1]], [A]),
    ("slice_tensor_bound", lambda L, x: x[L.tensor(1):], [A]),
    ("4d_non_adjacent", lambda L, x: x[[0, 1], :, [1, 2]], [A4]),
    ("4d_adjacent", lambda L, x: x[:, [0, 1], [1, 2]], [A4]),
    ("4d_broadcast_and_slice", lambda L, x: x[[[0], [1]], :, [1, 2], 1:3], [A4]),
    ("4d_mask_middle", lambda L, x: x[:, L.tensor(A4[0, :, :, 0] > 0)], [A4]),
    ("4d_ellipsis_index", lambda L, x: x[..., [0, 2]], [A4]),
    ("int_tensor_input", lambda L: L.arange(12).view(3, 4)[[2, 0], 1:], []),
    ("bool_tensor_input", lambda L: L.tensor(A > 0)[1, [0, 3]], []),
    ("chained_views", lambda L, x: x[1:][:, 0][None], [A3]),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("index", GET_INDICES, ids=[repr(i)[:40] for i in GET_INDICES])
def test_getitem_matches_torch(torch, index):
    compare(torch, lambda L, x: x[index], [A3])


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,make", GET_TENSOR_INDICES, ids=[c[0] for c in GET_TENSOR_INDICES])
def test_getitem_with_tensor_index_matches_torch(torch, name, make):
    compare(torch, lambda L, x: x[make(L)], [A3])


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,fn,arrays", GET_MORE, ids=[c[0] for c in GET_MORE])
def test_getitem_more_matches_torch(torch, name, fn, arrays):
    compare(torch, fn, arrays)


def test_list_of_lists_index_warns_like_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing"):
            L.ones(3, 3)[[[0, 1], [1, 2]]]


def test_uint8_mask_warns_like_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
            L.ones(3)[L.tensor([1, 0, 1], dtype=L.uint8)]


@pytest.mark.parametrize("index", [0, (slice(None), 1), slice(1, 3), None, Ellipsis, (0, None, slice(2)), slice(None)])
def test_basic_indexing_returns_view_sharing_storage_and_version(torch, index):
    res = []
    for L in (core, torch):
        b = L.tensor(A)
        v = b[index]
        assert v._base is b
        v.mul_(2)
        assert b._version == v._version == 1
        b.add_(1)
        assert v._version == 2
        res.append((b, v))
    np.testing.assert_allclose(res[0][0]._data, res[1][0].numpy())
    np.testing.assert_allclose(res[0][1]._data, res[1][1].numpy())


@pytest.mark.parametrize("index", [[0, 1], (slice(None), [1]), True, np.array([0])])
def test_advanced_indexing_returns_copy(torch, index):
    for L in (core, torch):
        b = L.tensor(A)
        v = b[index]
        assert v._base is None
        v.add_(1)
        assert b._version == 0
        np.testing.assert_array_equal(np.asarray(b.numpy()), A)


def test_view_of_view_has_root_base(torch):
    for L in (core, torch):
        b = L.tensor(A3)
        v = b[1][:, 2]
        assert v._base is b


def test_getitem_under_no_grad_gives_view_that_cannot_be_modified_with_grad(torch):
    errs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x * 1
        with L.no_grad():
            v = y[0]
        with pytest.raises(RuntimeError) as e:
            v.mul_(2)
        errs.append(str(e.value))
    assert errs[0] == errs[1]


# -- __setitem__ ----------------------------------------------------------------------------------------------

def _setter(index, value_fn, base_requires_grad):
    def f(L, x, *vals):
        y = x * 1 if base_requires_grad else L.zeros(*x.shape)
        y[index] = value_fn(L, *vals)
        return y
    return f


VALUES = [("scalar", lambda L: 1.5, []), ("zero_dim", lambda L, v: v, [np.array(2.5, np.float32)]),
          ("row", lambda L, v: v, [V4]), ("row_with_leading_1", lambda L, v: v.view(1, 4), [V4])]
SET_INDICES = [0, -1, slice(1, None), (slice(None), 1), None, Ellipsis, True, False, [0, 2], ([0, 2], [1, 3]),
               (0, [1, 2]), (slice(None),), (slice(0, 100),), slice(None), (0, 1), (None, 0), [True, False, True],
               (Ellipsis, [0, 0]), [[0, 1]], 3, [3], -4, [-4], 1.5, (0, slice(None, None, 2))]
SET_PARAMS = [pytest.param(idx, vf, va, bg, id=f"{idx!r}-{vn}-{'grad' if bg else 'plain'}")
              for idx in SET_INDICES for vn, vf, va in VALUES for bg in (True, False)]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("index,value_fn,value_arrays,base_grad", SET_PARAMS)
def test_setitem_matches_torch(torch, index, value_fn, value_arrays, base_grad):
    compare(torch, _setter(index, value_fn, base_grad), [A] + value_arrays)


def _mask_set(value_fn):
    def f(L, x):
        y = x * 1
        y[y > 0] = value_fn(L)
        return y
    return f


SET_MORE = [
    ("mask_scalar", _mask_set(lambda L: 2.0), [A]),
    ("mask_vector", _mask_set(lambda L: L.arange(float((A > 0).sum()))), [A]),
    ("mask_long_zero_dim_value", _mask_set(lambda L: L.tensor(5)), [A]),
    ("err_mask_bad_numel", _mask_set(lambda L: L.arange(3.)), [A]),
] + [
    (f"value_dtype_{dt}_{idx!r}", lambda L, x, v, dt=dt, idx=idx: _setter(idx, lambda L, v: v.to(getattr(L, dt)),
                                                                      True)(L, x, v), [A, V4])
    for dt in ("float64", "int64", "bool") for idx in (0, [0, 1], Ellipsis)
] + [
    (f"value_shape_{idx!r}_{shape}", lambda L, x, idx=idx, shape=shape: _setter(idx, lambda L: L.ones(*shape),
                                                                                 True)(L, x), [A])
    for idx, shape in [(0, (3,)), (0, (2, 4)), ([0, 1], (3,)), ([0, 1], (2, 2)), ([0, 1], (1, 2, 4)), (None, (5,)),
                       (True, (5,)), ((Ellipsis, None), (5,)), (0, (1, 1, 4))]
]


@pytest.mark.parametrize("name,fn,arrays", SET_MORE, ids=[c[0] for c in SET_MORE])
def test_setitem_more_matches_torch(torch, name, fn, arrays):
    compare(torch, fn, arrays)


@pytest.mark.parametrize("index", [0, [0], Ellipsis, slice(None), (0, [1]), None])
def test_setitem_on_leaf_requiring_grad_raises_like_torch(torch, index):
    msgs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            x[index] = 1.0
        msgs.append(str(e.value))
        with L.no_grad():
            x[index] = 2.0
        assert x.requires_grad and x.grad_fn is None and x._version == 1
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("value", [[1., 2.], (1,), np.ones(1), np.float32(1.5), "a", None, np.array(1.)],
                         ids=["list", "tuple", "ndarray", "np_float32", "str", "None", "ndarray_0d"])
def test_setitem_non_number_value_raises_type_error_like_torch(torch, value):
    msgs = []
    for L in (core, torch):
        with pytest.raises(TypeError) as e:
            L.zeros(3)[0] = value
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("value", [np.int64(2), np.float64(2.5), True, 7],
                         ids=["np_int64", "np_float64", "bool", "int"])
def test_setitem_number_values_like_torch(torch, value):
    res = []
    for L in (core, torch):
        z = L.zeros(3)
        z[1] = value
        res.append(z)
    np.testing.assert_array_equal(res[0]._data, res[1].numpy())


def test_setitem_casts_into_integer_and_bool_tensors_like_torch(torch):
    res = []
    for L in (core, torch):
        z = L.zeros(3, 4, dtype=L.long)
        z[0] = 2.7
        z[1] = L.tensor([1.5, 2.5, 3.5, -4.5])
        z[2, [0, 1]] = -1.9
        b = L.zeros(3, dtype=L.bool)
        b[0] = 5
        res.append((z, b))
    np.testing.assert_array_equal(res[0][0]._data, res[1][0].numpy())
    np.testing.assert_array_equal(res[0][1]._data, res[1][1].numpy())


def test_setitem_advanced_with_other_dtype_tensor_raises_like_torch(torch):
    msgs = []
    for L in (core, torch):
        z = L.zeros(3, dtype=L.long)
        with pytest.raises(RuntimeError) as e:
            z[[0, 1]] = L.tensor([1.7, 2.2])
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_setitem_partial_overlap_raises_like_torch(torch):
    for L in (core, torch):
        y = L.arange(12.).view(3, 4)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            y[1:] = y[:2]
        y[:] = y   # full overlap is allowed


def test_setitem_zip_coordinates_seed(torch):
    res = []
    for L in (core, torch):
        t = L.zeros(4, 3)
        row, col = zip(*[(0, 0), (1, 1), (2, 0), (3, 1)])
        t[row, col] = 1
        res.append(str(t))
    assert res[0] == res[1]


def test_setitem_through_a_view_updates_base_gradient(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        v = L.tensor([3., 4.], requires_grad=True)
        y = x * 2
        b = y[:, 1:3]
        b[[0, 2], 1] = v
        b[1] = 7.
        (y * L.tensor(A)).sum().backward()
        res.append((y.detach(), x.grad, v.grad))
    for c, t in zip(res[0], res[1]):
        np.testing.assert_allclose(c._data, t.numpy(), rtol=1e-6)


def test_setitem_bumps_version_of_self_and_views(torch):
    for L in (core, torch):
        y = L.zeros(3, 4)
        b = y[0]
        y[1] = 1.
        y[[0, 1]] = 2.
        y[False] = 3.
        assert (y._version, b._version) == (2, 2)


def test_setitem_grad_fn_prints_like_torch(torch):
    res = []
    for L in (core, torch):
        y = L.tensor(A, requires_grad=True) * 1
        y[0] = 0.
        z = L.tensor(A, requires_grad=True) * 1
        z[[0]] = 0.
        res.append(str(y) + str(z))
    assert res[0] == res[1]


def test_setitem_saved_tensor_invalidated(torch):
    errs = []
    for L in (core, torch):
        x = L.tensor(A, requires_grad=True)
        y = x * 1
        z = y.exp()       # saves its output
        z[0] = 1.
        with pytest.raises(RuntimeError) as e:
            z.sum().backward()
        errs.append(str(e.value).split(";")[0].split(",")[0])
    assert errs[0] == errs[1]
