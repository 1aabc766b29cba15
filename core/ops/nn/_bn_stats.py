"""batch_norm's training statistics and output as ATen's CPU kernels compute them (batch_norm_kernel.cpp), for
float32 / float64 inputs laid out C-contiguously or channels last:

- image size > 1 (batch_norm_cpu_collect_stats_contiguous_impl): per channel, sum in at::acc_type (double)
  over (n, i) in order, mean = (T)(sum / N); var_sum = sum in double of (T)((x - mean) * (x - mean)) (float64
  with an odd image size: the last step of each image row fused, fma(x - mean, x - mean, var_sum));
- image size 1, e.g. (N, C), or channels-last input on its (N * H * W, C) rows (the channels-last impl): per channel a T buffer adds the rows in order, mean =
  (T)((double)sum / N); var_sum: buffer = fma(x - mean, x - mean, buffer) row by row (the vectorised
  y + (x - mean) * (x - mean), contracted), in T;
then invstd = (T)(1 / sqrt((double)(var_sum / N) + eps)) with var_sum / N in T, alpha = invstd * weight,
beta = fma(-mean, alpha, bias), out = fma(x, alpha, beta) (weight, bias and running statistics contiguous too).
Other layouts: the fallback of batch_norm_cpu_update_stats_template and _transform_input_template (below).
"""
from __future__ import annotations

import numpy as np

from ... import _sum_order
from ..pointwise import _fma
from ..reduce import _rowwise_moments

_F64 = np.float64


def _rows_fold(a):
    """Sum over axis 0 of (N, C) adding whole rows in order (NumPy reduces a non-inner axis row by row; along its
    inner loop it would sum pairwise, so the rows are made contiguous first)."""
    if a.shape[0] == 1:
        return a[0].copy()
    if a.shape[1] > 1:
        return np.add.reduce(np.ascontiguousarray(a), 0)
    return np.add.accumulate(a, 0)[-1]


def _fma_rows(p, q, dt):
    """buf = fma(p[k], q[k], buf) for k in order, in dtype dt. float32: each row the float64 sum of buf and the exact
    product, stored (rounded) into the next float32 row of a table of the buffers; the float64 sums are
    then formed again at once, and if any sits on a float32 midpoint (double rounding may then differ from one
    rounding) the rows run again through _fma.fma."""
    if dt == np.float32:
        prods = p.astype(_F64)
        prods *= q
        bufs = np.zeros((p.shape[0] + 1, p.shape[1]), dt)
        for k in range(p.shape[0]):
            bufs[k + 1] = bufs[k] + prods[k]
        prods += bufs[:-1]
        low = np.bitwise_and(prods.view(np.uint64), _fma._LOW29)
        if not (low == _fma._MID).any():
            return bufs[-1].copy()
    elif p.shape[0] > 1 and (buf := _rowwise_moments._fma_rows64(p, q)) is not None:
        return buf
    buf = np.zeros(p.shape[1], dt)
    for k in range(p.shape[0]):
        buf = _fma.fma(p[k], q[k], buf, dt)
    return buf


def train_stats(x, eps):
    """(mean, invstd) per channel in x's dtype, as ATen's training batch_norm; None when not modelled."""
    r = train_moments(x, eps)
    return None if r is None else r[:2]


def _channels_last(x):
    return x.ndim in (4, 5) and np.moveaxis(x, 1, -1).flags.c_contiguous


def channels_last_only(x):
    """Laid out channels last (4-D / 5-D) and not C-contiguous: ATen runs its channels-last kernels on the
    (N * H * W, C) rows."""
    return not x.flags.c_contiguous and _channels_last(x)


def like_input(a, x):
    """a in the layout ATen gives batch_norm's output and grad_input (empty_like(input, suggest_memory_format())):
    channels last for channels-last input, C-contiguous otherwise."""
    if not channels_last_only(x):
        return np.ascontiguousarray(a)
    return a if channels_last_only(a) else np.moveaxis(np.ascontiguousarray(np.moveaxis(a, 1, -1)), -1, 1)


def train_moments(x, eps):
    """(mean, invstd, var_sum in float64, contiguous) per channel, as ATen's training batch_norm; None when not
    modelled (other dtypes, empty input). Channels-last input runs the image-size-1 kernel on its (N * H * W, C)
    rows. Input that is neither C-contiguous nor channels last takes batch_norm_cpu_update_stats_template's fallback: mean = at::mean (torch's float sum / N),
    var_sum = the float64 squares (x - mean)^2 added in order (not contracted) along the iterator's order
    (the other dims, largest stride outermost); invstd = 1 / sqrt(var_sum / N + eps) in double."""
    dt = x.dtype
    if dt not in (np.float32, np.float64) or x.ndim < 2 or not x.size:
        return None
    cl = channels_last_only(x)
    if not x.flags.c_contiguous and not cl:
        return _strided_moments(x, eps)
    c = x.shape[1]
    n = x.size // c
    image = x.size // (x.shape[0] * c)
    if image > 1 and not cl:
        rows = x.reshape(x.shape[0], c, image).transpose(0, 2, 1).reshape(-1, c)   # (n, i) order per channel
        s = _rows_fold(rows.astype(_F64))
        mean = (s / n).astype(dt)
        d = rows - mean
        if dt == np.float64 and image % 2:
            var_sum = _odd_image_squares(d, x.shape[0], image)
        else:
            var_sum = _rows_fold((d * d).astype(_F64)).astype(dt)
    else:
        rows = np.moveaxis(x, 1, -1).reshape(-1, c) if cl else x.reshape(-1, c)
        s = _rows_fold(rows)
        mean = (s.astype(_F64) / n).astype(dt)
        d = rows - mean
        var_sum = _fma_rows(d, d, dt)
    var = var_sum / dt.type(n)
    invstd = (1.0 / np.sqrt(var.astype(_F64) + eps)).astype(dt)
    return mean, invstd, var_sum.astype(_F64), True


def _odd_image_squares(d, n, image):
    """float64 var_sum over rows d in (n, i) order for an odd image size: GCC's build pairs the loop over i two
    by two (products rounded, added in order) and contracts the last, odd element's step: fma(d, d, acc)."""
    c = d.shape[1]
    blocks = d.reshape(n, image, c)
    buf = np.empty((image, c))
    acc = np.zeros(c)
    for k in range(n):
        buf[0] = acc
        np.multiply(blocks[k, :-1], blocks[k, :-1], out=buf[1:])
        acc = _fma.fma(blocks[k, -1], blocks[k, -1], _rows_fold(buf), np.float64)
    return acc


def _strided_moments(x, eps):
    dt = x.dtype
    c = x.shape[1]
    n = x.size // c
    s = _sum_order.torch_sum(x, {0} | set(range(2, x.ndim)))
    if s is None:
        return None
    mean = (np.asarray(s, dt).reshape(c) / dt.type(n)).astype(dt)
    dims = sorted((d for d in range(x.ndim) if d != 1), key=lambda d: -x.strides[d])
    d = x.transpose(dims + [1]).reshape(n, c).astype(_F64) - mean.astype(_F64)
    var_sum = _rows_fold(d * d)
    invstd = (1.0 / np.sqrt(var_sum / n + eps)).astype(dt)
    return mean, invstd, var_sum, False


def running_update(rm, rv, mean, var_sum, n, momentum, contiguous):
    """The running statistics in place, as torch's build computes them (measured): in double, stored in their
    dtype, rm = momentum * mean + (1 - momentum) * rm and rv the same with var_sum / (n - 1), without
    contraction; a C-contiguous float32 input keeps them in float, rv's first product fused."""
    m = float(momentum)
    dt = mean.dtype
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if contiguous and dt == np.float32:
            mf, m1 = dt.type(m), dt.type(1 - m)
            if rm is not None:
                rm[...] = mf * mean + m1 * rm.astype(dt)
            if rv is not None:
                unbiased = var_sum.astype(dt) / dt.type(n - 1) if n > 1 else np.full_like(mean, np.nan)
                rv[...] = _fma.fma(mf, unbiased, m1 * rv.astype(dt), dt)
            return
        if rm is not None:
            rm[...] = m * mean.astype(_F64) + (1 - m) * rm.astype(_F64)
        if rv is not None:
            unbiased = var_sum / (n - 1) if n > 1 else np.full_like(var_sum, np.nan)
            rv[...] = m * unbiased + (1 - m) * rv.astype(_F64)


def transform_strided(x, mean, invstd, weight, bias):
    """The fallback's cpu_kernel: ((x - mean) * invstd) * w + b, each step rounded (measured: not contracted)."""
    dt = x.dtype
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    t = (x - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:      # absent: ATen's scalar 1 and 0 (so a -0.0 still becomes +0.0)
        t *= weight.astype(dt, copy=False).reshape(shape)
    t += dt.type(0) if bias is None else bias.astype(dt, copy=False).reshape(shape)
    return t


def transform(x, mean, invstd, weight, bias):
    """out = fma(x, alpha, beta), alpha = invstd * weight, beta = fma(-mean, alpha, bias) (per channel)."""
    dt = x.dtype
    alpha = invstd if weight is None else invstd * weight.astype(dt, copy=False)
    beta = _fma.fma(-mean, alpha, dt.type(0) if bias is None else bias.astype(dt, copy=False), dt)   # contracted
    if channels_last_only(x):      # computed on the rows, returned in x's layout (empty_like(suggest_memory_format))
        rows = np.moveaxis(x, 1, -1)
        return np.moveaxis(_fma.fma(rows.reshape(-1, x.shape[1]), alpha, beta, dt).reshape(rows.shape), -1, 1)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return _fma.fma(x, alpha.reshape(shape), beta.reshape(shape), dt)


def eval_output(x, running_mean, running_var, weight, bias, eps):
    """Evaluation mode. Input, weight, bias and running statistics all C-contiguous (ATen's contiguous kernels,
    batch_norm_cpu_collect_linear_and_constant_terms): invstd = 1 / sqrt(running_var + (T)eps) in T, then
    transform's alpha, beta and fma: bit for bit. Otherwise batch_norm_cpu_transform_input_template's fallback:
    invstd = 1 / at::sqrt(running_var + eps) in T, then transform_strided; torch's vectorised sqrt is not IEEE's
    on every lane (~19% of float32 values, ~1% of float64, measured), so that path matches only where it rounds
    as IEEE's does. Channels-last input counts as contiguous (its own kernel, the same formula). None for other
    dtypes."""
    dt = x.dtype
    if dt not in (np.float32, np.float64) or x.ndim < 2 or not x.size:
        return None
    params = (running_mean, running_var, weight, bias)
    if any(t is not None and t.dtype != dt for t in params):
        return None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        invstd = dt.type(1) / np.sqrt(running_var + dt.type(eps))
        if (x.flags.c_contiguous or channels_last_only(x)) and all(t is None or t.flags.c_contiguous for t in params):
            return transform(x, running_mean, invstd, weight, bias)
        return transform_strided(x, running_mean, invstd, weight, bias)
