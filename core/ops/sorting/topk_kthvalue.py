"""topk and kthvalue, returning the index PyTorch's CPU kernels pick among tied values."""
from __future__ import annotations

import numpy as np

from ... import return_types
from ...tensor import _wrap_dim
from ..registry import register
from ._batched import _batched_introsort_loop, _batched_nth_element, _stable_sort_segments
from ._rows import _from_rows, _keys, _to_rows
from ._select import _int_arg, _not_implemented, _out_tuple, _reduce_out, _ValueSelect, _zero_numel_check
from ._stl import _partial_sort, _th_quick_select


def _distinct_prefix(K, k):
    """Per row: the k smallest keys are distinct and strictly below the (k+1)-th, so any
    selection algorithm returns the same indices in sorted order."""
    rows, n = K.shape
    if k < n:
        P = np.partition(K, k, axis=1)[:, :k + 1]
        P.sort(axis=1)
    else:
        P = np.sort(K, axis=1)
    return (P[:, 1:] > P[:, :-1]).all(axis=1) if P.shape[1] > 1 else np.ones(rows, bool)


def _smallest_sorted(K, k):
    n = K.shape[1]
    sel = np.argpartition(K, k - 1, axis=1)[:, :k] if k < n else np.broadcast_to(np.arange(n), K.shape)
    o = np.argsort(np.take_along_axis(K, sel, 1), axis=1, kind="stable")
    return np.take_along_axis(sel, o, 1)


def _topk_indices(K, k, sorted_):
    """Indices topk_impl_loop returns (K already encodes largest/smallest)."""
    rows, n = K.shape
    out = np.empty((rows, k), np.int64)
    partial = k * 64 <= n
    easy = _distinct_prefix(K, k) if (partial or sorted_) else np.zeros(rows, bool)
    if easy.any():
        out[easy] = _smallest_sorted(K[easy], k)
    hard = np.flatnonzero(~easy)
    if not hard.size:
        return out
    if partial:                          # std::partial_sort(first, first + k, last)
        for r in hard.tolist():
            kl, vl = K[r].tolist(), list(range(n))
            _partial_sort(kl, vl, 0, k, n)
            out[r] = vl[:k]
        return out
    Kh = K[hard].copy()
    Vh = np.broadcast_to(np.arange(n, dtype=np.int64), Kh.shape).copy()
    Kf, Vf = Kh.reshape(-1), Vh.reshape(-1)
    lo = np.arange(hard.size, dtype=np.int64) * n
    dlo, dhi = _batched_nth_element(Kf, Vf, lo, lo + n, lo + k - 1)
    _stable_sort_segments(Kf, Vf, dlo, dhi)
    if sorted_ and k > 1:                # std::sort(first, first + k - 1)
        _batched_introsort_loop(Kf, Vf, lo, lo + k - 1)
        _stable_sort_segments(Kf, Vf, lo, lo + k - 1)
    out[hard] = Vh[:, :k]
    return out


class TopkBackward0(_ValueSelect):
    @staticmethod
    def forward(ctx, a, k, dim, largest, sorted_):
        d = a._data
        if d.ndim == 0:
            return TopkBackward0._finish(ctx, a, dim, True, d.copy(), np.zeros((), np.int64))
        rows, moved = _to_rows(d, dim)
        shape = moved[:-1] + (k,)
        if k == 0 or rows.size == 0:
            idx = np.zeros((rows.shape[0], k), np.int64)
        else:
            idx = _topk_indices(_keys(rows, largest), k, sorted_)
        vals = np.take_along_axis(rows, idx, 1)
        return TopkBackward0._finish(ctx, a, dim, True, _from_rows(vals, shape, dim), _from_rows(idx, shape, dim))


@register(category="sorting", methods=("topk",))
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The k largest (or smallest) elements along dim -> (values, indices); NaN counts as largest."""
    k = _int_arg("topk", "k", 2, k)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    if k < 0 or k > (input._data.shape[d] if nd else 1):
        raise RuntimeError("selected index k out of range")
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    vals, idx = TopkBackward0.apply(input, k, d, bool(largest), bool(sorted))
    return _out_tuple(return_types.topk(vals, idx), out, "topk")


class KthvalueBackward0(_ValueSelect):
    @staticmethod
    def forward(ctx, a, k, dim, keepdim):
        d = a._data
        if d.ndim == 0:
            return KthvalueBackward0._finish(ctx, a, dim, keepdim, d.copy(), np.zeros((), np.int64))
        rows, moved = _to_rows(d, dim)
        if rows.size == 0:
            idx = np.zeros(rows.shape[0], np.int64)
        else:
            K = _keys(rows)
            kth = np.partition(K, k - 1, axis=1)[:, k - 1]
            hit = K == kth[:, None]
            idx = np.argmax(hit, axis=1).astype(np.int64)
            for r in np.flatnonzero(hit.sum(axis=1) > 1).tolist():   # ties: TH's quickselect decides
                kl, vl = K[r].tolist(), list(range(K.shape[1]))
                _th_quick_select(kl, vl, k - 1)
                idx[r] = vl[k - 1]
        vals = np.take_along_axis(rows, idx[:, None], 1) if rows.size else np.zeros((rows.shape[0], 1), d.dtype)
        v, i = _reduce_out(vals, idx, moved, dim, keepdim)
        return KthvalueBackward0._finish(ctx, a, dim, keepdim, v, i)


@register(category="sorting", methods=("kthvalue",))
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The k-th smallest element along dim -> (values, indices); NaN counts as largest."""
    k = _int_arg("kthvalue", "k", 2, k)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    _zero_numel_check(input, d, "kthvalue")
    if not (1 <= k <= (input._data.shape[d] if nd else 1)):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input._data.dtype == np.bool_:
        _not_implemented("kthvalue_cpu", input)
    vals, idx = KthvalueBackward0.apply(input, k, d, bool(keepdim))
    return _out_tuple(return_types.kthvalue(vals, idx), out, "kthvalue", input)
