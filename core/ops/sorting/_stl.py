"""Ports of the libstdc++ (GCC 13) algorithms PyTorch's CPU kernels call (std::sort, std::nth_element,
std::partial_sort, TH's quickselect), on Python lists of keys `k` and payloads `v` kept in step.

PyTorch's sort / topk / kthvalue / median are not stable: the index reported for tied values depends
on the algorithm's exact sequence of swaps, so the algorithms are ported step for step (each helper
mirrors one libstdc++ function, which is why they are kept together here)."""
from __future__ import annotations


# Keys compare with `<` only, as the C++ comparators do.
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
