"""Tiling copies: repeat and tile."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import register
from ._util import _LETTERS, _check_alloc, _idx, _sizes

class RepeatBackward0(Op):
    @staticmethod
    def forward(ctx, a, reps):
        ctx.in_shape, ctx.reps = a._data.shape, reps
        return np.tile(a._data, reps)

    @staticmethod
    def backward(ctx, g):
        reps = ctx.reps
        shp = (1,) * (len(reps) - len(ctx.in_shape)) + tuple(ctx.in_shape)
        inter, dims = [], []
        for i, (r, s) in enumerate(zip(reps, shp)):
            inter += [r, s]
            dims.append(2 * i)
        g = g.reshape(inter).sum(dims)
        return g.reshape(ctx.in_shape)


def _repeat_rule(ndim, dim=None, sizes=None, dims=None, **kw):
    reps = sizes if sizes is not None else dims
    extra = max(len(reps) - ndim, 0) if isinstance(reps, (tuple, list)) else 0
    outs = _LETTERS[:extra + ndim]
    return f"out{_idx(outs)} = input" + "".join(f"[{c} % size({k})]" for k, c in enumerate(outs[extra:]))


@register(category="shape", methods=("repeat",), function=False, kind="view", rule=_repeat_rule, cli=True,
          cli_example="tensorcli repeat '[1,2]' --sizes 2,2 --explain")
def repeat(input, *sizes):
    """Tile the data: out has size(d) * sizes[d] along each dim (leading sizes add new dims); a copy."""
    reps = _sizes(sizes, "repeat", "repeats")
    nd = input._data.ndim
    if len(reps) < nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    shp = (1,) * (len(reps) - nd) + input._data.shape
    _check_alloc(tuple(s * r for s, r in zip(shp, reps)), input.dtype)
    return RepeatBackward0.apply(input, reps)


@register(category="shape", methods=("tile",), kind="view", rule=_repeat_rule, cli=True,
          cli_example="tensorcli tile '[1,2]' --dims 2")
def tile(input, dims):
    """repeat, with dims padded by leading 1s when shorter than input.ndim."""
    reps = _sizes((dims,), "tile", "dims")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)
