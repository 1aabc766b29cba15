"""unsqueeze / squeeze and their in-place variants (in-place view ops change self's shape)."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _wrap_dim
from ..inplace import ViewOp, _inplace_view, _view
from ..registry import add_inplace, register
from ._util import _dimlist

class UnsqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        shp = a._data.shape
        return a._data.reshape(shp[:dim] + (1,) + shp[dim:])

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(ctx.dim)

    @staticmethod
    def backward_np(ctx, g):
        return g.squeeze(ctx.dim)


@register(category="shape", methods=("unsqueeze",), kind="view")
def unsqueeze(input, dim):
    """Insert a size-1 dim at `dim` (negative dims count from ndim + 1)."""
    return _view(UnsqueezeBackward0, input, _wrap_dim(dim, input._data.ndim + 1))


class SqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        ctx.in_shape = a._data.shape
        return a._data.squeeze(axis=dims) if dims else a._data.view()

    @staticmethod
    def backward(ctx, g):
        for d in ctx.dims:
            g = g.unsqueeze(d)
        return g

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


def _squeeze_dims(input, dim):
    nd = input._data.ndim
    shp = input._data.shape
    if dim is None:
        return tuple(i for i, s in enumerate(shp) if s == 1)
    ds = _dimlist(dim, "dim")
    return tuple(d for d in sorted({_wrap_dim(d, nd) for d in ds}) if nd and shp[d] == 1)


@register(category="shape", methods=("squeeze",), kind="view")
def squeeze(input, dim=None):
    """Remove size-1 dims (all, or only those in dim; a non-1 dim is left alone)."""
    dims = _squeeze_dims(input, dim)
    cls = SqueezeBackward0 if dim is None else (
        SqueezeBackward1 if isinstance(dim, (int, np.integer, Tensor)) else SqueezeBackward2)
    return _view(cls, input, dims)


class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


class SqueezeBackward3(SqueezeBackward0):
    pass


class SqueezeBackward4(SqueezeBackward0):
    pass


class SqueezeBackward5(SqueezeBackward0):
    pass


def unsqueeze_(self, dim):
    """In-place unsqueeze: self's shape gains a size-1 dim."""
    return _inplace_view(self, UnsqueezeBackward1, _wrap_dim(dim, self._data.ndim + 1))


def squeeze_(self, dim=None):
    """In-place squeeze: self's size-1 dims (or those in dim) are removed."""
    dims = _squeeze_dims(self, dim)
    cls = SqueezeBackward3 if dim is None else (
        SqueezeBackward4 if isinstance(dim, (int, np.integer, Tensor)) else SqueezeBackward5)
    return _inplace_view(self, cls, dims)


add_inplace("unsqueeze", "unsqueeze_", unsqueeze_)
add_inplace("squeeze", "squeeze_", squeeze_)
