"""ATen's RowwiseMoments (aten/src/ATen/native/cpu/moments_utils.h), the mean and biased variance of each row that
layer_norm and group_norm normalise with, for float32 and float64 rows, bit for bit with torch's AVX2 build.

Each row is read as n = N // V vectors of V lanes (V = 8 floats or 4 doubles: 32 bytes), cut into chunks of 16
vectors. Per chunk and lane, Welford from zero with c_j = 1 / (j + 1): delta = x - m1, m1 = fma(delta, c_j, m1),
m2 = fma(delta, x - m1, m2). The chunks then merge into a cascade of depth ceil_log2(chunks): chunk i enters
level 0, and while (i + 1) has trailing zero bits level j - 1 merges into level j (below the top level); at the
end levels 1.. merge into level 0 in order. A merge (AddMomentsVec) of (k', m1', m2') into (k, m1, m2), with
c = k' / (k + k') and delta = m1' - m1, computes m1 + (delta * c) and fma(delta * c, delta * k, m2 + m2')
(the contracted, reassociated code of torch's build, measured). The last N % V elements run a scalar Welford
(m1 += delta / k, m2 += delta * (x - m1), not contracted), and the V lanes then merge into it in order as
scalars (AddMoments, contracted: m1 = fma(c, delta, m1), m2 += fma(delta * delta * c, k, m2')). The variance is
m2 / N. Every row is computed at once: the cost is a few NumPy calls per vector step of one chunk (16) and per
chunk merge, not per element.
"""
from __future__ import annotations

import threading

import numpy as np

from ... import _cpu
from ..pointwise import _fma

_CHUNK = 16
_S = np.float64(2.0 ** 27 + 1)       # Dekker's split, as _fma
_local = threading.local()
_SCRATCH_MAX = 1 << 23


def _scratch(nbytes):
    """A reused per-thread byte buffer of at least nbytes (fresh above _SCRATCH_MAX): new large arrays on every
    call cost more in page faults than the Welford steps do in arithmetic."""
    if nbytes > _SCRATCH_MAX:
        return np.empty(nbytes, np.uint8)
    buf = getattr(_local, "buf", None)
    if buf is None or buf.size < nbytes:
        buf = _local.buf = np.empty(max(nbytes, 1 << 16), np.uint8)
    return buf
_INV = {t: [t(t(1) / t(j + 1)) for j in range(_CHUNK)] for t in (np.float32, np.float64)}   # c_vecs


def _ceil_log2(x: int) -> int:
    return x - 1 if x <= 2 else int(x - 1).bit_length()


def _fma64_finite(a, b, c):
    """_fma.fma64's operations on float64 operands, without its replacement of non-finite lanes by a * b + c: equal
    to it wherever the result is finite (a non-finite lane stays non-finite in the moments that follow)."""
    p = a * b
    e = _fma.product_error(a, b, p)
    s = p + c
    return s + (_fma._two_sum_err(s, p, c) + e)


class _Fma:
    """a * b + c rounded once in dt. float32 rounds the float64 sum of the exact product and c to float32: a sum on
    a float32 midpoint that is not exact (TwoSum's error is not zero) is the only case where the two roundings
    differ from one; it is looked for at each call (the midpoint test is two NumPy calls, TwoSum runs only when
    one is found), and then `exact()` is False and the caller runs again through _fma.fma. float64: _fma.fma64
    always; with finite_checked, its operations without the check of non-finite lanes (the caller checks that its
    results are finite)."""

    def __init__(self, dt, fast, finite_checked=False):
        self.dt, self.fast, self.ok = dt, fast and dt == np.float32, True
        self.fast64 = fast and finite_checked and dt == np.float64

    def __call__(self, a, b, c):
        if self.fast64:
            return _fma64_finite(a, b, c)
        if not self.fast:
            return _fma.fma(a, b, c, self.dt)
        p = np.multiply(a, b, dtype=np.float64)
        s = np.add(p, c, dtype=np.float64)
        u = np.left_shift(np.atleast_1d(s).view(np.uint64), _fma._SHIFT).view(np.int64)
        if np.minimum.reduce(u, axis=None) == _fma._IMIN:
            e = _fma._two_sum_err(s, p, np.asarray(c, np.float64))
            if ((u == _fma._IMIN) & (np.atleast_1d(e) != 0)).any():
                self.ok = False
        return s.astype(np.float32)

    def exact(self):
        return self.ok


def _merge(add, base, dt, fma):
    """AddMomentsVec(add into base): (count, m1, m2) triples with array moments; returns the new base."""
    k_add, m1_add, m2_add = add
    k, m1, m2 = base
    n = k + k_add
    if k_add == 0:
        return base             # c == 0: m1 and m2 unchanged (exact for finite moments)
    if k == 0:
        return add              # c == 1 from an empty base: the added moments, exactly
    c = dt.type(dt.type(k_add) / dt.type(n))
    delta = m1_add - m1
    dc = delta * c
    return n, m1 + dc, fma(dc, delta * dt.type(k), m2 + m2_add)


def rowwise_moments(x):
    """(mean, biased variance) of each row of a 2-D float32/float64 array, as ATen's RowwiseMoments."""
    x = np.ascontiguousarray(x)
    fma = _Fma(x.dtype, True, True)
    out = _moments(x, fma, True)
    if out is not None and fma.exact() and (x.dtype == np.float32 or np.isfinite(out).all()):
        return out
    return _moments(x, _Fma(x.dtype, False), False)


_SPLIT_INV = [(h, float(c) - h) for c in _INV[np.float64] for h in [float(_S * c - (_S * c - c))]]


def _steps_fast(xt, pcnt, lp, dt):
    """The Welford steps of every chunk at once, lanes as columns of xt (cnt, L): the first lp columns are the
    partial chunk's (pcnt steps), the others full chunks'. Each lane's operations are _moments' slow loop's, in
    its order: float32 through preallocated float64 sums (None if one lands on a float32 midpoint: the caller
    then runs the checked path), float64 through fma64's Dekker operations with c_j's split precomputed and
    delta's split shared by its two fmas (None if a lane is not finite: fma64 keeps a * b + c there)."""
    cnt, L = xt.shape
    a1 = xt[0].copy()
    a2 = (a1 - a1) * a1 + dt.type(0)
    delta = np.empty(L, dt)
    t = np.empty(L, dt)
    if dt == np.float32:
        return _steps32(xt, pcnt, lp)
    two_sum = _fma._two_sum_err
    # the constants as full rows: an array operand costs NumPy less than a scalar one on short rows
    cs = np.broadcast_to(np.array([_INV[np.float64][:cnt], [h for h, _ in _SPLIT_INV[:cnt]],
                                   [lo for _, lo in _SPLIT_INV[:cnt]]])[:, :, None], (3, cnt, L))
    split = np.broadcast_to(_S, (L,))
    dl_all = _scratch(cnt * L * 8)[:cnt * L * 8].view(np.float64).reshape(cnt, L)
    if pcnt < cnt:
        dl_all[pcnt:, :lp] = 0
    for j in range(1, cnt):
        lo = 0 if j < pcnt else lp
        xj, b1, b2, d, sp = xt[j, lo:], a1[lo:], a2[lo:], dl_all[j, lo:], split[lo:]
        np.subtract(xj, b1, out=d)
        w = sp * d
        dh = w - (w - d)
        dl = d - dh
        if j & (j + 1):
            c, ch, cl = cs[0, j, lo:], cs[1, j, lo:], cs[2, j, lo:]
            p = d * c
            e = ((dh * ch - p) + dh * cl + dl * ch) + dl * cl
            s = p + b1
            b1[...] = s + (two_sum(s, p, b1) + e)
        else:       # c_j a power of two: d * c_j exact (d not subnormal: checked below), e = 0 and fma64's
            b1 += d * _INV[np.float64][j]       # s + (TwoSum error) is s, the sum rounded once
        q = xj - b1
        w = sp * q
        qh = w - (w - q)
        ql = q - qh
        p = d * q
        e = ((dh * qh - p) + dh * ql + dl * qh) + dl * ql
        s = p + b2
        b2[...] = s + (two_sum(s, p, b2) + e)
    pow2 = dl_all[[j for j in (1, 3, 7, 15) if j < cnt]]
    if ((np.abs(pow2) < 2.0 ** -1000) & (pow2 != 0)).any():
        return None
    if not (np.isfinite(a1).all() and np.isfinite(a2).all()):
        return None
    return a1, a2


_INV32 = np.array(_INV[np.float32], np.float32)


def _steps32(xt, pcnt, lp):
    """_steps_fast in float32: each fma's float64 sum kept in one buffer, and the histories of m1, m2 and delta, so
    the sums on a float32 midpoint (one TwoSum error each) are checked at the end as _Fma.exact does."""
    cnt, L = xt.shape
    nb, n4 = 2 * (cnt - 1) * L * 8, cnt * L * 4
    raw = _scratch(2 * nb + 3 * n4)
    buf = raw[:nb].view(np.float64).reshape(2 * (cnt - 1), L)
    a1, a2, dl = (raw[nb + i * n4:nb + (i + 1) * n4].view(np.float32).reshape(cnt, L) for i in range(3))
    if pcnt < cnt:      # the partial chunk's lanes past its steps: zero sums and deltas for the checks below
        buf[2 * (pcnt - 1):, :lp] = 0
        dl[pcnt:, :lp] = 0
    t = np.empty(L, np.float32)
    a1[0] = xt[0]
    np.multiply(xt[0] - xt[0], xt[0], out=a2[0])
    a2[0] += np.float32(0)
    for j in range(1, cnt):
        lo = 0 if j < pcnt else lp
        xj, d, tt, b1, b2 = xt[j, lo:], dl[j, lo:], t[lo:], a1[j, lo:], a2[j, lo:]
        np.subtract(xj, a1[j - 1, lo:], out=d)
        s = buf[2 * j - 2, lo:]
        np.multiply(d, _INV32[j], out=s, dtype=np.float64)
        np.add(s, a1[j - 1, lo:], out=s)
        np.copyto(b1, s, casting="unsafe")
        np.subtract(xj, b1, out=tt)
        s = buf[2 * j - 1, lo:]
        np.multiply(d, tt, out=s, dtype=np.float64)
        np.add(s, a2[j - 1, lo:], out=s)
        np.copyto(b2, s, casting="unsafe")
    # a power-of-two c_j: d * c_j and m1 have 24-bit significands, their float64 sum is exact, or inexact only when
    # one is below 2**-28 of the other, and then within 1/32 float32 ulp of the larger: never a midpoint
    buf[[2 * j - 2 for j in (1, 3, 7, 15) if j < cnt]] = 0
    u = np.left_shift(buf.view(np.uint64), _fma._SHIFT,
                      out=raw[nb + 3 * n4:2 * nb + 3 * n4].view(np.uint64).reshape(buf.shape)).view(np.int64)
    if u.size and np.minimum.reduce(u, axis=None) == _fma._IMIN:
        r, lane = np.nonzero(u == _fma._IMIN)
        j, kind = r // 2 + 1, r % 2
        prev = np.where(kind == 0, a1[j - 1, lane], a2[j - 1, lane]).astype(np.float64)
        q = np.where(kind == 0, _INV32[j], xt[j, lane] - a1[j, lane]).astype(np.float64)
        if (_fma._two_sum_err(buf[r, lane], dl[j, lane] * q, prev) != 0).any():
            return None
    m1, m2 = a1[cnt - 1].copy(), a2[cnt - 1].copy()
    if lp and pcnt < cnt:
        m1[:lp], m2[:lp] = a1[pcnt - 1, :lp], a2[pcnt - 1, :lp]
    return m1, m2


def _chunk_moments(x, rows, n, V, dt, fma, fast):
    """Welford over each 16-vector chunk of every row: (m1 per chunk and lane, m2 likewise, counts), or
    None when the fast float32 path meets a case it leaves to the checked one."""
    full = n // _CHUNK
    counts = [_CHUNK] * full + ([n - full * _CHUNK] if n % _CHUNK else [])
    xv = x[:, :n * V].reshape(rows, n, V)
    m1s, m2s = [], []
    if fast:
        pcnt = n % _CHUNK
        lp = rows * V if pcnt else 0
        cnt = _CHUNK if full else pcnt
        xt = np.zeros((cnt, lp + rows * full * V), dt)
        if pcnt:
            xt[:pcnt, :lp] = xv[:, full * _CHUNK:].transpose(1, 0, 2).reshape(pcnt, lp)
        if full:
            xt[:, lp:] = xv[:, :full * _CHUNK].reshape(rows, full, _CHUNK, V).transpose(2, 0, 1, 3) \
                .reshape(_CHUNK, -1)
        res = _steps_fast(xt, pcnt if pcnt else cnt, lp, dt)
        if res is None:
            return None
        a1, a2 = res
        if full:
            m1s.append(a1[lp:].reshape(rows, full, V))
            m2s.append(a2[lp:].reshape(rows, full, V))
        if pcnt:
            m1s.append(a1[:lp].reshape(rows, 1, V))
            m2s.append(a2[:lp].reshape(rows, 1, V))
    for lo, cnt, nchunks in ((0, _CHUNK, full), (full * _CHUNK, n % _CHUNK, 1 if n % _CHUNK else 0)):
        if not nchunks or fast:
            continue
        # vector step j of every chunk and row as one contiguous row of xt
        xt = np.ascontiguousarray(xv[:, lo:lo + nchunks * cnt].reshape(rows, nchunks, cnt, V)
                                  .transpose(2, 0, 1, 3)).reshape(cnt, -1)
        a1 = xt[0].copy()                       # j = 0: m1 = x (c = 1), m2 = fma(x, x - x, 0)
        a2 = (a1 - a1) * a1 + dt.type(0)        # +0, or NaN for an infinite x
        for j in range(1, cnt):
            xj = xt[j]
            delta = xj - a1
            a1 = fma(delta, _INV[dt.type][j], a1)
            a2 = fma(delta, xj - a1, a2)
        a1 = a1.reshape(rows, nchunks, V)
        a2 = a2.reshape(rows, nchunks, V)
        m1s.append(a1)
        m2s.append(a2)
    c1 = np.concatenate(m1s, axis=1) if len(m1s) > 1 else m1s[0]
    c2 = np.concatenate(m2s, axis=1) if len(m2s) > 1 else m2s[0]
    return c1, c2, counts


def _cascade(c1, c2, counts, m, dt, fma):
    """CascadeSum's merge order over the m chunks' moments: (m1, m2) per lane."""
    depth = _ceil_log2(m)
    empty = (0, None, None)
    stk = [empty] * max(depth, 1)
    for i in range(m):
        stk[0] = _merge((counts[i], c1[:, i], c2[:, i]), stk[0], dt, fma)
        mask, j = i + 1, 1
        while j < depth and not mask & 1:
            stk[j] = _merge(stk[j - 1], stk[j], dt, fma)
            stk[j - 1] = empty
            mask >>= 1
            j += 1
    for i in range(1, depth):
        stk[0] = _merge(stk[i], stk[0], dt, fma)
    return stk[0][1], stk[0][2]


def _moments(x, fma, fast=False):
    """RowwiseMoments of every row of x (rows, N): (mean, biased variance), or None when the fast path declines."""
    dt = x.dtype
    rows, N = x.shape
    V = 32 // dt.itemsize
    n = N // V
    m = -(-n // _CHUNK)
    lanes1 = lanes2 = None
    if n:
        res = _chunk_moments(x, rows, n, V, dt, fma, fast)
        if res is None:
            return None
        c1, c2, counts = res
        lanes1, lanes2 = _cascade(c1, c2, counts, m, dt, fma)
    k = 0
    s1 = np.zeros(rows, dt)
    s2 = np.zeros(rows, dt)
    for i in range(n * V, N):               # the scalar tail, from zero
        xi = x[:, i]
        delta = xi - s1
        k += 1
        s1 = s1 + delta / dt.type(k)
        s2 = s2 + delta * (xi - s1)
    if n:
        for lane in range(V):               # AddMoments(n, lane) into the tail's moments
            m1_add, m2_add = lanes1[:, lane], lanes2[:, lane]
            tot = k + n
            c = dt.type(dt.type(n) / dt.type(tot))
            delta = m1_add - s1
            s1 = fma(c, delta, s1)
            s2 = s2 + fma(delta * delta * c, dt.type(k), m2_add)
            k = tot
    return s1, s2 / dt.type(N)


def _affine(t, weight, bias, dt):
    """t * gamma + beta with one rounding, as the kernels' contracted multiply-add (t without gamma)."""
    if weight is None:
        return t
    if bias is None:
        return t * weight.astype(dt, copy=False)
    return _fma.fma(t, weight.astype(dt, copy=False), bias.astype(dt, copy=False), dt)


def _layer_stats(rows, eps):
    dt = rows.dtype
    mean, var = rowwise_moments(rows)
    return mean, dt.type(1) / np.sqrt(var + dt.type(eps))


def _group_stats(rows, eps):
    mean, var = rowwise_moments(rows)
    return mean, (1.0 / np.sqrt(np.maximum(var, 0).astype(np.float64) + eps)).astype(rows.dtype)


def stats(x, nrows, eps):
    """(mean, rstd) of x read as nrows rows, as layer_norm saves them (group_norm's kernels return theirs with
    the output); None for a dtype not modelled."""
    if not _modelled(x.dtype) or not x.size:
        return None
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _layer_stats(x.reshape(nrows, -1), eps)


def _modelled(dt):
    """float32 / float64 on a CPU whose ATen kernels are the AVX2 build (REGISTER_DISPATCH kernels stay AVX2 on
    AVX512 CPUs); the default build has no fused multiply-adds: not modelled."""
    return dt in (np.float32, np.float64) and _cpu.capability() != "default"


def layer_norm(x, ndim_norm, eps, weight, bias):
    """LayerNormKernelImplInternal: (out, mean, rstd) with mean / rstd shaped for broadcasting (keepdims), or None
    for a dtype or size not modelled. rstd = 1 / sqrt(var + (T)eps) in T; out = fma((x - mean) * rstd, gamma,
    beta), without gamma fma(x - mean, rstd, beta) (measured against torch's build)."""
    dt = x.dtype
    if not _modelled(dt) or not x.size:
        return None
    lead = x.shape[:x.ndim - ndim_norm]
    rows = x.reshape(-1, x.size // max(int(np.prod(lead, dtype=np.int64)), 1))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean, rstd = _layer_stats(rows, eps)
        if weight is None and bias is not None:     # the gamma_null loop: fma(x - mean, rstd, beta)
            out = _fma.fma((rows - mean[:, None]).reshape(x.shape), rstd.reshape(lead + (1,) * ndim_norm),
                           bias.astype(dt, copy=False), dt)
        else:
            t = (rows - mean[:, None]) * rstd[:, None]
            out = _affine(t.reshape(x.shape), weight, bias, dt)
    kshape = lead + (1,) * ndim_norm
    return out, mean.reshape(kshape), rstd.reshape(kshape)


def group_norm(x, groups, eps, weight, bias):
    """GroupNormKernelImplInternal (contiguous memory format): moments per (sample, group) row, rstd = 1 /
    sqrt(max(var, 0) + eps) in double rounded to T; no affine: (x - mean) * rstd; else per channel scale = rstd *
    gamma, bias = fma(-scale, mean, beta), out = fma(x, scale, bias): (out, mean, rstd) with one mean and rstd per
    row, or None when not modelled. x is read as C-contiguous (torch's input.contiguous()); channels-last input
    runs another kernel (_group_norm_channels_last)."""
    dt = x.dtype
    if not _modelled(dt) or not x.size:
        return None
    n, c = x.shape[:2]
    rows = x.reshape(n * groups, -1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean, rstd = _group_stats(rows, eps)
        xc = x.reshape(n, c, -1)
        if weight is None and bias is None:
            return ((rows - mean[:, None]) * rstd[:, None]).reshape(x.shape), mean, rstd
        per = c // groups
        mc = np.repeat(mean.reshape(n, groups), per, 1)
        rc = np.repeat(rstd.reshape(n, groups), per, 1)
        scale = rc if weight is None else rc * weight.astype(dt, copy=False)
        beta = np.zeros(c, dt) if bias is None else bias.astype(dt, copy=False)
        shift = _fma.fma(-scale, mc, np.broadcast_to(beta, scale.shape), dt)
        out = _fma.fma(xc, scale[:, :, None], shift[:, :, None], dt)
    return out.reshape(x.shape), mean, rstd


# -- layer_norm backward (layer_norm_backward_frame) ------------------------------------------------------

def _vec_sum(p, q, fma):
    """vec::map2_reduce_all / map3_reduce_all / reduce_all with `+` over each row of p * q (q None: of p), as
    torch's AVX2 build runs them: the first vector, then vector by vector acc + p * q (not contracted), the
    partial last vector fma(p, q, acc) on its lanes, then the lanes: float (v[i] + v[i + 4]) folded
    (0 + 2) + (1 + 3), double in order. Rows shorter than a vector: their elements in order."""
    dt = p.dtype
    rows, N = p.shape
    V = 32 // dt.itemsize
    vals = p if q is None else p * q
    if N < V:
        acc = vals[:, 0]
        for i in range(1, N):
            acc = acc + vals[:, i]
        return acc
    full = N - N % V
    main = np.ascontiguousarray(vals[:, :full].reshape(rows, full // V, V).transpose(1, 0, 2)).reshape(full // V, -1)
    acc = np.add.reduce(main, 0).reshape(rows, V) if full > V else main[0].reshape(rows, V).copy()
    if N > full:
        k = N - full
        tail = acc[:, :k]
        acc[:, :k] = tail + p[:, full:] if q is None else fma(p[:, full:], q[..., full:], tail)
    if V == 8:
        v = acc[:, :4] + acc[:, 4:]
        return (v[:, 0] + v[:, 2]) + (v[:, 1] + v[:, 3])
    out = acc[:, 0]
    for i in range(1, V):
        out = out + acc[:, i]
    return out


def _fma_rows(p, q, fma):
    """buf = fma(p[i], q[i], buf) row by row from zero (the per-thread dgamma buffer of one thread)."""
    if p.dtype == np.float64 and p.shape[0] > 1 and (buf := _fma_rows64(p, q)) is not None:
        return buf
    buf = np.zeros(p.shape[1], p.dtype)
    for i in range(p.shape[0]):
        buf = fma(p[i], q[i], buf)
    return buf


def _fma_rows64(p, q):
    """_fma_rows in float64 with _fma.fma64's operations: every row's Dekker product (p * q and its exact error) at
    once, then per row TwoSum and one rounding in preallocated rows; None if the result is not finite (fma64 keeps
    a * b + c on such lanes)."""
    prod = p * q
    err = _fma.product_error(p, q, prod)
    n = p.shape[1]
    acc, s, z, t = (np.zeros(n) for _ in range(4))
    add, sub = np.add, np.subtract
    for pm, em in zip(prod, err):
        add(pm, acc, s)
        sub(s, pm, z)
        sub(s, z, t)
        sub(pm, t, t)           # p - (s - z)
        sub(acc, z, z)          # acc - z
        add(t, z, t)            # TwoSum's error of s
        add(t, em, t)
        add(s, t, acc)
    return acc if np.isfinite(acc).all() else None


def _layer_norm_grads(dy, x, mean, rstd, gamma, need, fma):
    dt = x.dtype
    rows, N = x.shape
    dx = dgamma = dbeta = None
    a = rstd[:, None]
    if need[0]:
        if gamma is None:
            ds = _vec_sum(dy, x, fma)
            db = _vec_sum(dy, None, fma)
        else:
            ds = _vec_sum(dy * x, gamma, fma)
            db = _vec_sum(dy, gamma, fma)
        scale = dt.type(dt.type(1) / dt.type(N))
        r = rstd
        b = ((fma(db, mean, -ds) * r) * r * r) * scale
        c = fma(-b, mean, -((db * r) * scale))
        t = a * dy if gamma is None else (a * dy) * gamma
        dx = fma(b[:, None], x, t) + c[:, None]
    if need[1]:
        dgamma = _fma_rows(dy, fma(a, x, -rstd[:, None] * mean[:, None]), fma)
    if need[2]:
        dbeta = np.add.reduce(dy, 0) if rows > 1 else dy[0].copy()
    return dx, dgamma, dbeta


def layer_norm_backward(dy, x, mean, rstd, gamma, need):
    """(dx, dgamma, dbeta) of layer_norm as layer_norm_backward_frame on one thread, x and dy read as rows of the
    normalised size: ds, db by the vectorised reductions above; b = (fma(db, mean, -ds) * a * a * a) / N's
    reciprocal, c = fma(-b, mean, -(db * a * (1/N))), dx = fma(b, x, a * dy * gamma) + c; dgamma = fma(dy, fma(a,
    x, -a * mean), dgamma) row by row; dbeta the rows added in order. None when not modelled."""
    dt = x.dtype
    if not _modelled(dt) or not x.size or x.ndim != 2:
        return None
    dy = np.ascontiguousarray(dy, dtype=dt)
    x = np.ascontiguousarray(x)
    gamma = None if gamma is None else gamma.astype(dt, copy=False)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        fma = _Fma(dt, True)
        out = _layer_norm_grads(dy, x, mean, rstd, gamma, need, fma)
        return out if fma.exact() else _layer_norm_grads(dy, x, mean, rstd, gamma, need, _Fma(dt, False))
