"""rot90: rotate by 90 degrees k times in the plane of two dims (a copy), as torch.rot90."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import _wrap_dim
from ..registry import register
from ._util import _int


class Rot90Backward0(Op):
    contiguous_output = False   # torch's layout: flip keeps a dense input's strides, then a transpose view

    @staticmethod
    def forward(ctx, a, k, d0, d1):
        ctx.k, ctx.d0, ctx.d1 = k, d0, d1
        x = a._data
        if k == 0:
            return np.ascontiguousarray(x).copy()            # clone(contiguous_format)
        if k == 2:
            return np.flip(x, (d0, d1)).copy(order="K")
        r = np.flip(x, d1 if k == 1 else d0).copy(order="K")  # flip, then transpose as a view
        return r.swapaxes(d0, d1)

    @staticmethod
    def backward(ctx, g):
        return rot90(g, -ctx.k, (ctx.d0, ctx.d1))


def _rot90_dims(dims):
    if not isinstance(dims, (list, tuple)):
        raise TypeError(f"rot90(): argument 'dims' (position 3) must be tuple of ints, not {type(dims).__name__}")
    for i, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"rot90(): argument 'dims' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(d).__name__}\"")
    return [int(d) for d in dims]


@register(category="shape", methods=("rot90",), kind="view")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees k times, from the first towards the second of dims (a copy)."""
    k = _int(k, "rot90(): argument 'k' (position 2)")
    dims = _rot90_dims(dims)
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrap_dim(dims[0], nd), _wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return Rot90Backward0.apply(input, k % 4, d0, d1)
