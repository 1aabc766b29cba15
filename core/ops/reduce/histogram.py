"""torch.histogram and torch.histogramdd (no gradient, as torch): bin edges from linspace over the data's
(or range's) [min, max] in the input dtype (an empty or zero-width range widened as torch does), or given
edge tensors; each element goes to the bin whose edges bracket it (the last bin closed on the right),
elements outside the range and NaN are skipped; optional weights; density divides by the total and by
each bin's width."""
from __future__ import annotations

import numbers

import numpy as np

from ...creation import _linspace_np
from ...return_types import _make
from ...tensor import Tensor
from ..pointwise._common import _long
from ..registry import register

histogram_t = _make("histogram", ("hist", "bin_edges"))
histogramdd_t = _make("histogramdd", ("hist", "bin_edges"))
_NAMES = {"float32": "float", "float64": "double"}


def _outer_edges(data, d, rng):
    """select_outer_bin_edges for dimension d: (leftmost, rightmost) as doubles."""
    if rng is not None:
        lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
    elif data.shape[0] > 0:
        lo, hi = float(data[:, d].min()), float(data[:, d].max())
    else:
        lo, hi = 0.0, 1.0
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(lo)}, {_g(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_g(lo)} max {_g(hi)} for "
                           f"dimension {d}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _g(v):
    return f"{v:g}"


def _edges(data, bins, rng, dt):
    """One edge array per dimension, from bin counts (ints) or edge tensors."""
    out = []
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b.dtype != dt:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input with dtype {_NAMES.get(dt.name, dt.name)} and bins for dimension "
                                   f"{d} with dtype {_NAMES.get(b.dtype.name, b.dtype.name)}")
            if b.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.dim()} "
                                   f"dimensions in the bins tensor for dimension {d}")
            if b.numel() == 0:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got "
                                   f"{b.numel()} elements in the bins tensor for dimension {d}")
            out.append(b._data.copy())
            continue
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}")
        lo, hi = _outer_edges(data, d, rng)
        out.append(_linspace_np(lo, hi, int(b) + 1, dt))
    return out


def _count(data, edges, weight, density, dt):
    """The histogram of the (N, D) data over the edge arrays."""
    n, D = data.shape
    keep = np.ones(n, dtype=bool)
    index = []
    for d in range(D):
        e, col = edges[d], data[:, d]
        keep &= (col >= e[0]) & (col <= e[-1])
        pos = np.searchsorted(e, np.where(keep, col, e[0]), side="right") - 1
        index.append(np.minimum(pos, len(e) - 2))
    hist = np.zeros(tuple(len(e) - 1 for e in edges), dtype=dt.np)
    w = np.ones(n, dtype=dt.np) if weight is None else weight
    if D and keep.any():
        np.add.at(hist, tuple(i[keep] for i in index), w[keep])
    if density:
        hist = hist / hist.sum(dtype=dt.np)
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = len(e) - 1
            hist = hist / np.diff(e).reshape(shape)
    return hist.astype(dt.np, copy=False)


def _check_input(input, weight, name="histogramdd"):
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_long(input.dtype)}'")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               "the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({input.dtype}), and weight"
                               f"({weight.dtype})")


def _run(input, bins, rng, weight, density, name):
    _check_input(input, weight, name)
    D = input.shape[-1]
    dt = input.dtype
    if rng is not None and len(rng) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} "
                           f"elements, but got {len(rng)}")
    if len(bins) != D:
        raise RuntimeError(f"torch.histogramdd: expected {D} sequences of bin edges for each of the {D} "
                           f"dimensions of the input, but got {len(bins)}")
    data = input._data.reshape(-1, D)
    w = None if weight is None else weight._data.reshape(-1)
    edges = _edges(data, bins, rng, dt)
    hist = _count(data, edges, w, density, dt)
    return Tensor._make(hist), [Tensor._make(e) for e in edges]


@register(category="reduction", methods=("histogram",))
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram of input's values (flattened): bins equal-width bins over range (default [min, max]) or the
    given edge tensor; returns (hist, bin_edges)."""
    b = [bins] if isinstance(bins, (Tensor, numbers.Integral)) else bins
    w = None if weight is None else weight.reshape(-1)
    hist, edges = _run(input.reshape(-1, 1), b, range, w, density, "histogramdd")
    return histogram_t(hist, edges[0])


@register(category="reduction")
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """D-dimensional histogram of the rows of input (..., D): bins an int, a list of D ints or D edge
    tensors; returns (hist, bin_edges) with a tuple of D edge tensors."""
    D = input.shape[-1] if input.dim() else 0
    b = [bins] * D if isinstance(bins, numbers.Integral) else list(bins)
    hist, edges = _run(input, b, range, weight, density, "histogramdd")
    return histogramdd_t(hist, tuple(edges))
