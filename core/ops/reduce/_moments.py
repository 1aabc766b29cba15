"""ATen's CPU variance kernels on NumPy arrays, bit for bit: var/std/var_mean/std_mean's values.

- One output element, var/std of float or double (ReduceOps.cpp std_var_all_cpu): mean = self.mean() (torch's
  float sum / n, as a double), then the sum of (double(x) - mean)**2 in memory order, one double accumulator
  per 2-d iterator chunk, chunks added to a running total; var = total / max(0, n - correction).
- Everything else (std_var_kernel_impl, var_mean's std_var_mean_out): WelfordOps<scalar_t, double> element by
  element in TensorIterator's order: delta = x - mean; mean += delta / n; m2 += delta * (x - mean);
  var = m2 / max(n - correction, 0), sqrt in double, then rounded to the result dtype.

A double result needs those exact steps: one NumPy step per reduced element (all outputs at once), or the
sequential cumulative sum. A float32 or half result is the rounding of a double that an accurate two-pass
computes to ~1e-15: the two-pass value is used wherever the whole interval its error bound allows rounds
to one value (checked per element), and the exact steps run for the other elements only (about 1 in 10^5
on random data). Past _WELFORD_STEPS reduced elements the exact steps are not run (too slow): a double
result may be an ulp off there.
"""
from __future__ import annotations

import math

import numpy as np

from ... import _sum_order

_WELFORD_STEPS = 2048
_PY_COLUMNS = 24      # up to this many outputs, a reduction longer than _WELFORD_STEPS walks in Python floats
_U = 2.0 ** -53


def _walk(d, ax):
    """d with the reduced axes flattened to a leading axis in TensorIterator's order (largest input stride
    outermost, so memory order), the kept axes after it, flattened: (N, K)."""
    red = sorted(ax, key=lambda k: -abs(d.strides[k]))
    kept = [k for k in range(d.ndim) if k not in ax]
    return np.transpose(d, red + kept).reshape(int(np.prod([d.shape[k] for k in ax])), -1)


def _welford_steps(x):
    """Exact WelfordOps over axis 0 of x (N, K), in double: (mean, m2), each (K,)."""
    mean = np.zeros(x.shape[1:])
    m2 = np.zeros(x.shape[1:])
    delta, tmp = np.empty_like(mean), np.empty_like(mean)
    for i in range(x.shape[0]):
        xi = x[i]
        np.subtract(xi, mean, out=delta)
        np.divide(delta, float(i + 1), out=tmp)
        np.add(mean, tmp, out=mean)
        np.subtract(xi, mean, out=tmp)
        np.multiply(delta, tmp, out=tmp)
        np.add(m2, tmp, out=m2)
    return mean, m2


def _welford_columns(x):
    """_welford_steps for a few columns of x (N, k): Python floats (IEEE doubles, one rounding per operation, as
    C's), about 40x cheaper than NumPy calls on k-element rows."""
    means, m2s = [], []
    for col in x.T.tolist():
        mean = m2 = 0.0
        for i, v in enumerate(col, 1):
            delta = v - mean
            mean = mean + delta / i
            m2 = m2 + delta * (v - mean)
        means.append(mean)
        m2s.append(m2)
    return np.array(means), np.array(m2s)


def _same_rounding(lo, hi, dt):
    """Elementwise: lo and hi (doubles) round to the same value of dtype dt (so does all between them)."""
    return lo.astype(dt) == hi.astype(dt)


def _project(m2, dof, take_sqrt):
    with np.errstate(all="ignore"):
        v = m2 / np.float64(dof)
        return np.sqrt(v) if take_sqrt else v


def welford(d, ax, correction, take_sqrt, with_mean):
    """(result, mean or None) over axes ax of d, as flat (K,) arrays in d's dtype (kept axes in C order)."""
    n = int(np.prod([d.shape[k] for k in ax]))
    dof = max(n - correction, 0)
    dt = d.dtype
    if dt == np.float64:
        w = _walk(d, ax)
        if n <= _WELFORD_STEPS or w.shape[1] > _PY_COLUMNS:
            mean, m2 = _welford_steps(w)
        else:               # a long reduction into few outputs: Python floats beat n NumPy calls on short rows
            mean, m2 = _welford_columns(w)
        return _project(m2, dof, take_sqrt), (mean if with_mean else None)
    kept = [k for k in range(d.ndim) if k not in ax]
    # two-pass in double over the original layout (no copy to walk order), kept axes flattened after
    xd = np.moveaxis(d, list(ax), list(range(len(ax)))).reshape((n, -1)) if ax != tuple(range(len(ax))) else \
        d.reshape((n, -1))
    mean = np.mean(xd, axis=0, dtype=np.float64)
    dev = xd.astype(np.float64)     # then in place: a ufunc casting its input goes through a buffer, 5x slower
    dev -= mean
    m2 = np.einsum("ij,ij->j", dev, dev)
    res = _project(m2, dof, take_sqrt)
    if dt == np.float64:
        return res.astype(dt), (mean.astype(dt) if with_mean else None)
    # error bounds (absolute, in double) of Welford's and the two-pass' values against the exact ones
    big = np.maximum(np.maximum.reduce(xd, 0), -np.minimum.reduce(xd, 0)).astype(np.float64)
    # m2: every added term is >= 0, so its rounding errors stay within (n + 3)u of m2; the running means' errors
    # enter at second order in practice (bounded here by n u M^2, M = max |x|)
    b_m2 = 16.0 * n * _U * (m2 + big * big)
    ok = _same_rounding(_project(np.maximum(m2 - b_m2, 0), dof, take_sqrt), _project(m2 + b_m2, dof, take_sqrt), dt)
    if with_mean:
        b_mean = 12.0 * n * _U * big
        ok &= _same_rounding(mean - b_mean, mean + b_mean, dt)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        w = _walk(d, ax)[:, bad] if kept else _walk(d, ax)
        emean, em2 = (_welford_columns if len(bad) <= 8 else _welford_steps)(w.astype(np.float64))
        res[bad] = _project(em2, dof, take_sqrt)
        mean[bad] = emean
    return res.astype(dt), (mean.astype(dt) if with_mean else None)


def var_all(d, correction, take_sqrt):
    """std_var_all_cpu for float32/float64 d: the result as a Python float (double)."""
    n = d.size
    s = _sum_order.torch_sum(d, set(range(d.ndim)))
    mean = float(np.divide(s, d.dtype.type(n), dtype=d.dtype)) if s is not None else float(np.mean(d))
    lay = _sum_order._layout(d.shape, d.strides, set(range(d.ndim)))
    if not lay:   # no layout (or a single element)
        flat, inner = np.ravel(d, order="K"), n
    else:
        flat = np.lib.stride_tricks.as_strided(d, tuple(m for m, _, _ in reversed(lay)),
                                               tuple(st for _, st, _ in reversed(lay)), writeable=False).reshape(-1)
        inner = lay[0][0] * (lay[1][0] if len(lay) > 1 else 1)
    dx = flat.astype(np.float64)
    dx -= mean
    dof = max(0.0, n - correction)

    def finish(total):
        var = total / dof if dof else (math.nan if total == 0 or math.isnan(total) else math.inf)
        return math.sqrt(var) if take_sqrt else var

    if d.dtype == np.float32:
        total = float(np.dot(dx, dx))   # another order: each total is within (n - 1)u of the exact sum of squares
        b = 2.0 * n * _U * abs(total)
        if math.isfinite(total) and np.float32(finish(max(total - b, 0.0))) == np.float32(finish(total + b)):
            return finish(total)
    sq = (dx * dx).reshape(-1, inner)
    chunks = np.add.accumulate(sq, 1)[:, -1] if sq.shape[1] > 1 else sq[:, 0]
    return finish(float(np.add.accumulate(chunks)[-1]) if len(chunks) > 1 else float(chunks[0]))
