"""ATen's group_norm backward for contiguous input (GroupNormBackwardKernelImplInternal in
aten/src/ATen/native/cpu/group_norm_kernel.cpp, one thread), float32 / float64 bit for bit with torch's AVX2 build,
and the GammaBackward / BetaBackward both memory formats share.

Per (sample, channel) plane of HxW: ds = map2_reduce_all(dy * x, +) and db = reduce_all(dy, +) (the first vector,
then vector by vector acc + v, the partial last vector added into its first lanes, then the lanes; planes shorter
than a vector: their elements in order). The products are not contracted, except those of float64's partial last
vector: fma(dy, x, acc) (measured). Per (sample, group), CalcDsDb folds the channels' ds * gamma and db * gamma:
full vectors of channels into a zero vector as fma(ds, gamma, acc), its lanes summed from zero in order, then the
remaining channels as GCC compiled that loop: 128-bit vectors first (4 floats / 2 doubles: products rounded, then
added in order), the rest contracted, val = fma(ds, gamma, val). Then, with s = 1 / (D * HxW) in T:
c2 = fma(db, mean, -ds) * rstd * rstd * rstd * s, c3 = fma(-(db * rstd), s, -(c2 * mean)), and per element
dx = fma(rstd * gamma, dy, c2 * x) + c3. GammaBackward: dgamma = fma(fma(-db, mean, ds), rstd, acc) sample by
sample from zero; BetaBackward: dbeta = acc + db sample by sample from zero.
"""
from __future__ import annotations

import numpy as np

from ..._vec_math import hseq, hsum, vectors_sum
from ..pointwise._fma import fma


def lanes(dt):
    """Lanes of one AVX2 Vectorized<T> (the group_norm kernels have no AVX512 build)."""
    return 32 // np.dtype(dt).itemsize


def plane_sums(dy, x):
    """(ds, db) of every row (sample and channel) of the 2-D arrays dy and x: map2_reduce_all / reduce_all."""
    dt = x.dtype
    V = lanes(dt)
    n = x.shape[1]
    prod = dy * x
    if n < V:
        return hseq(prod, n), hseq(dy, n)
    full = n - n % V
    acc_s, acc_b = vectors_sum(prod, full, V), vectors_sum(dy, full, V)
    if n > full:
        k = n - full
        if dt == np.float64:
            acc_s[:, :k] = fma(dy[:, full:], x[:, full:], acc_s[:, :k], dt)
        else:
            acc_s[:, :k] += prod[:, full:]
        acc_b[:, :k] += dy[:, full:]
    return hsum(acc_s), hsum(acc_b)


def _fold_gamma(v, gamma):
    """CalcDsDb, the lanes' std::accumulate and the remaining channels' loop: sum over the last axis of v (.., D)
    of v * gamma (gamma (.., D) broadcast against v), in the kernel's order and roundings."""
    dt = v.dtype
    V = lanes(dt)
    D = v.shape[-1]
    d = D // V * V
    acc = np.zeros(v.shape[:-1] + (V,), dt)
    for j in range(0, d, V):
        acc = fma(v[..., j:j + V], gamma[..., j:j + V], acc, dt)
    val = np.zeros(v.shape[:-1], dt)
    for i in range(V):
        val = val + acc[..., i]
    split = d + (D - d) // (V // 2) * (V // 2)     # the 128-bit vectorised part of the remaining loop
    for j in range(d, D):
        if j < split:
            val = val + v[..., j] * gamma[..., j]
        else:
            val = fma(v[..., j], gamma[..., j], val, dt)
    return val


def coefficients(ds_g, db_g, mean, rstd, s, dt, contiguous=True):
    """(c2, c3) of GroupNormInputBackward (contiguous) or the channels-last kernels: the same expressions,
    contracted differently by the compiler (measured): c3 = fma(-(db * rstd), s, -(c2 * mean)) there,
    fma(-c2, mean, -(db * rstd * s)) here."""
    r = rstd
    c2 = fma(db_g, mean, -ds_g, dt) * r * r * r * s
    if contiguous:
        c3 = fma(-(db_g * r), s, -(c2 * mean), dt)
    else:
        c3 = fma(-c2, mean, -(db_g * r * s), dt)
    return c2, c3


def gamma_beta(ds, db, mean, rstd, groups, need_gamma, need_beta):
    """GammaBackward and BetaBackward from the (N, C) ds and db: (dgamma or None, dbeta or None)."""
    dt = ds.dtype
    n, c = ds.shape
    dgamma = dbeta = None
    if need_gamma:
        per = c // groups
        m = np.repeat(mean.reshape(n, groups), per, 1)
        r = np.repeat(rstd.reshape(n, groups), per, 1)
        t = fma(-db, m, ds, dt)
        dgamma = np.zeros(c, dt)
        for i in range(n):
            dgamma = fma(t[i], r[i], dgamma, dt)
    if need_beta:
        dbeta = np.zeros(c, dt)
        for i in range(n):
            dbeta = dbeta + db[i]
    return dgamma, dbeta


def backward(dy, x, mean, rstd, gamma, groups, need):
    """(dx, dgamma, dbeta) of group_norm for contiguous x (N, C, *) and dy, mean / rstd (N, G) as the forward
    saved them; need = (input, weight, bias) flags. gamma None: no affine."""
    dt = x.dtype
    n, c = x.shape[:2]
    hw = x.size // (n * c)
    per = c // groups
    x2 = np.ascontiguousarray(x).reshape(n * c, hw)
    dy2 = np.ascontiguousarray(dy, dtype=dt).reshape(n * c, hw)
    ds, db = (a.reshape(n, c) for a in plane_sums(dy2, x2))
    dx = None
    if need[0]:
        g = np.ones((groups, per), dt) if gamma is None else gamma.reshape(groups, per)
        ds_g = _fold_gamma(ds.reshape(n, groups, per), g)
        db_g = _fold_gamma(db.reshape(n, groups, per), g)
        m, r = mean.reshape(n, groups), rstd.reshape(n, groups)
        s = dt.type(dt.type(1) / dt.type(per * hw))
        c2, c3 = coefficients(ds_g, db_g, m, r, s, dt)
        c1 = r[:, :, None] * g                                           # (N, G, D)
        x4, dy4 = x2.reshape(n, groups, per, hw), dy2.reshape(n, groups, per, hw)
        dx = fma(c1[..., None], dy4, c2[:, :, None, None] * x4, dt) + c3[:, :, None, None]
        dx = dx.reshape(x.shape)
    dgamma, dbeta = gamma_beta(ds, db, mean, rstd, groups, len(need) > 1 and need[1] and gamma is not None,
                               len(need) > 2 and need[2])
    return dx, dgamma, dbeta
