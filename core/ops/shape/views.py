"""Views that reshape or re-stride: view (shape or dtype), reshape, flatten, unflatten, ravel,
view_as/reshape_as, expand/expand_as/broadcast_to, contiguous, unfold, as_strided(_), storage_offset.
Each returns a view sharing storage and version counter whenever PyTorch's does."""
from __future__ import annotations

import math

import numpy as np

from ... import _memory_format as _mf
from ... import dtypes as _dt
from ...autograd.function import Op, sum_to_shape
from ...tensor import Tensor, _wrap_dim
from ..inplace import (AsStridedBackward0, AsStridedBackward1, ViewOp, _geom, _inplace_view, _root,
                       _storage_offset_of, _strided, _view)
from ..pointwise import clone
from ..registry import add_inplace, method, register
from ._util import _infer_size, _int, _shape_str, _sizes, _try_view

def _storage_offset(self):
    """Offset of the first element in the underlying storage, in elements."""
    return _storage_offset_of(self._data)


method("storage_offset", _storage_offset)


# -- view / reshape -------------------------------------------------------------------------

class ViewBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        v = _try_view(a._data, shape)
        if v is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return v

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


class UnsafeViewBackward0(Op):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return a._data.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


def _other_shape(other, fname):
    if not isinstance(other, Tensor):
        raise TypeError(f"{fname}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return other._data.shape


def _view_dtype(input, dtype):
    dt = _dt.as_dtype(dtype)
    a = input._data
    src = input.dtype
    if dt.itemsize != a.itemsize:
        names = f"{_dt.scalar_name(src)} as {_dt.scalar_name(dt)}"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names} (different element sizes)")
        if a.strides[-1] != a.itemsize and a.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names} (different element sizes), but got "
                               f"{a.strides[-1] // a.itemsize}")
        if dt.itemsize > a.itemsize and (a.shape[-1] * a.itemsize) % dt.itemsize:
            raise RuntimeError(f"self.size(-1) must be divisible by {dt.itemsize // a.itemsize} to view {names} "
                               f"(different element sizes), but got {a.shape[-1]}")
    r = Tensor._make(a.view(dt.np))
    r._vc = input._vc
    return r


@register(category="shape", methods=("view",), kind="view")
def view(input, *shape):
    """A view with a new shape (one dim may be -1); fails if the strides do not allow it."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list, Tensor)):
        return _view_dtype(input, shape[0])
    shp = _infer_size(_sizes(shape), input._data.size)
    return _view(ViewBackward0, input, shp)


@register(category="shape", methods=("reshape",), kind="view")
def reshape(input, *shape):
    """Like view, but copies (clone + view) when the strides do not allow a view."""
    shp = _infer_size(_sizes(shape, "reshape", "shape"), input._data.size)
    return _reshape(input, shp)


def _reshape(input, shp):
    a = input._data
    if a.flags.c_contiguous or _try_view(a, shp) is not None:
        return _view(ViewBackward0, input, shp)
    return UnsafeViewBackward0.apply(clone(input), shp)


@register(category="shape", methods=("view_as",), function=False)   # a method only, as in torch
def view_as(input, other):
    """view to other's shape."""
    return view(input, _other_shape(other, "view_as"))


@register(category="shape", methods=("reshape_as",), function=False)   # a method only, as in torch
def reshape_as(input, other):
    """reshape to other's shape."""
    return reshape(input, _other_shape(other, "reshape_as"))


@register(category="shape", methods=("ravel",))
def ravel(input):
    """A 1-D view when contiguous, else a contiguous 1-D copy."""
    return view(contiguous(input), -1)


@register(category="shape", methods=("flatten",), kind="view")
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a view when possible)."""
    nd = input._data.ndim
    if nd == 0:
        return _reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return _reshape(input, shp[:s] + (n,) + shp[e + 1:])


@register(category="shape", methods=("unflatten",), kind="view")
def unflatten(input, dim, sizes):
    """Split dim into the given sizes (one may be -1) as a view."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    sizes = _sizes((sizes,), "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input._data.shape[d]
    if -1 in sizes:
        sizes = _infer_size(sizes, size)
    elif math.prod(sizes) != size:
        raise RuntimeError(f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of dim "
                           f"{dim} ({size}) in the input tensor")
    shp = input._data.shape
    return view(input, shp[:d] + tuple(sizes) + shp[d + 1:])


# -- expand / broadcast_to ------------------------------------------------------------------

class ExpandBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return _expand_np(a._data, shape)

    @staticmethod
    def backward(ctx, g):
        return sum_to_shape(g, ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g       # the engine reduces a broadcast gradient to the input's shape


def _expand_np(a, shape):
    if a.shape == shape:
        return a.view()
    lead = len(shape) - a.ndim
    if all(s == 1 for s in shape[:lead]) and a.shape == shape[lead:]:
        return a.reshape(shape)          # only size-1 dims added: writable, not overlapping
    if a.flags.c_contiguous and a.size:
        strides = (0,) * lead + tuple(0 if o == 1 and s != 1 else st
                                      for o, s, st in zip(a.shape, shape[lead:], a.strides))
        r = np.ndarray(shape, a.dtype, buffer=a, strides=strides)
        r.flags.writeable = False        # overlapping: in-place writes raise like PyTorch
        return r
    return np.broadcast_to(a, shape)     # read-only as well


def _expand_sizes(input, sizes):
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(f"expand({input.type()}{{{_shape_str(shp)}}}, size={_shape_str(sizes)}): the number "
                           f"of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shp)})")
    lead = len(sizes) - len(shp)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            out.append(cur)
        elif cur == s or (cur == 1 and s >= 0):
            out.append(s)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {_shape_str(sizes)}.  "
                               f"Tensor sizes: {_shape_str(shp)}")
    return tuple(out)


@register(category="shape", methods=("expand",), kind="view")
def expand(input, *sizes):
    """Broadcast size-1 dims to larger sizes without copying (-1 keeps a dim)."""
    return _view(ExpandBackward0, input, _expand_sizes(input, _sizes(sizes, "expand")))


@register(category="shape", methods=("expand_as",), function=False)   # a method only, as in torch
def expand_as(input, other):
    """expand to other's shape."""
    return expand(input, _other_shape(other, "expand_as"))


@register(category="shape", methods=("broadcast_to",), kind="view")
def broadcast_to(input, size):
    """Broadcast to a shape (same as expand)."""
    return expand(input, size)


@register(category="shape", methods=("contiguous",))
def contiguous(input, memory_format=None):
    """self if already contiguous in memory_format (default torch.contiguous_format), else a copy laid out
    so (CloneBackward0); preserve_format is refused for a non-contiguous input, as torch's."""
    fmt = _mf.check(memory_format, "contiguous")
    if _mf.is_contiguous(input._data, fmt):
        return input
    if fmt is _mf.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(input, memory_format=fmt)


# -- unfold / as_strided --------------------------------------------------------------------

class UnfoldBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, size, step):
        arr = a._data
        ctx.dim, ctx.size, ctx.step, ctx.in_shape = dim, size, step, arr.shape
        if arr.ndim == 0:
            return arr.reshape(1)
        shape, strides, off = _geom(arr)
        n = (shape[dim] - size) // step + 1
        new_shape = shape[:dim] + (n,) + shape[dim + 1:] + (size,)
        new_strides = strides[:dim] + (strides[dim] * step,) + strides[dim + 1:] + (strides[dim],)
        return _strided(arr, new_shape, new_strides, off)

    @staticmethod
    def backward(ctx, g):
        return UnfoldBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.size, ctx.step)


class UnfoldBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.dim, ctx.size, ctx.step = dim, size, step
        ga = g._data
        if not shape:
            return ga.reshape(())
        out = np.zeros(shape, dtype=ga.dtype)
        n = ga.shape[dim]
        pre = (slice(None),) * dim
        for k in range(size):   # window offset k covers positions k, k+step, ... along dim
            out[pre + (slice(k, k + step * (n - 1) + 1, step),)] += ga[..., k]
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(UnfoldBackward0, gg, ctx.dim, ctx.size, ctx.step)


@register(category="shape", methods=("unfold",), function=False, kind="view")
def unfold(input, dimension, size, step):
    """All windows of `size` elements with stride `step` along dimension, as a new last dim (a view)."""
    nd = input._data.ndim
    d = _wrap_dim(dimension, nd)
    size, step = _int(size, "size"), _int(step, "step")
    dsize = input._data.shape[d] if nd else 1
    if size > dsize:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {dsize} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return _view(UnfoldBackward0, input, d, size, step)


def _as_strided_args(input, size, stride, storage_offset):
    size = _sizes((size,), "as_strided", "size")
    stride = _sizes((stride,), "as_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{_shape_str(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {_shape_str(size)}")
    arr = input._data
    off = _storage_offset_of(arr) if storage_offset is None else _int(storage_offset, "storage_offset")
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    isz = arr.itemsize
    need = 0 if 0 in size else (off + sum((s - 1) * st for s, st in zip(size, stride)) + 1) * isz
    have = _root(arr).nbytes
    if need > have:
        raise RuntimeError(f"setStorage: sizes {_shape_str(size)}, strides {_shape_str(stride)}, storage offset "
                           f"{off}, and itemsize {isz} requiring a storage size of {need} are out of bounds for "
                           f"storage of size {have}")
    return size, stride, off


@register(category="shape", methods=("as_strided",), kind="view")
def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with the given sizes, strides and offset (in elements)."""
    size, stride, off = _as_strided_args(input, size, stride, storage_offset)
    return _view(AsStridedBackward0, input, size, stride, off)


def as_strided_(self, size, stride, storage_offset=None):
    """In-place as_strided: self becomes the strided view of its storage."""
    size, stride, off = _as_strided_args(self, size, stride, storage_offset)
    return _inplace_view(self, AsStridedBackward1, size, stride, off)


add_inplace("as_strided", "as_strided_", as_strided_)
