"""nonzero / argwhere (coordinates of the nonzero elements), unravel_index (coordinates of flat indices)
and one_hot."""
from __future__ import annotations

import itertools
import operator

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import register
from ._common import _I64, _check_alloc, _out_arg


@register(category="indexing", methods=("nonzero",))
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the nonzero elements: an int64 [n, ndim] tensor, or with as_tuple=True one 1-D tensor per dim."""
    a = input._data
    if as_tuple:
        if a.ndim == 0:
            return (Tensor._make(np.zeros(1 if a.item() else 0, np.int64)),)
        return tuple(Tensor._make(x.astype(np.int64, copy=False)) for x in np.nonzero(a))
    if a.ndim == 0:
        r = np.zeros((1 if a.item() else 0, 0), np.int64)
    else:
        r = np.argwhere(a).astype(np.int64, copy=False)
    return _out_arg(Tensor._make(r), out)


@register(category="indexing", methods=("argwhere",))
def argwhere(input):
    """Indices of the nonzero elements as an int64 [n, ndim] tensor (same as nonzero)."""
    return nonzero(input)


@register(category="indexing", kind=None)
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding: out[..., c] = 1 where tensor == c; num_classes=-1 uses max(tensor) + 1."""
    a = tensor._data
    if a.dtype != _I64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = int(num_classes)
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        num_classes = int(a.max()) + 1
    elif a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    shape = a.shape + (num_classes,)
    _check_alloc(shape, _dt.int64)
    out = np.zeros(shape, np.int64)
    if a.size:
        flat = out.reshape(-1, num_classes)
        flat[np.arange(a.size), a.reshape(-1)] = 1
    return Tensor._make(out)


def _unravel_shape(shape):
    """torch.unravel_index's checks of `shape` (TypeError / ValueError, as torch._check_type/_check_value)."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    elif isinstance(shape, (tuple, list)):
        for d in shape:
            if not isinstance(d, (int, np.integer)):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        shape = tuple(int(d) for d in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    return shape


@register(category="indexing")
def unravel_index(indices, shape):
    """Coordinates (one int64 tensor per dim of shape, each shaped like indices) of flat row-major indices
    into a tensor of `shape`; computed as torch does: (indices // strides) % shape, so negative and
    too-large indices wrap around."""
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    a = indices._data
    if a.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {_dt._FROM_NP[a.dtype]}")
    shape = _unravel_shape(shape)
    if not shape:
        return ()
    coefs = list(itertools.accumulate(reversed(shape[1:] + (1,)), operator.mul))[::-1]
    if a.size and 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(divide="ignore"):
        res = np.floor_divide(a.astype(np.int64)[..., None], np.array(coefs, np.int64)) % np.array(shape, np.int64)
    return tuple(Tensor._make(res[..., k]) for k in range(len(shape)))

