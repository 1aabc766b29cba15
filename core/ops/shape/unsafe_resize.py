"""unsafe_chunk / unsafe_split (split's pieces without view tracking: UnsafeSplitBackward0), sum_to_size,
as_strided_scatter (AsStridedScatterBackward0), the storage-level resize_ / resize_as_ and the deprecated
autograd-level resize / resize_as (ResizeBackward), as PyTorch."""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from ...autograd.function import Op
from ...creation import _resizable
from ...tensor import Tensor, _wrap_dim
from ..inplace import _root, _storage_offset_of, _strided
from .. import registry
from ..registry import register
from ._util import _shape_str, _sizes
from .split import SplitBackward0, _split_bounds, chunk, split, split_with_sizes
from .views import _as_strided_args, as_strided, view


class UnsafeSplitBackward0(SplitBackward0):
    pass


class UnsafeSplitWithSizesBackward0(SplitBackward0):
    pass


def _unsafe(pieces, input, dim, cls):
    """Re-run split's pieces as one node whose outputs are plain tensors sharing input's memory."""
    d = _wrap_dim(dim, input._data.ndim)
    return cls.apply(input, d, _split_bounds([p._data.shape[d] for p in pieces]))


@register(category="shape", methods=("unsafe_chunk",))
def unsafe_chunk(input, chunks, dim=0):
    """chunk whose pieces are not tracked as views (in-place on them is not checked), as torch.unsafe_chunk."""
    return _unsafe(chunk(input.detach(), chunks, dim), input, dim, UnsafeSplitBackward0)


@register(category="shape", methods=("unsafe_split",))
def unsafe_split(input, split_size, dim=0):
    """split by an int size whose pieces are not tracked as views, as torch.unsafe_split."""
    if not isinstance(split_size, (int, np.integer)) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _unsafe(split(input.detach(), split_size, dim), input, dim, UnsafeSplitBackward0)


def sum_to_size(self, *size):
    """Sum self down to size (which self must expand from): leading dims summed away, dims of size 1
    summed with keepdim (SumBackward1, then ViewBackward0 when leading dims go); self itself when equal."""
    shape = tuple(_sizes(size, "sum_to_size", "size"))
    have = tuple(self._data.shape)
    lead = len(have) - len(shape)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {{{_shape_str(shape)}}} is not expandable to size {{{_shape_str(have)}}}.")
    if not shape:          # at::sum_to: an empty target is a full sum (SumBackward0), even from 0-d
        return self.sum()
    if shape == have:
        return self
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1]
    r = self.sum(dims, keepdim=True) if dims else self
    return view(r, shape) if lead else r


registry.method("sum_to_size", sum_to_size)


class AsStridedScatterBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, src, size, stride, off):
        ctx.geom = (size, stride, off)
        out = np.ascontiguousarray(a._data).copy()
        flat = out.reshape(-1)
        region = np.lib.stride_tricks.as_strided(flat[off:], size, [s * out.itemsize for s in stride])
        region[...] = src._data
        return out

    @staticmethod
    def backward(ctx, g):
        # torch's as_strided_scatter_backward: input's gradient is g INSIDE the region (zero elsewhere),
        # src's is g's region
        size, stride, off = ctx.geom
        region = as_strided(g.contiguous(), size, stride, off)
        return as_strided_scatter(g * 0, region, size, stride, off), region


# not a command: torch's gradient for input (mirrored) is not the derivative (torch.autograd.gradcheck fails
# on torch's own as_strided_scatter), so --explain's perturbation check cannot agree with --backward
@register(category="shape", methods=("unsafe_split_with_sizes",))
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """split_with_sizes whose pieces are not tracked as views, as torch.unsafe_split_with_sizes."""
    return _unsafe(split_with_sizes(input.detach(), split_sizes, dim), input, dim, UnsafeSplitWithSizesBackward0)


@register(category="shape", methods=("as_strided_scatter",))
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input whose as_strided(size, stride, storage_offset) region holds src."""
    dense = input if input.is_contiguous() else input.contiguous()
    size, stride, off = _as_strided_args(dense, size, stride, storage_offset)
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src.shape)}, slice size = {_shape_str(size)}")
    if src.dtype != input.dtype:
        src = src.to(input.dtype)
    return AsStridedScatterBackward0.apply(input, src, tuple(size), tuple(stride), off)


def resize_(self, *size, memory_format=None):
    """Resize in place as torch's storage-level resize_: the same shape is a no-op (strides kept); another
    shape lays contiguous strides over self's storage from its storage offset (so views share memory with
    it), reallocating the storage (old contents kept) when it is too small: RuntimeError for a storage
    that is not resizable (from_numpy / as_tensor of an array). New elements are zero here, uninitialised
    in torch; RuntimeError when self requires grad."""
    if len(size) == 1 and not isinstance(size[0], (tuple, list, int, np.integer, Tensor)):
        raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    shape = tuple(_sizes(size, "resize_", "size"))
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(d < 0 for d in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if shape == tuple(self._data.shape):
        return self
    a = self._data
    n, offset = int(np.prod(shape, dtype=np.int64)), _storage_offset_of(a)
    strides, acc = [], 1
    for d in reversed(shape):   # torch's contiguous strides (a 0 or 1 size counts as 1)
        strides.append(acc)
        acc *= max(d, 1)
    strides = tuple(reversed(strides))
    root = _root(a)
    if n and offset + n > root.size:
        if not _resizable(root):
            raise RuntimeError("Trying to resize storage that is not resizable")
        grown = np.zeros(offset + n, dtype=a.dtype)
        grown[:root.size] = root.reshape(-1, order="C" if root.flags.c_contiguous else "F")
        a = grown    # views made before keep the old memory here (torch's share the grown storage)
    self._data = _strided(a, shape, strides, offset)
    self._vc[0] += 1
    return self


def resize_as_(self, the_template, *, memory_format=None):
    """resize_(the_template.shape)."""
    return resize_(self, the_template.shape)


registry.method("resize_", resize_)
registry.method("resize_as_", resize_as_)
registry.export(resize_as_)


class ResizeBackward(Op):
    """torch.autograd._functions.Resize: a reshape that keeps the element count (name as torch's
    Python Function's node)."""

    @staticmethod
    def forward(ctx, a, sizes):
        ctx.in_shape = a._data.shape
        return np.ascontiguousarray(a._data).reshape(sizes)

    @staticmethod
    def backward(ctx, g):
        return g.contiguous().view(ctx.in_shape)


def _resize(self, sizes):
    numel = functools.reduce(operator.mul, sizes, 1)
    if self.numel() != numel:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return ResizeBackward.apply(self, tuple(sizes))


def resize(self, *sizes):
    """Tensor.resize (deprecated, warns as torch): the same elements in a new shape of equal numel."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return _resize(self, sizes)


def resize_as(self, tensor):
    """Tensor.resize_as (deprecated, warns as torch): resize to tensor's shape."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return _resize(self, tensor.size())


registry.method("resize", resize)
registry.method("resize_as", resize_as)
