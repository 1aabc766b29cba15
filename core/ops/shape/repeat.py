"""Tiling copies: repeat, tile and repeat_interleave."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..pointwise import clone
from ..registry import register
from ._util import _check_alloc, _int, _sizes
from .squeeze import unsqueeze
from .views import expand, flatten

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


@register(category="shape", methods=("repeat",), function=False, kind="view")
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


@register(category="shape", methods=("tile",), kind="view")
def tile(input, dims):
    """repeat, with dims padded by leading 1s when shorter than input.ndim."""
    reps = _sizes((dims,), "tile", "dims")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)


# -- repeat_interleave ----------------------------------------------------------------------------

def _interleave_index(repeats, output_size=None):
    """torch.repeat_interleave(repeats): i repeated repeats[i] times, in repeats' dtype."""
    r = repeats._data
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype not in (np.int32, np.int64):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{_dt.scalar_name(r.dtype)}\'')
    if r.size and r.min() < 0:
        raise RuntimeError("repeats can not be negative")
    total = int(r.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    _check_alloc((total,), repeats.dtype)
    return Tensor._make(np.repeat(np.arange(r.size, dtype=r.dtype), r))


def _clone_contiguous(t):
    """clone(memory_format=torch.contiguous_format): always a new tensor (CloneBackward0), C-contiguous."""
    r = clone(t)
    if not r._data.flags.c_contiguous:
        r._data = np.ascontiguousarray(r._data)
    return r


def _interleave_int(input, repeats, dim, output_size):
    """ATen's int overload: unsqueeze(dim + 1).expand(...).clone().flatten(dim, dim + 1)."""
    x = input if dim is not None else flatten(input)
    d = _wrap_dim(0 if dim is None else dim, input._data.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = unsqueeze(x, d + 1)
    shape = list(x._data.shape)
    shape[d + 1] = repeats
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {repeats * shape[d]} but got "
                           f"{output_size}")
    _check_alloc(tuple(shape), input.dtype)
    return flatten(_clone_contiguous(expand(x, shape)), d, d + 1)


def _interleave_tensor(input, repeats, dim, output_size):
    """ATen's Tensor overload: index_select(dim, repeat_interleave(repeats expanded to size(dim)))."""
    x = input
    if dim is None:
        x, dim = flatten(input), 0
    n = x._data.shape[_wrap_dim(dim, x._data.ndim)]
    if repeats._data.ndim == 0 or repeats._data.shape == (1,):
        repeats = Tensor._make(np.broadcast_to(repeats._data.reshape(1), (n,)))
    elif repeats._data.ndim == 1:
        if repeats._data.shape[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._data.shape[0]} and input.size({dim}) = {n}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return x.index_select(dim, _interleave_index(repeats, output_size))   # Tensor method: no import of indexing


@register(category="shape", methods=("repeat_interleave",), kind="view")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element `repeats` times (an int, or one count per element) along dim (flattened
    when dim is None); `repeat_interleave(counts)` alone gives the indices 0..n-1 repeated counts[i] times."""
    if output_size is not None:
        output_size = _int(output_size, "output_size")
    if repeats is None:
        if not isinstance(input, Tensor):
            raise TypeError(f"repeat_interleave(): argument 'repeats' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return _interleave_index(input, output_size)
    if dim is not None:
        dim = _int(dim, "dim")
    if isinstance(repeats, Tensor):
        return _interleave_tensor(input, repeats, dim, output_size)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got "
                        f"({type(repeats).__name__}), but expected one of:\n"
                        " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
                        " * (int repeats, int dim = None, *, int output_size = None)\n")
    return _interleave_int(input, int(repeats), dim, output_size)
