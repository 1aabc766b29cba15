"""torch.memory_format and torch.layout objects, and memory formats as NumPy strides.

`torch.contiguous_format` / `channels_last` (NHWC) / `channels_last_3d` (NDHWC) / `preserve_format`
print as torch's and pickle to the same object. A channels-last tensor is an NCHW-shaped view of an
NHWC C-contiguous buffer, so its strides are torch's (c10's get_channels_last_strides_2d) and its
values unchanged. NumPy only: tensor.py and the op families import it."""
from __future__ import annotations

import numpy as np


class _Singletons:
    """A torch type whose only instances are its named singletons (repr `torch.<name>`, pickled by name)."""
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


class memory_format(_Singletons):
    """torch.memory_format: four singletons; users cannot make new ones."""
    __slots__ = ()


class layout(_Singletons):
    """torch.layout: core has torch.strided only (sparse layouts are named, never produced)."""
    __slots__ = ()


contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")
strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")

# format -> (rank it needs, order of dims from the innermost stride outwards, NumPy permutation to it)
_CHANNELS_LAST = {channels_last: (4, (1, 3, 2, 0), (0, 2, 3, 1)),
                  channels_last_3d: (5, (1, 4, 3, 2, 0), (0, 2, 3, 4, 1))}


def check(fmt, fname):
    """torch's argument parser check: a memory_format (or None) or the TypeError it raises."""
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    return contiguous_format if fmt is None else fmt


def elem_strides(arr):
    """Strides in elements (NumPy's are bytes)."""
    return tuple(s // arr.itemsize for s in arr.strides) if arr.itemsize else arr.strides


def is_contiguous(arr, fmt):
    """Tensor.is_contiguous(memory_format): channels_last(_3d) by c10's check (size-1 dims skipped,
    other ranks False); any other format is plain C-contiguity."""
    if fmt not in _CHANNELS_LAST:
        return bool(arr.flags.c_contiguous)
    rank, order, _ = _CHANNELS_LAST[fmt]
    if arr.ndim != rank:
        return False
    expected, strides = 1, elem_strides(arr)
    if arr.size == 0:   # NumPy keeps no strides for empty arrays; core reports contiguous ones (Tensor.stride)
        strides = tuple(int(np.prod([max(n, 1) for n in arr.shape[i + 1:]])) for i in range(arr.ndim))
    for d in order:
        if arr.shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= arr.shape[d]
    return True


def _strides_like(arr, fmt):
    """c10's is_channels_last_strides_2d/3d: the strides grow in fmt's dim order (no exact contiguity)."""
    rank, order, _ = _CHANNELS_LAST[fmt]
    if arr.ndim != rank or arr.size == 0:
        return False
    strides, low = elem_strides(arr), 0
    if strides[1] == 0:
        return False
    for d in order:
        if strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * (arr.shape[d] if arr.shape[d] > 1 else 1)
    return True


def suggest(arr):
    """c10's suggest_memory_format: channels_last(_3d) when the strides are ordered like it, else
    contiguous_format."""
    for fmt in _CHANNELS_LAST:
        if _strides_like(arr, fmt):
            return fmt
    return contiguous_format


def laid_out(arr, fmt):
    """A new array (never a view of arr) (same shape and values) with fmt's strides: preserve_format keeps a dense
    input's strides (else suggest's format), channels_last(_3d) need rank 4 (5): torch's RuntimeError."""
    if fmt is preserve_format:
        return np.array(arr, order="K", copy=True) if _dense(arr) else laid_out(arr, suggest(arr))
    if fmt in _CHANNELS_LAST:
        rank, _, perm = _CHANNELS_LAST[fmt]
        if arr.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        return np.array(arr.transpose(perm), order="C").transpose(np.argsort(perm))
    return np.array(arr, order="C")


def _dense(arr):
    """Non-overlapping and dense: some permutation of the dims is C-contiguous."""
    order = sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]))
    return bool(arr.transpose(order).flags.c_contiguous)
