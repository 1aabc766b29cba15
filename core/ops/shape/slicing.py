"""narrow and select: one slice along a dim, as a view (with their double-backward ops)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..inplace import ViewOp, _view
from ..registry import register
from ._util import _int, _shape_str

class SliceBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, start, end):
        ctx.dim, ctx.start, ctx.end, ctx.in_shape = dim, start, end, a._data.shape
        return a._data[(slice(None),) * dim + (slice(start, end),)]

    @staticmethod
    def backward(ctx, g):
        return SliceBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.start, ctx.end)

    @staticmethod
    def backward_np(ctx, g):
        out = np.zeros(ctx.in_shape, dtype=g.dtype)
        out[(slice(None),) * ctx.dim + (slice(ctx.start, ctx.end),)] = g
        return out


class SliceBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, start, end):
        ctx.dim, ctx.start, ctx.end = dim, start, end
        out = np.zeros(shape, dtype=g._data.dtype)
        out[(slice(None),) * dim + (slice(start, end),)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(SliceBackward0, gg, ctx.dim, ctx.start, ctx.end)


@register(category="shape", methods=("narrow",), kind="view")
def narrow(input, dim, start, length):
    """Elements start..start+length-1 along dim (a view)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in "iu"):
        raise RuntimeError("start must be an 0-dim integral Tensor.")   # narrow.Tensor's check
    start, length = _int(start, "start"), _int(length, "length")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _view(SliceBackward0, input, d, start, start + length)


class SelectBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.dim, ctx.index, ctx.in_shape = dim, index, a._data.shape
        return a._data[(slice(None),) * dim + (index,)]

    @staticmethod
    def backward(ctx, g):
        return SelectBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.index)

    @staticmethod
    def backward_np(ctx, g):
        out = np.zeros(ctx.in_shape, dtype=g.dtype)
        out[(slice(None),) * ctx.dim + (ctx.index,)] = g
        return out


class SelectBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, index):
        ctx.dim, ctx.index = dim, index
        out = np.zeros(shape, dtype=g._data.dtype)
        out[(slice(None),) * dim + (index,)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(SelectBackward0, gg, ctx.dim, ctx.index)


@register(category="shape", methods=("select",), kind="view")
def select(input, dim, index):
    """The slice at `index` along dim, with that dim removed (a view)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    index = _int(index, "index")
    size = input._data.shape[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_shape_str(input._data.shape)} at dimension {dim}")
    if index < 0:
        index += size
    return _view(SelectBackward0, input, d, index)
