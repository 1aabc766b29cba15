"""Reordering copies: flip (fliplr, flipud) and roll."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import _wrap_dim
from ..registry import register
from ._util import _dimlist

class FlipBackward0(Op):
    contiguous_output = False   # like an elementwise op, flip keeps a dense input's layout

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.flip(a._data, dims).copy(order="K") if dims else a._data.copy(order="K")

    @staticmethod
    def backward(ctx, g):
        return g.flip(ctx.dims)

    @staticmethod
    def backward_np(ctx, g):
        return np.flip(g, ctx.dims) if ctx.dims else g


def _flip(input, dims):
    nd = input._data.ndim
    w = []
    for d in dims:
        wd = _wrap_dim(d, nd)
        if wd in w:
            raise RuntimeError(f"dim {wd} appears multiple times in the list of dims")
        w.append(wd)
    if nd == 0:
        w = []
    return FlipBackward0.apply(input, tuple(w))


@register(category="shape", methods=("flip",), kind="view")
def flip(input, *dims, **kwargs):
    """Reverse the order of elements along dims (a copy); dims positional (`x.flip(0, 1)`, `x.flip((0,))`)
    or by keyword (`torch.flip(x, dims=(0,))`), as PyTorch's parser accepts."""
    if kwargs:
        if set(kwargs) != {"dims"}:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(k for k in kwargs if k != 'dims')}'")
        if dims:
            raise TypeError("flip() got multiple values for argument 'dims'")
        if not isinstance(kwargs["dims"], (tuple, list)):
            raise TypeError(f"flip(): argument 'dims' must be tuple of ints, not {type(kwargs['dims']).__name__}")
        dims = (kwargs["dims"],)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return _flip(input, _dimlist(dims, "dims"))


@register(category="shape", methods=("fliplr",))
def fliplr(input):
    """Flip dim 1 (left/right); input must be at least 2-D."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@register(category="shape", methods=("flipud",))
def flipud(input):
    """Flip dim 0 (up/down); input must be at least 1-D."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


class RollBackward0(Op):
    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if dims is None:
            return np.roll(a._data.reshape(-1), shifts[0]).reshape(a._data.shape)
        return np.roll(a._data, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        return RollBackward0.apply(g, tuple(-s for s in ctx.shifts), ctx.dims)


@register(category="shape", methods=("roll",), kind="view")
def roll(input, shifts, dims=None):
    """Shift elements cyclically along dims (flattened when dims is None); a copy."""
    sh = _dimlist(shifts, "shifts")
    if not sh:
        raise RuntimeError("`shifts` required")
    nd = input._data.ndim
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return RollBackward0.apply(input, sh, None)
    ds = _dimlist(dims, "dims")
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return RollBackward0.apply(input, sh, tuple(_wrap_dim(d, nd) for d in ds))
