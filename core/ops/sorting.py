"""Sorting and selection (sort, argsort, topk, kthvalue, median, mode, unique, cummax, searchsorted,
quantile, ...) with PyTorch's CPU results, down to which index is returned among equal values.

PyTorch's CPU kernels call libstdc++'s std::sort / std::nth_element / std::partial_sort (and TH's
quickselect for kthvalue), which are not stable: the index reported for tied values depends on the
algorithm's exact sequence of swaps. Those algorithms are ported below (on Python lists, and as a
batched NumPy simulation of the partition steps), and are only run for rows where ties can change
the answer; everything else is plain NumPy.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import return_types
from ..autograd.function import Op
from ..tensor import Tensor, _wrap_dim
from .indexing import _ScatterAddIntoZeros, _scatter_into_zeros
from .registry import register


# ---------------------------------------------------------------------------------------------
# Ports of the libstdc++ (GCC 13) algorithms PyTorch's CPU kernels call, on Python lists of keys
# `k` and payloads `v` kept in step. Keys compare with `<` only, as the C++ comparators do.
# ---------------------------------------------------------------------------------------------

_S_THRESHOLD = 16


def _lg(n):
    return n.bit_length() - 1


def _move_median_to_first(k, v, result, a, b, c):
    ka, kb, kc = k[a], k[b], k[c]
    if ka < kb:
        t = b if kb < kc else (c if ka < kc else a)
    elif ka < kc:
        t = a
    else:
        t = c if kb < kc else b
    k[result], k[t] = k[t], k[result]
    v[result], v[t] = v[t], v[result]


def _unguarded_partition(k, v, first, last, pk, hi):
    while True:
        while first < hi and k[first] < pk:
            first += 1
        last -= 1
        while pk < k[last]:
            last -= 1
        if not first < last:
            return first
        k[first], k[last] = k[last], k[first]
        v[first], v[last] = v[last], v[first]
        first += 1


def _partition_pivot(k, v, first, last):
    mid = first + (last - first) // 2
    _move_median_to_first(k, v, first, first + 1, mid, last - 1)
    return _unguarded_partition(k, v, first + 1, last, k[first], last)


def _adjust_heap(k, v, first, hole, length, valk, valv):
    top = hole
    second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if k[first + second] < k[first + second - 1]:
            second -= 1
        k[first + hole] = k[first + second]
        v[first + hole] = v[first + second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        k[first + hole] = k[first + second - 1]
        v[first + hole] = v[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and k[first + parent] < valk:
        k[first + hole] = k[first + parent]
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    k[first + hole] = valk
    v[first + hole] = valv


def _make_heap(k, v, first, last):
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(k, v, first, parent, n, k[first + parent], v[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(k, v, first, last, result):
    valk, valv = k[result], v[result]
    k[result] = k[first]
    v[result] = v[first]
    _adjust_heap(k, v, first, 0, last - first, valk, valv)


def _heap_select(k, v, first, middle, last):
    _make_heap(k, v, first, middle)
    for i in range(middle, last):
        if k[i] < k[first]:
            _pop_heap(k, v, first, middle, i)


def _sort_heap(k, v, first, last):
    while last - first > 1:
        last -= 1
        _pop_heap(k, v, first, last, last)


def _partial_sort(k, v, first, middle, last):
    _heap_select(k, v, first, middle, last)
    _sort_heap(k, v, first, middle)


def _unguarded_linear_insert(k, v, last, lo):
    valk, valv = k[last], v[last]
    nxt = last - 1
    while nxt >= lo and valk < k[nxt]:
        k[last] = k[nxt]
        v[last] = v[nxt]
        last = nxt
        nxt -= 1
    k[last] = valk
    v[last] = valv


def _insertion_sort(k, v, first, last):
    if first == last:
        return
    for i in range(first + 1, last):
        if k[i] < k[first]:
            ki, vi = k[i], v[i]
            k[first + 1:i + 1] = k[first:i]
            v[first + 1:i + 1] = v[first:i]
            k[first], v[first] = ki, vi
        else:
            _unguarded_linear_insert(k, v, i, first)


def _introsort_loop(k, v, first, last, depth):
    while last - first > _S_THRESHOLD:
        if depth == 0:
            _partial_sort(k, v, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(k, v, first, last)
        _introsort_loop(k, v, cut, last, depth)
        last = cut


def _std_sort(k, v):
    """std::sort on the whole lists (literal, for comparators that are not strict weak orders)."""
    n = len(k)
    if n == 0:
        return
    _introsort_loop(k, v, 0, n, 2 * _lg(n))
    if n > _S_THRESHOLD:
        _insertion_sort(k, v, 0, _S_THRESHOLD)
        for i in range(_S_THRESHOLD, n):
            _unguarded_linear_insert(k, v, i, 0)
    else:
        _insertion_sort(k, v, 0, n)


def _std_nth_element(k, v, first, nth, last):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(k, v, first, nth + 1, last)
            k[first], k[nth] = k[nth], k[first]
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(k, v, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(k, v, first, last)


def _th_quick_select(k, v, kk):
    """PyTorch's quick_select_template (Sedgewick), gt = `>` on keys; used by kthvalue."""
    L, R = 0, len(k) - 1
    while True:
        if R <= L:
            return
        if R == L + 1:
            if k[L] > k[R]:
                k[L], k[R] = k[R], k[L]
                v[L], v[R] = v[R], v[L]
            return
        P = (L + R) >> 1
        k[P], k[L + 1] = k[L + 1], k[P]
        v[P], v[L + 1] = v[L + 1], v[P]
        if k[L + 1] > k[R]:
            k[L + 1], k[R] = k[R], k[L + 1]
            v[L + 1], v[R] = v[R], v[L + 1]
        if k[L] > k[R]:
            k[L], k[R] = k[R], k[L]
            v[L], v[R] = v[R], v[L]
        if k[L + 1] > k[L]:
            k[L + 1], k[L] = k[L], k[L + 1]
            v[L + 1], v[L] = v[L], v[L + 1]
        i, j = L + 1, R
        piv = k[L]
        while True:
            i += 1
            while piv > k[i]:
                i += 1
            j -= 1
            while k[j] > piv:
                j -= 1
            if j < i:
                break
            k[i], k[j] = k[j], k[i]
            v[i], v[j] = v[j], v[i]
        k[L], k[j] = k[j], k[L]
        v[L], v[j] = v[j], v[L]
        if j <= kk:
            L = i
        if j >= kk:
            R = j - 1


# ---------------------------------------------------------------------------------------------
# Batched, vectorised simulation of std::sort / std::nth_element for strict weak orders on
# numeric keys: every active segment of every row is partitioned at once (the partitions of
# disjoint segments are independent, so their order does not matter).
# ---------------------------------------------------------------------------------------------

def _seg_positions(lo, hi):
    lens = hi - lo
    total = int(lens.sum())
    seg = np.repeat(np.arange(lo.size), lens)
    starts = np.cumsum(lens) - lens
    pos = np.arange(total) - np.repeat(starts - lo, lens)
    return seg, pos


def _batched_partition_pivot(K, V, lo, hi, prune=False):
    """__unguarded_partition_pivot on each segment [lo, hi) (all of length > 3); returns the cuts
    (and with prune, how many flagged elements -- negative V -- each side of the cut holds)."""
    a, b, c = lo + 1, lo + (hi - lo) // 2, hi - 1
    ka, kb, kc = K[a], K[b], K[c]
    ab, bc, ac = ka < kb, kb < kc, ka < kc
    t = np.where(ab, np.where(bc, b, np.where(ac, c, a)), np.where(ac, a, np.where(bc, c, b)))
    K[lo], K[t] = K[t], K[lo].copy()
    V[lo], V[t] = V[t], V[lo].copy()
    piv = K[lo]
    nseg = lo.size
    seg, pos = _seg_positions(lo, hi)
    kp = K[pos]
    p = piv[seg]
    lmask = kp >= p                       # !(k < pivot): where the left scan stops
    lmask[pos == lo[seg]] = False
    rmask = kp <= p                       # !(pivot < k): where the right scan stops
    Larr, Rarr = pos[lmask], pos[rmask]
    nL = np.bincount(seg[lmask], minlength=nseg)
    nR = np.bincount(seg[rmask], minlength=nseg)
    offL = np.cumsum(nL) - nL
    offR = np.cumsum(nR) - nR
    npair = np.minimum(nL, nR)
    ss = np.repeat(np.arange(nseg), npair)
    tt = np.arange(int(npair.sum())) - np.repeat(np.cumsum(npair) - npair, npair)
    Lp = Larr[offL[ss] + tt]
    Rp = Rarr[offR[ss] + nR[ss] - 1 - tt]
    ok = Lp < Rp
    m = np.bincount(ss[ok], minlength=nseg)
    Li, Ri = Lp[ok], Rp[ok]
    K[Li], K[Ri] = K[Ri], K[Li].copy()
    V[Li], V[Ri] = V[Ri], V[Li].copy()
    big = np.iinfo(np.int64).max
    hasL = m < nL
    Lm = np.where(hasL, Larr[np.where(hasL, offL + m, 0)] if Larr.size else big, big)
    hasR = m > 0
    Rm = np.where(hasR, Rarr[np.where(hasR, offR + nR - m, 0)] if Rarr.size else big, big)
    cut = np.minimum(Lm, Rm)
    if not prune:
        return cut
    flagged = V[pos] < 0
    left = pos < cut[seg]
    return (cut, np.bincount(seg[flagged & left], minlength=nseg),
            np.bincount(seg[flagged & ~left], minlength=nseg))


def _heap_fallback(K, V, los, his, fn):
    for a, b in zip(los.tolist(), his.tolist()):
        kl, vl = K[a:b].tolist(), V[a:b].tolist()
        fn(kl, vl, b - a)
        K[a:b] = kl
        V[a:b] = vl


def _batched_introsort_loop(K, V, lo, hi, prune=False):
    """std::__introsort_loop on every segment [lo, hi) of the flat arrays K, V (in place).
    With prune, V < 0 flags elements whose key is repeated in their row, and a segment holding
    fewer than two of them is left alone: its keys are distinct, so the final sort decides it."""
    depth = np.array([2 * _lg(int(n)) if n > 0 else 0 for n in (hi - lo).tolist()], dtype=np.int64)
    while True:
        act = (hi - lo) > _S_THRESHOLD
        lo, hi, depth = lo[act], hi[act], depth[act]
        if not lo.size:
            return
        z = depth == 0
        if z.any():
            _heap_fallback(K, V, lo[z], hi[z], lambda kl, vl, n: _partial_sort(kl, vl, 0, n, n))
            lo, hi, depth = lo[~z], hi[~z], depth[~z]
            if not lo.size:
                return
        depth = depth - 1
        if prune:
            cut, nleft, nright = _batched_partition_pivot(K, V, lo, hi, True)
            keep = np.concatenate([nright > 1, nleft > 1])
        else:
            cut = _batched_partition_pivot(K, V, lo, hi)
            keep = slice(None)
        lo, hi = np.concatenate([cut, lo])[keep], np.concatenate([hi, cut])[keep]
        depth = np.concatenate([depth, depth])[keep]


def _batched_nth_element(K, V, lo, hi, nth):
    """std::nth_element on every segment (nth inside [lo, hi)); the final insertion sorts of the
    short ranges are returned as (lo, hi) pairs for a stable sort by the caller."""
    depth = np.array([2 * _lg(int(n)) for n in (hi - lo).tolist()], dtype=np.int64)
    done_lo, done_hi = [], []
    while True:
        act = (hi - lo) > 3
        done_lo.append(lo[~act])
        done_hi.append(hi[~act])
        lo, hi, depth, nth = lo[act], hi[act], depth[act], nth[act]
        if not lo.size:
            break
        z = depth == 0
        if z.any():
            for a, b, t in zip(lo[z].tolist(), hi[z].tolist(), nth[z].tolist()):
                kl, vl = K[a:b].tolist(), V[a:b].tolist()
                _heap_select(kl, vl, 0, t - a + 1, b - a)
                kl[0], kl[t - a] = kl[t - a], kl[0]
                vl[0], vl[t - a] = vl[t - a], vl[0]
                K[a:b] = kl
                V[a:b] = vl
            lo, hi, depth, nth = lo[~z], hi[~z], depth[~z], nth[~z]
            if not lo.size:
                break
        depth = depth - 1
        cut = _batched_partition_pivot(K, V, lo, hi)
        right = cut <= nth
        lo = np.where(right, cut, lo)
        hi = np.where(right, hi, cut)
    return np.concatenate(done_lo), np.concatenate(done_hi)


def _stable_sort_segments(K, V, lo, hi):
    """Insertion sort (stable for strict weak orders) of each segment [lo, hi), in place."""
    keep = (hi - lo) > 1
    lo, hi = lo[keep], hi[keep]
    if not lo.size:
        return
    seg, pos = _seg_positions(lo, hi)
    order = np.lexsort((K[pos], seg))
    src = pos[order]
    K[pos], V[pos] = K[src], V[src]


# ---------------------------------------------------------------------------------------------
# Row helpers: every kernel works on a C-contiguous (rows, n) array with the op's dim last.
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# Gradients: value-selecting ops scatter the gradient back to the selected indices.
# ---------------------------------------------------------------------------------------------

class _SelectScatter(_ScatterAddIntoZeros):
    """zeros(shape).scatter_(dim, index, grad): PyTorch's value_selecting_reduction_backward."""

    def name(self):
        return "ScatterBackward0"


def _value_selecting_backward(g, dim, idx, shape, keepdim):
    if len(shape) == 0:
        return g
    if not keepdim:
        g = g.unsqueeze(dim)
        idx = idx.unsqueeze(dim)
    return _SelectScatter.apply(g, dim, index=idx, shape=tuple(shape))


class _ValueSelect(Op):
    """Base of ops returning (values, indices) whose values' gradient goes to the indices."""

    @staticmethod
    def backward(ctx, g, gi=None):
        (idx,) = ctx.saved_tensors
        return _value_selecting_backward(g, ctx.dim, idx, ctx.shape, ctx.keepdim)

    @staticmethod
    def _finish(ctx, a, dim, keepdim, vals, idx):
        ctx.dim, ctx.shape, ctx.keepdim = dim, a._data.shape, keepdim
        idx = _contig(idx.astype(np.int64, copy=False))
        ctx.save_for_backward(Tensor._make(idx))
        return _contig(vals), idx


class SortBackward0(_ValueSelect):
    @staticmethod
    def forward(ctx, a, dim, descending, stable):
        vals, idx = _sort_np(a._data, dim, descending, stable)
        return SortBackward0._finish(ctx, a, dim, True, vals, idx)


_OUT_TYPES = {}


def _out1(result, out):
    if out is None:
        return result
    from .pointwise import _out
    return _out(result, out)


def _out_tuple(res, out, name):
    """out=(t1, t2): write each result into its tensor; returns torch.return_types.<name>_out."""
    if out is None:
        return res
    if not isinstance(out, (tuple, list)) or len(out) != len(res):
        got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
        raise TypeError(f"expected tuple of {len(res)} elements but got {got}")
    from .pointwise import _out
    if name not in _OUT_TYPES:
        _OUT_TYPES[name] = return_types._make(name + "_out", type(res)._fields)
    return _OUT_TYPES[name](*(_out(r, o) for r, o in zip(res, out)))


@register(category="sorting", methods=("sort",))
def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """Sort along dim -> (values, indices); NaN sorts as the largest value, ties keep PyTorch's CPU order."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = SortBackward0.apply(input, d, bool(descending), bool(stable))
    return _out_tuple(return_types.sort(vals, idx), out, "sort")


@register(category="sorting", methods=("argsort",))
def argsort(input, dim=-1, descending=False, *, stable=False):
    """Indices that sort input along dim (int64), as torch.sort(...).indices."""
    d = _wrap_dim(dim, input._data.ndim)
    return Tensor._make(_sort_np(input._data, d, bool(descending), bool(stable))[1])


@register(category="sorting", methods=("msort",))
def msort(input, *, out=None):
    """Sort along the first dim (values only)."""
    return _out1(sort(input, 0).values, out)


# ---------------------------------------------------------------------------------------------
# topk
# ---------------------------------------------------------------------------------------------

def _int_arg(op, name, pos, v):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
            return int(v._data)
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    return int(v)


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


# ---------------------------------------------------------------------------------------------
# kthvalue, median, nanmedian, mode
# ---------------------------------------------------------------------------------------------

def _not_implemented(kernel, input):
    from ..dtypes import scalar_name as _short
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_short(input.dtype)}\'')


def _zero_numel_check(input, dim, name):
    if input._data.ndim and input._data.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _reduce_out(rows_vals, rows_idx, moved, dim, keepdim):
    shape = moved[:-1] + (1,)
    v = _from_rows(rows_vals.reshape(-1, 1), shape, dim)
    i = _from_rows(rows_idx.reshape(-1, 1), shape, dim)
    if not keepdim:
        v, i = np.squeeze(v, dim), np.squeeze(i, dim)
    return v, i


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
    return _out_tuple(return_types.kthvalue(vals, idx), out, "kthvalue")


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
        from .pointwise import where
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
    return _out_tuple(return_types.mode(vals, idx), out, "mode")


# ---------------------------------------------------------------------------------------------
# cummax / cummin
# ---------------------------------------------------------------------------------------------

def _cummaxmin_np(d, dim, is_max):
    """cummax_cummin_helper: a value >= (<=) the running one takes over (so ties move the index
    forward); a NaN always takes over and then sticks."""
    if d.ndim == 0:
        return d.copy(), np.zeros((), np.int64)
    if d.size == 0:
        return d.copy(), np.zeros(d.shape, np.int64)
    rows, moved = _to_rows(d, dim)
    n = rows.shape[1]
    acc = (np.maximum if is_max else np.minimum).accumulate(rows, axis=1)   # propagates NaN
    prev = np.empty_like(acc)
    prev[:, 1:] = acc[:, :-1]
    with np.errstate(invalid="ignore"):
        take = (rows >= prev) if is_max else (rows <= prev)
    if rows.dtype.kind == "f":
        take = np.isnan(rows) | (~np.isnan(prev) & take)
    take[:, 0] = True
    idx = np.maximum.accumulate(np.where(take, np.arange(n, dtype=np.int64), 0), axis=1)
    vals = np.take_along_axis(rows, idx, 1)
    return _from_rows(vals, moved, dim), _from_rows(idx, moved, dim)


class CummaxBackward0(Op):
    is_max = True

    @classmethod
    def forward(cls, ctx, a, dim):
        vals, idx = _cummaxmin_np(a._data, dim, cls.is_max)
        ctx.dim, ctx.shape = dim, a._data.shape
        idx = _contig(idx)
        ctx.save_for_backward(a, Tensor._make(idx))     # PyTorch saves self too (cummaxmin_backward)
        return _contig(vals), idx

    @staticmethod
    def backward(ctx, g, gi=None):
        _, idx = ctx.saved_tensors
        if len(ctx.shape) == 0:
            return g
        return _scatter_into_zeros(g, ctx.dim, idx, ctx.shape)


class CumminBackward0(CummaxBackward0):
    is_max = False


@register(category="sorting", methods=("cummax",))
def cummax(input, dim, *, out=None):
    """Running maximum along dim -> (values, indices); ties take the later index, NaN propagates."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = CummaxBackward0.apply(input, d)
    return _out_tuple(return_types.cummax(vals, idx), out, "cummax")


@register(category="sorting", methods=("cummin",))
def cummin(input, dim, *, out=None):
    """Running minimum along dim -> (values, indices); ties take the later index, NaN propagates."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = CumminBackward0.apply(input, d)
    return _out_tuple(return_types.cummin(vals, idx), out, "cummin")


# ---------------------------------------------------------------------------------------------
# aminmax
# ---------------------------------------------------------------------------------------------

class AminmaxBackward0(Op):
    """(min, max) in one pass; each gradient is shared evenly between the tied extrema (as amin/amax)."""

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        d = a._data
        ax = None if (dim is None or d.ndim == 0) else dim
        mn = np.asarray(np.min(d, axis=ax, keepdims=keepdim))
        mx = np.asarray(np.max(d, axis=ax, keepdims=keepdim))
        if keepdim and ax is None:
            mn, mx = mn.reshape((1,) * d.ndim), mx.reshape((1,) * d.ndim)
        mn, mx = _contig(mn), _contig(mx)
        ctx.dims = None if ax is None else (ax,)
        ctx.keepdim, ctx.shape = keepdim, d.shape
        ctx.save_for_backward(a, Tensor._make(mn), Tensor._make(mx))
        return mn, mx

    @staticmethod
    def backward(ctx, gmin, gmax):
        from .reduce import _expand_back
        a, mn, mx = ctx.saved_tensors
        dims = list(ctx.dims) if ctx.dims is not None else None
        res = None
        for g, o in ((gmin, mn), (gmax, mx)):
            mask = (a == _expand_back(o, ctx.shape, ctx.dims, ctx.keepdim)).to(g.dtype)
            count = mask.sum(dim=dims, keepdim=True)
            part = _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * mask / count
            res = part if res is None else res + part
        return res


@register(category="sorting", methods=("aminmax",))
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """(min, max) over all elements or along dim; NaN propagates to both."""
    d = input._data
    if dim is None:
        if d.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        dd = None
    else:
        dd = _wrap_dim(dim, d.ndim)
        if d.ndim and d.shape[dd] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dd} to have non-zero size.")
    mn, mx = AminmaxBackward0.apply(input, dd, bool(keepdim))
    return _out_tuple(return_types.aminmax(mn, mx), out, "aminmax")


# ---------------------------------------------------------------------------------------------
# unique, unique_consecutive
# ---------------------------------------------------------------------------------------------

class _NoDerivative(Op):
    """Output node of an op PyTorch records but cannot differentiate."""
    what = ""

    @staticmethod
    def forward(ctx, a, out):
        return out

    @classmethod
    def backward(cls, ctx, *grads):
        raise NotImplementedError(f"the derivative for '{cls.what}' is not implemented.")


class Unique2Backward0(_NoDerivative):
    what = "_unique2"


class UniqueDimBackward0(_NoDerivative):
    what = "unique_dim"


class UniqueConsecutiveBackward0(_NoDerivative):
    what = "unique_consecutive"


def _unique_flat(x, consecutive):
    """(values, inverse, counts) of the flattened x; NaN never equals NaN. Sorted uniques keep the
    first element of each run in PyTorch's (unstable) sort order, as its CPU kernel does."""
    if consecutive:
        order = None
        s = x
    else:
        order = _sort_np(x, 0, False, False)[1] if x.size else np.zeros(0, np.int64)
        s = x[order]
    start = np.ones(s.size, bool)
    if s.size > 1:
        start[1:] = s[1:] != s[:-1]
    run = np.cumsum(start) - 1
    vals = s[start]
    counts = np.bincount(run, minlength=vals.size).astype(np.int64) if s.size else np.zeros(0, np.int64)
    if order is None:
        inv = run.astype(np.int64)
    else:
        inv = np.empty(s.size, np.int64)
        inv[order] = run
    return vals, inv, counts


class _LexRow:
    """A slice compared as unique_dim's std::sort comparator does (first differing element; NaN
    compares neither less nor greater)."""
    __slots__ = ("r",)

    def __init__(self, r):
        self.r = r

    def __lt__(self, other):
        for a, b in zip(self.r, other.r):
            if a < b:
                return True
            if a > b:
                return False
        return False


def _unique_dim_np(d, dim, consecutive):
    n = d.shape[dim]
    flat = np.moveaxis(d, dim, 0).reshape(n, d.size // n if n else 0)
    if consecutive or n == 0:
        order = np.arange(n, dtype=np.int64)
    else:
        if d.dtype.kind == "f" and np.isnan(flat).any():
            kl, vl = [_LexRow(r) for r in flat.tolist()], list(range(n))
            _std_sort(kl, vl)
            order = np.array(vl, np.int64)
        else:
            K = np.zeros(n, np.int64)
            if flat.shape[1]:
                lex = np.lexsort(flat.T[::-1])
                sf = flat[lex]
                newrow = np.ones(n, bool)
                newrow[1:] = (sf[1:] != sf[:-1]).any(axis=1)
                K[lex] = np.cumsum(newrow) - 1
            order = _sort_indices(K[None], False)[0]
    s = flat[order]
    start = np.ones(n, bool)
    if n > 1:
        start[1:] = (s[1:] != s[:-1]).any(axis=1) if flat.shape[1] else False
    run = np.cumsum(start) - 1
    vals = s[start]
    counts = np.bincount(run, minlength=vals.shape[0]).astype(np.int64) if n else np.zeros(0, np.int64)
    inv = np.empty(n, np.int64)
    inv[order] = run
    rest = tuple(np.delete(np.array(d.shape, dtype=np.int64), dim).tolist())
    out = np.moveaxis(vals.reshape((vals.shape[0],) + rest), 0, dim)
    return _contig(out), inv, counts


def _unique_common(input, return_inverse, return_counts, dim, consecutive):
    d = input._data
    if dim is None:
        vals, inv, counts = _unique_flat(d.reshape(-1), consecutive)
        inv = inv.reshape(d.shape)
        node = UniqueConsecutiveBackward0 if consecutive else Unique2Backward0
    else:
        if d.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        dd = _wrap_dim(dim, d.ndim)
        if d.size == 0 and d.shape[dd] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        vals, inv, counts = _unique_dim_np(d, dd, consecutive)
        node = UniqueConsecutiveBackward0 if consecutive else UniqueDimBackward0
    out = node.apply(input, vals)
    if not (return_inverse or return_counts):
        return out
    res = (out,)
    if return_inverse:
        res += (Tensor._make(inv),)
    if return_counts:
        res += (Tensor._make(counts),)
    return res


@register(category="sorting", methods=("unique",))
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Unique elements (or slices along dim), sorted; optional inverse indices and counts."""
    return _unique_common(input, return_inverse, return_counts, dim, False)


@register(category="sorting", methods=("unique_consecutive",))
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along dim)."""
    return _unique_common(input, return_inverse, return_counts, dim, True)


# ---------------------------------------------------------------------------------------------
# searchsorted, bucketize
# ---------------------------------------------------------------------------------------------

def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _binary_search(bd, vals, right, sorter):
    """cus_lower_bound / cus_upper_bound per value, with PyTorch's comparisons (a NaN boundary
    compares false): bd is (rows, n), vals (rows, m)."""
    rows, n = bd.shape
    m = vals.shape[1]
    start = np.zeros((rows, m), np.int64)
    end = np.full((rows, m), n, np.int64)
    r = np.arange(rows)[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            act = start < end
            if not act.any():
                return start
            mid = start + ((end - start) >> 1)
            midc = np.minimum(mid, n - 1)
            j = sorter[r, midc] if sorter is not None else midc
            mv = bd[r, j]
            go_right = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(act & go_right, mid + 1, start)
            end = np.where(act & ~go_right, mid, end)


def _searchsorted(boundaries, input, out_int32, right, side, sorter, scalar_input):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} "
                               "while right was True")
        right = side == "right"
    bd = boundaries._data
    if sorter is not None:
        if sorter._data.shape != bd.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {_shape_str(bd.shape)}and got sorter tensor {_shape_str(sorter._data.shape)}")
        if sorter._data.dtype != np.int64:
            from ..dtypes import scalar_name as _short
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{_short(sorter.dtype)}")
        s = sorter._data
        if s.size and (s.min() < 0 or s.max() >= s.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    v = input._data
    if not (v.ndim > 0 or (v.size == 1 and bd.ndim == 1)):
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({bd.ndim}) and input value's dim({v.ndim}) "
                           f"numel({v.size})")
    if bd.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if bd.ndim != 1 and (bd.ndim != v.ndim or bd.shape[:-1] != v.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{_shape_str(bd.shape)} and input value tensor {_shape_str(v.shape)}")
    common = _dt.result_type(boundaries, input.item() if scalar_input else input)
    if common is _dt.bool_:
        _not_implemented("searchsorted_out_cpu", boundaries)
    bd = bd.astype(common.np, copy=False)
    v = v.astype(common.np, copy=False)
    n = bd.shape[-1]
    if bd.ndim == 1:
        bd2, v2 = bd.reshape(1, n), v.reshape(1, -1)
        s2 = sorter._data.reshape(1, n) if sorter is not None else None
    else:
        bd2, v2 = bd.reshape(-1, n), v.reshape(-1, v.shape[-1] if v.ndim else 1)
        s2 = sorter._data.reshape(-1, n) if sorter is not None else None
    if n == 0 or v2.size == 0:
        res = np.zeros(v2.shape, np.int64)
    else:
        res = _binary_search(bd2, v2, right, s2)
    return Tensor._make(res.reshape(v.shape).astype(np.int32 if out_int32 else np.int64))


@register(category="sorting")
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Insertion indices of input's values into the innermost dim of sorted_sequence (left or right side)."""
    scalar = not isinstance(input, Tensor)
    if scalar:
        input = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np))
    return _out1(_searchsorted(sorted_sequence, input, out_int32, right, side, sorter, scalar), out)


@register(category="sorting")
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each value given 1-d sorted boundaries (torch.searchsorted with roles swapped)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# ---------------------------------------------------------------------------------------------
# quantile, nanquantile (composed from core ops as PyTorch's quantile_impl, so gradients follow)
# ---------------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    from .. import broadcast_tensors, creation
    if not isinstance(q, Tensor):
        q = float(q)
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if not isinstance(q, Tensor):
        q = Tensor._make(np.asarray(q, dtype=input._data.dtype if input._data.dtype.kind == "f" else np.float32))
    nd = input._data.ndim
    d = _wrap_dim(0 if dim is None else dim, nd)
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q._data.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if dim is not None and nd > 0:
        out_shape = list(input._data.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    elif keepdim:
        out_shape = [1] * nd
    else:
        out_shape = []
    if q._data.ndim > 0:
        out_shape.insert(0, q._data.size)
    if not ((q._data >= 0) & (q._data <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        srt = sort(input.flatten()).values
    elif d == nd - 1:
        srt = sort(input).values
    else:
        srt = sort(input.unsqueeze(-1).transpose(d, -1)).values
    if q._data.ndim == 0:
        out_shape.insert(0, 1)
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = srt.shape[-1]
    srt = srt.view(in_shape)
    if srt.shape[-1] > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        ranks = q * (srt.isnan().logical_not().sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last = srt.shape[-1] - 1
        a, b = broadcast_tensors(q * last, srt.isnan().any(-1, True))
        ranks = a.masked_fill(b, last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = creation.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = ranks.ceil().long()
        values = values.lerp(srt.gather(-1, above), weights)
    if q._data.ndim == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


@register(category="sorting", methods=("quantile",))
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """q-th quantiles along dim (all elements if None) with linear/lower/higher/midpoint/nearest interpolation."""
    return _out1(_quantile(input, q, dim, keepdim, interpolation, False), out)


@register(category="sorting", methods=("nanquantile",))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaN (NaN where a slice is all NaN)."""
    return _out1(_quantile(input, q, dim, keepdim, interpolation, True), out)
