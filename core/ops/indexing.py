"""Indexing and data-movement ops (minimal bootstrap; see the indexing issue for the full set)."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..tensor import Tensor
from .registry import register


def _scatter_into_zeros(g, dim, index, shape):
    """zeros(shape).scatter_add(dim, index, g) as a differentiable op (gather's backward)."""
    return ScatterAddIntoZeros.apply(g, dim, index, shape)


class ScatterAddIntoZeros(Op):
    @staticmethod
    def forward(ctx, g, dim, index, shape):
        ctx.dim, ctx.index = dim, index
        out = np.zeros(shape, dtype=g._data.dtype)
        idx = index._data
        grids = list(np.indices(idx.shape, sparse=True))
        grids[dim] = idx
        np.add.at(out, tuple(grids), g._data[tuple(slice(0, s) for s in idx.shape)])
        return out

    @staticmethod
    def backward(ctx, gg):
        return gg.gather(ctx.dim, ctx.index)


def _np_index(idx):
    if isinstance(idx, Tensor):
        return idx._data
    if isinstance(idx, tuple):
        return tuple(_np_index(i) for i in idx)
    if isinstance(idx, list):
        return np.asarray([_np_index(i) for i in idx]) if idx and isinstance(idx[0], Tensor) else idx
    return idx


class IndexBackward0(Op):
    @staticmethod
    def forward(ctx, a, idx):
        ctx.shape, ctx.idx = a._data.shape, idx
        r = a._data[idx]
        return r if isinstance(r, np.ndarray) else np.asarray(r)

    @staticmethod
    def backward(ctx, g):
        return IndexPutIntoZeros.apply(g, ctx.idx, ctx.shape)


class IndexPutIntoZeros(Op):
    @staticmethod
    def forward(ctx, g, idx, shape):
        ctx.idx = idx
        out = np.zeros(shape, dtype=g._data.dtype)
        np.add.at(out, idx, g._data)
        return out

    @staticmethod
    def backward(ctx, gg):
        return IndexBackward0.apply(gg, ctx.idx)


def _getitem(self, idx):
    return IndexBackward0.apply(self, _np_index(idx))


Tensor.__getitem__ = _getitem


class GatherBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.save_for_backward(index)
        ctx.dim, ctx.shape = dim, a._data.shape
        return np.take_along_axis(a._data, index._data, dim)

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return _scatter_into_zeros(g, ctx.dim, index, ctx.shape)


@register(category="indexing", methods=("gather",), kind="gather")
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """out[i][j] = input[i][index[i][j]] along dim."""
    return GatherBackward0.apply(input, dim, index)
