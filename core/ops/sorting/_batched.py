"""Batched, vectorised simulation of std::sort / std::nth_element for strict weak orders on numeric
keys: every active segment of every row is partitioned at once (the partitions of disjoint segments
are independent, so their order does not matter)."""
from __future__ import annotations

import numpy as np

from ._stl import _S_THRESHOLD, _heap_select, _lg, _partial_sort


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
