"""select_scatter, slice_scatter and diagonal_scatter: a copy of input with src written into the region a
view op (select / slice / diagonal) picks, as PyTorch's `clone()` then `view.copy_(src)` (src is cast to
input's dtype; the copy keeps input's strides)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..registry import register
from ._common import _lst
from .tri_diag import _diag_dims, _diag_view


def _src_tensor(name, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")


def _check_region(region_shape, src):
    if tuple(region_shape) != src._data.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_lst(src._data.shape)}, slice size = {_lst(region_shape)}")


class _RegionScatter(Op):
    """out = input.clone(); region(out) = src. `region(array)` returns the writable view; backward: input's
    gradient is grad with the region zeroed, src's is the region of grad."""

    contiguous_output = False

    @staticmethod
    def forward(ctx, a, src, *, region, grad_region, scatter):
        ctx.grad_region, ctx.scatter, ctx.src_shape = grad_region, scatter, src._data.shape
        out = a._data.copy(order="K")
        view = region(out)
        if view.size:
            np.copyto(view, src._data, casting="unsafe")
        return out

    @staticmethod
    def backward(ctx, g):
        gs = ctx.grad_region(g) if ctx.needs_input_grad[1] else None
        return ctx.scatter(g, Tensor._make(np.zeros(ctx.src_shape, g._data.dtype))), gs


class SelectScatterBackward0(_RegionScatter):
    pass


class SliceScatterBackward0(_RegionScatter):
    pass


class DiagonalScatterBackward0(_RegionScatter):
    pass


@register(category="indexing", methods=("select_scatter",), kind="scatter")
def select_scatter(input, src, dim, index):
    """Copy of input with src written into input.select(dim, index) (src has that slice's shape)."""
    _src_tensor("select_scatter", src)
    a = input._data
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d]
    i = int(index)
    if i < -size or i >= size:
        raise IndexError(f"select(): index {i} out of range for tensor of size {_lst(a.shape)} at dimension {d}")
    key = (slice(None),) * d + (i + size if i < 0 else i, Ellipsis)   # Ellipsis: a 0-d view, not a scalar
    _check_region(a.shape[:d] + a.shape[d + 1:], src)
    return SelectScatterBackward0.apply(input, src, region=lambda x: x[key], grad_region=lambda g: g.select(d, i),
                                        scatter=lambda g, z: select_scatter(g, z, d, i))


@register(category="indexing", methods=("slice_scatter",), kind="scatter")
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """Copy of input with src written into input[start:end:step] along dim (bounds clamped like slicing)."""
    _src_tensor("slice_scatter", src)
    a = input._data
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    step = int(step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    bounds = slice(None if start is None else int(start), None if end is None else int(end), step)
    lo, hi, _ = bounds.indices(a.shape[d])   # PyTorch clamps start/end like Python slicing
    hi = max(hi, lo)
    key = (slice(None),) * d + (slice(lo, hi, step),)
    _check_region(a.shape[:d] + (len(range(lo, hi, step)),) + a.shape[d + 1:], src)
    return SliceScatterBackward0.apply(input, src, region=lambda x: x[key], grad_region=lambda g: g[key],
                                       scatter=lambda g, z: slice_scatter(g, z, d, lo, hi, step))


@register(category="indexing", methods=("diagonal_scatter",), kind="scatter")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """Copy of input with src written into input.diagonal(offset, dim1, dim2) (src has that diagonal's shape:
    the other dims first, the diagonal last)."""
    _src_tensor("diagonal_scatter", src)
    a = input._data
    d1, d2 = _diag_dims(a.ndim, dim1, dim2)
    offset = int(offset)
    _check_region(_diag_view(a, offset, d1, d2).shape, src)
    return DiagonalScatterBackward0.apply(
        input, src, region=lambda x: _diag_view(x, offset, d1, d2),
        grad_region=lambda g: g.diagonal(offset, d1, d2), scatter=lambda g, z: diagonal_scatter(g, z, offset, d1, d2))
