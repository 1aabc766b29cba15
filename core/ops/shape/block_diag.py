"""Block-diagonal and diagonal-from-flat copies: block_diag and diagflat."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor
from ..registry import register
from ._util import _check_alloc, _int, _tensor_list
from .views import flatten


def _as_2d_shape(shape):
    return {0: (1, 1), 1: (1,) + tuple(shape)}.get(len(shape), tuple(shape))


class BlockDiagBackward0(Op):
    @staticmethod
    def forward(ctx, tensors, dtype):
        shapes = [_as_2d_shape(t._data.shape) for t in tensors]
        ctx.in_shapes = [t._data.shape for t in tensors]
        out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype=dtype)
        r = c = 0
        for t, (h, w) in zip(tensors, shapes):
            out[r:r + h, c:c + w] = t._data.reshape(h, w)
            r, c = r + h, c + w
        return out

    @staticmethod
    def backward(ctx, g):
        """torch's block_diag_backward, quirk included: a 1-D empty input gets an empty gradient and
        does not advance the offsets (although forward gave it a row)."""
        grads, r, c = [], 0, 0
        for shape in ctx.in_shapes:
            if shape == (0,):
                grads.append(g.new_zeros((0,)))
                continue
            h, w = _as_2d_shape(shape)
            grads.append(g[r:r + h, c:c + w].reshape(shape))
            r, c = r + h, c + w
        return tuple(grads)


@register(category="shape", kind="view")
def block_diag(*tensors):
    """Place the inputs (0-D -> 1x1, 1-D -> one row, 2-D as is) along the diagonal of a zero matrix,
    in the promoted dtype."""
    ts = _tensor_list(list(tensors), "block_diag")
    for i, t in enumerate(ts):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not ts:
        return Tensor._make(np.zeros((1, 0), dtype=_dt.get_default_dtype().np))
    dtype = ts[0].dtype
    for t in ts[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    shapes = [_as_2d_shape(t._data.shape) for t in ts]
    _check_alloc((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype)
    return BlockDiagBackward0.apply(ts, dtype.np)


@register(category="shape", methods=("diagflat",), kind="view")
def diagflat(input, offset=0):
    """A square matrix with input's elements (flattened) on the diagonal `offset`, zeros elsewhere."""
    offset = _int(offset, "offset")
    return flatten(input).diag_embed(offset)   # Tensor method: no import of indexing
