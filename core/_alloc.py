"""Allocation helpers shared by the factories (core/creation.py, core/ops/random.py): size
parsing with PyTorch's TypeErrors, the allocation guard (RuntimeError before NumPy allocates more
than core.set_allocation_limit), factory requires_grad, and the dense-layout test of preserve_format."""
from __future__ import annotations

import os

import numpy as np

from . import dtypes as _dt
from .ops.registry import export
from .tensor import Size, Tensor

# Refuse allocations above this many bytes (PyTorch would try and fail with "not enough memory").
_MAX_ALLOC = [int(os.environ.get("CORE_MAX_ALLOC_BYTES", 16 * 1024 ** 3))]


@export
def set_allocation_limit(nbytes: int | None):
    """Set the largest single tensor allocation core will attempt (None: no limit). Returns the old limit."""
    old = _MAX_ALLOC[0]
    _MAX_ALLOC[0] = int(nbytes) if nbytes is not None else 1 << 62
    return old


@export
def get_allocation_limit() -> int:
    return _MAX_ALLOC[0]


def _check_alloc(shape, dtype, what="tensor"):
    """Raise RuntimeError (PyTorch's class for allocation failures) before allocating
    more than the limit, or for negative dimensions."""
    n = 1
    for s in shape:
        s = int(s)
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(map(int, shape))}")
        n *= s
    nbytes = n * _dt.as_dtype(dtype).itemsize
    if nbytes > _MAX_ALLOC[0]:
        raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:118] data. DefaultCPUAllocator: not enough memory: "
                           f"you tried to allocate {nbytes} bytes. (core refuses allocations above "
                           f"{_MAX_ALLOC[0]} bytes; see core.set_allocation_limit)")
    return n


def check_alloc(shape, dtype):
    return _check_alloc(shape, dtype)


_FACTORY_RG_MSG = "Only Tensors of floating point and complex dtype can require gradients"


def _set_requires_grad(t):
    """requires_grad=True on a factory (PyTorch's wording differs from Tensor.requires_grad_)."""
    if not t.dtype.is_floating_point:
        raise RuntimeError(_FACTORY_RG_MSG)
    t.requires_grad_(True)
    return t


def _parse_size(size, fn="zeros"):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3])); PyTorch's TypeErrors otherwise."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    elif len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    out = []
    for s in size:
        if isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
            s = s.item()
        if not _is_int(s):
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {len(out) + 1} with error "
                            f"\"type must be tuple of ints,but got {type(s).__name__}\"")
        out.append(int(s))
    return tuple(out)


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _dense(a):
    """Non-overlapping and dense: some permutation of the dims is C-contiguous."""
    order = sorted(range(a.ndim), key=lambda d: a.strides[d], reverse=True)
    expected = a.itemsize
    for d in reversed(order):
        if a.shape[d] != 1 and a.strides[d] != expected:
            return False
        expected *= a.shape[d]
    return True
