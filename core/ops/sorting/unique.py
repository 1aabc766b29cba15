"""unique and unique_consecutive (flat or along dim), with inverse indices and counts; not differentiable
(PyTorch's nodes raise on backward)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..registry import register
from ._rows import _contig, _sort_indices, _sort_np
from ._stl import _std_sort


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
