"""Triangles and diagonals: triu / tril (+ in-place), triu_indices / tril_indices, diagonal (a view),
diag, diag_embed, Tensor.fill_diagonal_."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...dtypes import SCALAR_NAMES as _SCALAR_NAME
from ...tensor import Tensor, _wrap_dim
from ..registry import method, register
from ._common import _check_alloc, _out_arg


def _tri_indices(name, row, col, offset, dtype, upper):
    for nm, v in (("row", row), ("col", col)):
        if int(v) < 0:
            raise RuntimeError(f"{nm} must be non-negative, got{int(v)}")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    if dt not in (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_SCALAR_NAME[dt.name]}'")
    fn = np.triu_indices if upper else np.tril_indices
    r, c = fn(int(row), int(offset), int(col))
    return Tensor._make(np.stack([r, c]).astype(dt.np).reshape(2, -1))


@register(category="indexing")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """2 x N int64 tensor of the (row, col) coordinates of the upper triangle (j - i >= offset), row-major."""
    return _tri_indices("triu_indices", row, col, offset, dtype, True)


@register(category="indexing")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """2 x N int64 tensor of the (row, col) coordinates of the lower triangle (j - i <= offset), row-major."""
    return _tri_indices("tril_indices", row, col, offset, dtype, False)


class TriuBackward0(Op):
    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return np.triu(a._data, diagonal)

    @staticmethod
    def backward(ctx, g):
        return triu(g, ctx.diagonal)


class TrilBackward0(Op):
    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return np.tril(a._data, diagonal)

    @staticmethod
    def backward(ctx, g):
        return tril(g, ctx.diagonal)


@register(category="indexing", methods=("triu",), inplace="triu_", kind="gather")
def triu(input, diagonal=0, *, out=None):
    """Upper triangle of the last two dims (elements with j - i >= diagonal), zeros elsewhere."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _out_arg(TriuBackward0.apply(input, int(diagonal)), out, "triu")


@register(category="indexing", methods=("tril",), inplace="tril_", kind="gather")
def tril(input, diagonal=0, *, out=None):
    """Lower triangle of the last two dims (elements with j - i <= diagonal), zeros elsewhere."""
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _out_arg(TrilBackward0.apply(input, int(diagonal)), out, "tril")


def _diag_dims(nd, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_view(arr, offset, d1, d2):
    """Writable NumPy view of the diagonal (like torch.diagonal: remaining dims first, diagonal last)."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = [0] * arr.ndim
        start[d2] = min(offset, n2)
    else:
        length = max(0, min(n1 + offset, n2))
        start = [0] * arr.ndim
        start[d1] = min(-offset, n1)
    sub = arr[tuple(slice(s, None) for s in start)]
    other = [d for d in range(arr.ndim) if d not in (d1, d2)]
    shape = [arr.shape[d] for d in other] + [length]
    strides = [sub.strides[d] for d in other] + [sub.strides[d1] + sub.strides[d2]]
    if length == 0 or any(s == 0 for s in shape):
        return np.empty(shape, arr.dtype)
    return np.lib.stride_tricks.as_strided(sub, shape=shape, strides=strides, writeable=arr.flags.writeable)


class DiagonalBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (a._data.shape, offset, d1, d2)
        return _diag_view(a._data, offset, d1, d2)

    @staticmethod
    def backward(ctx, g):
        shape, offset, d1, d2 = ctx.args
        return _DiagonalIntoZeros.apply(g, shape=shape, offset=offset, d1=d1, d2=d2)


class _DiagonalIntoZeros(Op):
    def name(self):
        return "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, g, *, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = np.zeros(shape, g._data.dtype)
        _diag_view(out, offset, d1, d2)[...] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        offset, d1, d2 = ctx.args
        return diagonal(gg, offset, d1, d2)


@register(category="indexing", methods=("diagonal",), kind="gather")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """View of the diagonals of the (dim1, dim2) planes; the diagonal becomes the last dim.

    offset > 0 is above the main diagonal, offset < 0 below."""
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    return DiagonalBackward0.apply(input, int(offset), d1, d2)


class DiagonalBackward0_copy(Op):  # noqa: N801 - PyTorch's node name for diag() of a matrix
    @staticmethod
    def forward(ctx, a, offset):
        ctx.args = (a._data.shape, offset)
        return _diag_view(a._data, offset, 0, 1).copy()

    @staticmethod
    def backward(ctx, g):
        shape, offset = ctx.args
        return _DiagonalIntoZeros.apply(g, shape=shape, offset=offset, d1=0, d2=1)


class DiagEmbedBackward0(Op):
    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        x = a._data
        n = (x.shape[-1] if x.ndim else 1) + abs(offset)
        other = list(x.shape[:-1])
        shape = []
        it = iter(other)
        for d in range(len(other) + 2):
            shape.append(n if d in (d1, d2) else next(it))
        _check_alloc(shape, _dt._FROM_NP[x.dtype])
        out = np.zeros(shape, x.dtype)
        _diag_view(out, offset, d1, d2)[...] = x
        return out

    @staticmethod
    def backward(ctx, g):
        offset, d1, d2 = ctx.args
        return diagonal(g, offset, d1, d2)


@register(category="indexing", methods=("diag_embed",), kind="scatter")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensor whose (dim1, dim2) diagonals (at offset) are the last dim of input; zeros elsewhere."""
    nd = input._data.ndim + 1
    d1, d2 = _diag_dims(nd, dim1, dim2)
    return DiagEmbedBackward0.apply(input, int(offset), d1, d2)


@register(category="indexing", methods=("diag",))
def diag(input, diagonal=0, *, out=None):
    """1-D input: square matrix with input on the given diagonal; 2-D input: that diagonal as a 1-D copy."""
    nd = input._data.ndim
    if nd == 1:
        return _out_arg(DiagEmbedBackward0.apply(input, int(diagonal), 0, 1), out)
    if nd == 2:
        return _out_arg(DiagonalBackward0_copy.apply(input, int(diagonal)), out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")





@method("fill_diagonal_")
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal, or a tall 2-D matrix; `wrap` restarts it every width + 1 rows)
    in place, through as_strided views as ATen does (so autograd records CopySlices)."""
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self.shape[0], self.shape[1]
    if nd > 2 and any(s != height for s in self.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset = self.storage_offset()
    size, stride = min(height, width), sum(self.stride())
    self.as_strided((size,), (stride,), offset).fill_(fill_value)
    if wrap and nd == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        self.as_strided((wrap_size,), (stride,), offset + self.stride(0) * step).fill_(fill_value)
    return self
