"""Multi-output views: split, split_with_sizes, chunk, unbind, tensor_split. Outputs of split /
chunk / unbind carry PyTorch's multi-output view meta (no in-place under grad)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..inplace import _mark_multi, _view
from ..registry import register
from ._util import _int, _shape_str
from .join import cat, stack
from .slicing import SliceBackward0

class SplitBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, bounds):
        ctx.dim = dim
        arr = a._data
        pre = (slice(None),) * dim
        return tuple(arr[pre + (slice(s, e),)] for s, e in bounds)

    @staticmethod
    def backward(ctx, *grads):
        return cat(list(grads), ctx.dim)

    @staticmethod
    def backward_np(ctx, *grads):
        return np.concatenate(grads, axis=ctx.dim)


class SplitWithSizesBackward0(SplitBackward0):
    pass


class UnbindBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        arr = a._data
        pre = (slice(None),) * dim
        return tuple(arr[pre + (i,)] for i in range(arr.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(list(grads), ctx.dim)

    @staticmethod
    def backward_np(ctx, *grads):
        return np.stack(grads, axis=ctx.dim)


def _split_bounds(sizes):
    out, s = [], 0
    for n in sizes:
        out.append((s, s + n))
        s += n
    return out


def _do_split(input, d, sizes, cls):
    outs = cls.apply(input, d, _split_bounds(sizes))
    return _mark_multi(outs, input)


def _split_size(input, split_size, dim):
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    n = max((size + split_size - 1) // split_size, 1) if split_size else 1
    sizes = [split_size] * n
    sizes[-1] = size - split_size * (n - 1)
    return _do_split(input, d, sizes, SplitBackward0)


@register(category="shape", methods=("split_with_sizes",), kind="view")
def split_with_sizes(input, split_sizes, dim=0):
    """Split along dim into pieces of the given sizes (views); the sizes must sum to size(dim)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    sizes = [_int(s, "split_sizes") for s in split_sizes]
    size = input._data.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={_shape_str(sizes)}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={_shape_str(sizes)}")
    return _do_split(input, d, sizes, SplitWithSizesBackward0)


@register(category="shape", methods=("split",), kind="view")
def split(tensor, split_size_or_sections, dim=0):
    """Split along dim into chunks of split_size (the last may be smaller) or of the listed sizes (views)."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    return _split_size(tensor, _int(split_size_or_sections, "split_size"), dim)


@register(category="shape", methods=("chunk",), kind="view")
def chunk(input, chunks, dim=0):
    """Split into `chunks` pieces of ceil(size/chunks) along dim (fewer when it does not divide)."""
    chunks = _int(chunks, "chunks")
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return _do_split(input, d, [0] * chunks, SplitWithSizesBackward0)
    return _split_size(input, split_size, d)


@register(category="shape", methods=("unbind",), kind="view")
def unbind(input, dim=0):
    """Tuple of all slices along dim, that dim removed (views)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    return _mark_multi(UnbindBackward0.apply(input, d), input)


def _clamp_slice(start, end, size):
    """PyTorch's slice bounds: negative wrap, clamp to [0, size], end >= start."""
    start = min(max(start + size if start < 0 else start, 0), size)
    end = min(max(end + size if end < 0 else end, 0), size)
    return start, max(start, end)


@register(category="shape", methods=("tensor_split",), kind="view")
def tensor_split(input, indices_or_sections, dim=0):
    """Split into n near-equal parts (the first size % n get one more) or at the given indices (views)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have integer dtype, but got "
                               f"{ios.dtype}")
        if ios._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios._data.ndim} dims")
        ios = int(ios.item()) if ios._data.ndim == 0 else [int(v) for v in ios._data.tolist()]
    if isinstance(ios, (list, tuple)):
        bounds, s = [], 0
        for i in [_int(i, "indices") for i in ios]:
            bounds.append(_clamp_slice(s, i, size))
            s = i
        bounds.append(_clamp_slice(s, size, size))
    else:
        n = _int(ios, "sections")
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, s = [], 0
        for k in range(n):
            e = s + q + (1 if k < r else 0)
            bounds.append((s, e))
            s = e
    return tuple(_view(SliceBackward0, input, d, s, e) for s, e in bounds)


def _split_at(input, indices_or_sections, dim, fname, min_dims):
    """hsplit / vsplit / dsplit: tensor_split along dim, an int needing to divide size(dim) exactly."""
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{fname} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {nd} dimensions!")
    ios = indices_or_sections
    if isinstance(ios, Tensor) or not isinstance(ios, (int, np.integer, list, tuple)) or isinstance(ios, bool):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(ios).__name__}), but expected one of:\n * (Tensor input, int sections)\n"
                        " * (Tensor input, tuple of ints indices)\n")
    if not isinstance(ios, (list, tuple)):
        size = input._data.shape[dim]
        if ios == 0 or size % abs(int(ios)):      # C++ %: the sign of size (>= 0)
            raise RuntimeError(f"torch.{fname} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


@register(category="shape", methods=("hsplit",), kind="view")
def hsplit(input, sections):
    """Split along dim 1 (dim 0 for 1-D) into equal sections or at indices (views), as numpy.hsplit."""
    return _split_at(input, sections, 0 if input._data.ndim == 1 else 1, "hsplit", 1)


@register(category="shape", methods=("vsplit",), kind="view")
def vsplit(input, sections):
    """Split along dim 0 of an at least 2-D tensor into equal sections or at indices (views)."""
    return _split_at(input, sections, 0, "vsplit", 2)


@register(category="shape", methods=("dsplit",), kind="view")
def dsplit(input, sections):
    """Split along dim 2 of an at least 3-D tensor into equal sections or at indices (views)."""
    return _split_at(input, sections, 2, "dsplit", 3)
