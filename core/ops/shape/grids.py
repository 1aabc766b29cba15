"""Grids of 1-D tensors: meshgrid (expanded views), cartesian_prod and combinations (copies),
composed from view / expand / flatten / masked_select / stack as ATen composes them, so values,
grad_fn names and gradients follow PyTorch."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...tensor import Tensor
from ..registry import register
from ._util import _int, _shape_str, _tensor_list
from .join import stack
from .views import expand, flatten, view

_MESHGRID_WARNED = [False]


def _meshgrid_1d_error(t):
    return RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")


def _meshgrid(tensors, indexing):
    """ATen's meshgrid: tensor i viewed as [1, .., -1 (at i), .., 1] and expanded to the grid shape;
    'xy' swaps the roles of the first two tensors."""
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:]):
        if a.dtype != b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    for t in refs:
        if t._data.ndim > 1:
            raise _meshgrid_1d_error(t)
    shape = tuple(t._data.size for t in refs)
    grids = []
    for i, t in enumerate(refs):
        vshape = (1,) * i + (-1,) + (1,) * (len(refs) - i - 1)
        grids.append(expand(view(t, vshape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@register(category="shape", kind="view")
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 0-D/1-D tensors (views): indexing='ij' gives out[k][i0][i1]... = tensors[k][ik];
    'xy' swaps the first two grid dims. Without indexing: 'ij' and a one-time UserWarning."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = _tensor_list(list(tensors), "meshgrid")
    if indexing is None:
        warn_aten("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                  "aten/src/ATen/native/TensorShape.cpp:4215", once=_MESHGRID_WARNED, from_python=True)
        indexing = "ij"
    return _meshgrid(tensors, indexing)


def _check_1d(t):
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_shape_str(t._data.shape)}")


@register(category="shape", kind="view")
def cartesian_prod(*tensors):
    """All tuples (a_i, b_j, ...) of the 1-D inputs' elements, in row-major order, as rows of an
    [N, len(tensors)] tensor (one input: returned as is)."""
    tensors = _tensor_list(list(tensors), "cartesian_prod")
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in _meshgrid(tensors, "ij")], 1)


def _triu_mask(n, r, with_replacement):
    """Cells of the r-dim n^r grid whose indices increase (or never decrease, with replacement)."""
    idx = np.indices((n,) * r, dtype=np.int64) if r else np.zeros((0,), np.int64)
    mask = np.ones((n,) * r, dtype=bool)
    for a, b in zip(idx, idx[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    return Tensor._make(mask)


@register(category="shape", kind="view")
def combinations(input, r=2, with_replacement=False):
    """All length-r combinations of a 1-D tensor's elements (with repeats if with_replacement),
    in lexicographic order of positions, as rows of an [N, r] tensor (r = 0: an empty 1-D tensor)."""
    _check_1d(input)
    r = _int(r, "r")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.empty((0,), dtype=input._data.dtype))
    mask = _triu_mask(input._data.size, r, bool(with_replacement))
    grids = _meshgrid([input] * r, "ij")
    return stack([g.masked_select(mask) for g in grids], 1)   # Tensor method: no import of indexing
