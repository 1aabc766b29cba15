"""Row helpers: every kernel works on a C-contiguous (rows, n) array with the op's dim last; sort keys
(NaN largest, descending by negation), and the NumPy sort that reproduces PyTorch's tie order."""
from __future__ import annotations

import numpy as np

from ._batched import _batched_introsort_loop
from ._stl import _S_THRESHOLD


def _contig(a):
    """C-contiguous copy only when needed (np.ascontiguousarray would turn 0-d into 1-d)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _to_rows(a, dim):
    m = np.moveaxis(a, dim, -1)
    return _contig(m).reshape(int(np.prod(m.shape[:-1])), m.shape[-1]), m.shape


def _from_rows(r, moved_shape, dim):
    return _contig(np.moveaxis(r.reshape(moved_shape), -1, dim))


def _keys(x, descending=False):
    """int64 keys whose `<` is PyTorch's comparator: floats by dense rank with NaN above everything
    (-0.0 == 0.0), integers by value; descending flips the order (NaN first)."""
    if x.dtype.kind == "f":
        _, inv = np.unique(x.reshape(-1), return_inverse=True)
        k = inv.reshape(x.shape).astype(np.int64)
    else:
        k = x.astype(np.int64)
    return ~k if descending else k


def _rows_with_ties(K):
    """Boolean per row: some key appears twice."""
    if K.shape[1] < 2:
        return np.zeros(K.shape[0], bool)
    s = np.sort(K, axis=1)
    return (s[:, 1:] == s[:, :-1]).any(axis=1)


def _tied_elements(K, order):
    """Boolean (rows, n): the element's key occurs more than once in its row (order: stable argsort)."""
    s = np.take_along_axis(K, order, 1)
    eq = s[:, 1:] == s[:, :-1]
    d = np.zeros(K.shape, bool)
    d[:, 1:] |= eq
    d[:, :-1] |= eq
    flag = np.empty_like(d)
    np.put_along_axis(flag, order, d, 1)
    return flag


def _row_bounds(rows, n, which=None):
    r = np.arange(rows, dtype=np.int64) if which is None else np.flatnonzero(which).astype(np.int64)
    lo = r * n
    return lo, lo + n


def _sort_indices(K, stable):
    """Indices PyTorch's sort kernel returns for the key rows K (rows, n)."""
    rows, n = K.shape
    order = np.argsort(K, axis=1, kind="stable")
    if stable or n <= _S_THRESHOLD:     # std::stable_sort, or std::sort's plain insertion sort
        return order
    flag = _tied_elements(K, order)
    tied = flag.any(axis=1)
    if not tied.any():
        return order
    K = K.copy()
    V = np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n)).copy()
    V[flag] = ~V[flag]
    lo, hi = _row_bounds(rows, n, tied)
    _batched_introsort_loop(K.reshape(-1), V.reshape(-1), lo, hi, prune=True)
    # std::sort ends with an insertion sort over the whole range: stable on what the loop left
    V = np.take_along_axis(V, np.argsort(K, axis=1, kind="stable"), 1)
    return np.where(V < 0, ~V, V)


def _sort_np(a, dim, descending, stable):
    """(values, indices) of torch.sort on CPU."""
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    n = a.shape[dim]
    if a.size == 0 or n == 1 or a.strides[dim] == 0:
        # PyTorch skips the sort for an expanded (stride 0) dim: indices stay 0..n-1
        idx = np.broadcast_to(np.arange(n, dtype=np.int64).reshape((n,) + (1,) * (a.ndim - 1 - dim)), a.shape)
        return np.array(a, order="C"), _contig(idx)
    rows, moved = _to_rows(a, dim)
    K = _keys(rows, descending)
    # fbgemm's radix sort (stable) takes 1-d ascending integer sorts of >= 32768 elements
    radix = a.ndim == 1 and not descending and a.dtype.kind in "iu" and a.size >= 32768
    idx = _sort_indices(K, stable or radix)
    vals = np.take_along_axis(rows, idx, 1)
    return _from_rows(vals, moved, dim), _from_rows(idx, moved, dim)
