"""Counting and statistics: bincount, histc (not differentiable, as in PyTorch), and cov / corrcoef,
composed from core ops exactly as ATen's Correlation.cpp composes them (so gradients and grad_fn
names follow: cov ends in SqueezeBackward0, corrcoef in ClampBackward1)."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...tensor import Tensor
from ..pointwise import _long, _out
from ..registry import register


@register(category="reduction", methods=("bincount",))
def bincount(input, weights=None, minlength=0):
    """Count of each value in a 1-D non-negative integer tensor (summed weights if given)."""
    d = input._data
    if d.dtype.kind == "b" or d.dtype.kind == "f":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_long(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if d.ndim != 1 or (d.size and d.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.shape[0] != d.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = max(int(d.max()) + 1 if d.size else 0, minlength)
    if weights is None:
        return Tensor._make(np.bincount(d, minlength=size).astype(np.int64))
    wd = np.float32 if weights._data.dtype == np.float32 else np.float64
    return Tensor._make(np.bincount(d, weights=weights._data.astype(np.float64), minlength=size).astype(wd))


def _linspace(lo, hi, steps, npdt):
    """torch.linspace's formula (from both ends toward the middle), in the tensor's dtype."""
    lo, hi = npdt.type(lo), npdt.type(hi)
    step = (hi - lo) / npdt.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, lo + step * i.astype(npdt), hi - step * (steps - 1 - i).astype(npdt)).astype(npdt)


@register(category="reduction", methods=("histc",))
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram with `bins` equal-width bins over [min, max] (the data's range when both are 0)."""
    d = input._data
    if d.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_long(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = d.dtype.type(min), d.dtype.type(max)
    if lo == hi and d.size:
        lo, hi = d.min(), d.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = _linspace(lo, hi, bins + 1, d.dtype)
    lo, hi = edges[0], edges[-1]
    x = d.reshape(-1)
    x = x[(x >= lo) & (x <= hi)]
    # histogramdd's linear kernel without local search (histc), in the input's dtype
    pos = np.minimum(((x - lo) * d.dtype.type(bins) / (hi - lo)).astype(np.int64), bins - 1)
    return _out(Tensor._make(np.bincount(np.clip(pos, 0, bins - 1), minlength=bins).astype(d.dtype)), out)


def _cov_weights(input, fweights, aweights, n):
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.dtype.is_floating_point or fweights.dtype.name == "bool":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_long(fweights.dtype)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n}")
        if (fweights._data < 0).any():
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_long(aweights.dtype)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n}")
        if (aweights._data < 0).any():
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    return w


@register(category="reduction", methods=("cov",))
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of input (observations in columns)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype.name == "bool":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = _cov_weights(input, fweights, aweights, n)
    w_sum = w.sum() if w is not None else Tensor._make(np.asarray(n, dtype=np.int64))
    if w is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum if aweights is not None else w_sum - correction
    else:
        norm = w_sum - correction
    if bool((norm <= 0).item()):
        warn_aten("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                  "observations.", "aten/src/ATen/native/Correlation.cpp:129")
        norm = norm * 0
    avg = (x * w if w is not None else x).sum(1) / w_sum
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t())
    return (c / norm).squeeze()


@register(category="reduction", methods=("corrcoef",))
def corrcoef(input):
    """Pearson correlation coefficients of the rows of input, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)
