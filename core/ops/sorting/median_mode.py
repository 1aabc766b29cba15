"""median, nanmedian (lower of the two middle values; which index among ties as PyTorch) and mode."""
from __future__ import annotations

import numpy as np

from ... import return_types
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..pointwise import where
from ..registry import register
from ._batched import _batched_introsort_loop, _batched_nth_element, _stable_sort_segments
from ._rows import _keys, _row_bounds, _rows_with_ties, _to_rows
from ._select import _not_implemented, _out_tuple, _reduce_out, _ValueSelect, _zero_numel_check
from ._stl import _S_THRESHOLD, _std_nth_element, _std_sort


_ALL_NAN_NTH = {}


def _all_nan_nanmedian_index(n):
    """nanmedian's std::nth_element(nth = first) on a row of NaN, where its comparator is always false."""
    if n not in _ALL_NAN_NTH:
        kl, vl = [0] * n, list(range(n))
        _std_nth_element(kl, vl, 0, 0, n)
        _ALL_NAN_NTH[n] = vl[0]
    return _ALL_NAN_NTH[n]


def _median_rows(rows, ignore_nan):
    """Index of the median in each row: the ((m-1)//2)-th element in (value, index) order over the
    m non-NaN values; median() instead reports the first NaN of a row that has one."""
    n = rows.shape[1]
    K = _keys(rows)
    order = np.argsort(K, axis=1, kind="stable")
    if rows.dtype.kind != "f":
        return order[:, (n - 1) // 2].astype(np.int64)
    nan = np.isnan(rows)
    if not ignore_nan:
        idx = order[:, (n - 1) // 2]
        has = nan.any(axis=1)
        return np.where(has, np.argmax(nan, axis=1), idx).astype(np.int64)
    m = n - nan.sum(axis=1)
    pos = np.maximum(m - 1, 0) // 2
    idx = np.take_along_axis(order, pos[:, None], 1)[:, 0]
    if (m == 0).any():
        idx = np.where(m == 0, _all_nan_nanmedian_index(n), idx)
    return idx.astype(np.int64)


class _MedianDim(_ValueSelect):
    ignore_nan = False

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        d = a._data
        if d.ndim == 0:
            return cls._finish(ctx, a, dim, keepdim, d.copy(), np.zeros((), np.int64))
        rows, moved = _to_rows(d, dim)
        idx = _median_rows(rows, cls.ignore_nan) if rows.size else np.zeros(rows.shape[0], np.int64)
        vals = np.take_along_axis(rows, idx[:, None], 1) if rows.size else np.zeros((rows.shape[0], 1), d.dtype)
        v, i = _reduce_out(vals, idx, moved, dim, keepdim)
        return cls._finish(ctx, a, dim, keepdim, v, i)


class MedianBackward1(_MedianDim):
    pass


class NanmedianBackward1(_MedianDim):
    ignore_nan = True


class _MedianAll(Op):
    """median() / nanmedian() over all elements: the gradient is shared evenly between the elements
    equal to the result (all NaN elements when the result is NaN), as PyTorch's evenly_distribute_backward."""
    save_output = True
    ignore_nan = False

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        x = a._data.reshape(-1)
        if x.dtype.kind == "f":
            nan = np.isnan(x)
            if nan.any() and not cls.ignore_nan:
                return np.array(np.nan, x.dtype)
            x = x[~nan]
        if x.size == 0:      # PyTorch writes a NaN cast to the dtype
            if a._data.dtype.kind == "f":
                return np.array(np.nan, a._data.dtype)
            big = a._data.dtype.itemsize >= 4
            return np.array(np.iinfo(a._data.dtype).min if big else 0, a._data.dtype)
        nth = (x.size - 1) // 2
        v = np.asarray(np.partition(x, nth)[nth])
        if v == 0 and x.dtype.kind == "f" and np.signbit(x[x == 0]).any() and not np.signbit(x[x == 0]).all():
            # -0.0 == 0.0: which one std::nth_element leaves at nth decides the sign
            flat = a._data.reshape(-1)
            K, V = _keys(flat[None])[0].copy(), np.arange(flat.size, dtype=np.int64)
            lo, hi = np.array([0]), np.array([flat.size])
            dlo, dhi = _batched_nth_element(K, V, lo, hi, np.array([nth]))
            _stable_sort_segments(K, V, dlo, dhi)
            v = np.asarray(flat[V[nth]])
        return v

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        if out.isnan().item():
            mask = a.isnan()
        else:
            mask = a == out
        cnt = mask.sum()
        return where(mask, (g / cnt).expand(a.shape), Tensor._make(np.zeros((), g._data.dtype)))


class MedianBackward0(_MedianAll):
    pass


class NanmedianBackward0(_MedianAll):
    ignore_nan = True


def _median(input, dim, keepdim, ignore_nan, out):
    name = "nanmedian" if ignore_nan else "median"
    if dim is None:
        if keepdim or out is not None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        if input._data.dtype == np.bool_:
            _not_implemented("median_cpu", input)
        return (NanmedianBackward0 if ignore_nan else MedianBackward0).apply(input)
    d = _wrap_dim(dim, input._data.ndim)
    _zero_numel_check(input, d, "median")
    if input._data.dtype == np.bool_:
        _not_implemented("median_out", input)
    vals, idx = (NanmedianBackward1 if ignore_nan else MedianBackward1).apply(input, d, bool(keepdim))
    return _out_tuple((return_types.nanmedian if ignore_nan else return_types.median)(vals, idx), out, name)


@register(category="sorting", methods=("median",))
def median(input, dim=None, keepdim=False, *, out=None):
    """median() -> the lower of the two middle values (NaN if any); median(dim) -> (values, indices)."""
    return _median(input, dim, keepdim, False, out)


@register(category="sorting", methods=("nanmedian",))
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """median ignoring NaN (NaN only when every value is NaN)."""
    return _median(input, dim, keepdim, True, out)


def _mode_rows(rows):
    """Per-row index of mode_kernel_impl's answer: std::sort by value, then the first longest run;
    the index is the one std::sort left last in that run."""
    nrow, n = rows.shape
    nanrows = np.isnan(rows).any(axis=1) if rows.dtype.kind == "f" else np.zeros(nrow, bool)
    K = _keys(rows)
    V = np.broadcast_to(np.arange(n, dtype=np.int64), (nrow, n)).copy()
    K = K.copy()
    if n > _S_THRESHOLD:
        sim = _rows_with_ties(K) & ~nanrows
        if sim.any():
            lo, hi = _row_bounds(nrow, n, sim)
            _batched_introsort_loop(K.reshape(-1), V.reshape(-1), lo, hi)
    order = np.argsort(K, axis=1, kind="stable")
    V = np.take_along_axis(V, order, 1)
    S = np.take_along_axis(K, order, 1)
    start = np.ones((nrow, n), bool)
    start[:, 1:] = S[:, 1:] != S[:, :-1]
    run = np.cumsum(start.reshape(-1)) - 1
    runlen = np.bincount(run)[run].reshape(nrow, n)
    end = np.ones((nrow, n), bool)
    end[:, :-1] = start[:, 1:]
    pos = np.argmax(np.where(end, runlen, -1), axis=1)
    idx = V[np.arange(nrow), pos]
    for r in np.flatnonzero(nanrows).tolist():     # NaN breaks `<`'s ordering: run std::sort literally
        kl, vl = rows[r].astype(np.float64).tolist(), list(range(n))
        _std_sort(kl, vl)
        best, mf, tf = 0, 0, 0
        for i in range(n):
            tf += 1
            if i == n - 1 or kl[i] != kl[i + 1]:
                if tf > mf:
                    best, mf = vl[i], tf
                tf = 0
        idx[r] = best
    return idx.astype(np.int64)


class ModeBackward0(_ValueSelect):
    @staticmethod
    def forward(ctx, a, dim, keepdim):
        d = a._data
        if d.ndim == 0:
            return ModeBackward0._finish(ctx, a, dim, keepdim, d.copy(), np.zeros((), np.int64))
        rows, moved = _to_rows(d, dim)
        idx = _mode_rows(rows) if rows.size else np.zeros(rows.shape[0], np.int64)
        vals = np.take_along_axis(rows, idx[:, None], 1) if rows.size else np.zeros((rows.shape[0], 1), d.dtype)
        v, i = _reduce_out(vals, idx, moved, dim, keepdim)
        return ModeBackward0._finish(ctx, a, dim, keepdim, v, i)


@register(category="sorting", methods=("mode",))
def mode(input, dim=-1, keepdim=False, *, out=None):
    """Most frequent value along dim -> (values, indices); the smallest such value wins."""
    if dim is None:
        raise TypeError("mode(): argument 'dim' must be int, not NoneType")
    d = _wrap_dim(dim, input._data.ndim)
    _zero_numel_check(input, d, "mode")
    vals, idx = ModeBackward0.apply(input, d, bool(keepdim))
    return _out_tuple(return_types.mode(vals, idx), out, "mode", input)
