"""searchsorted and bucketize with PyTorch's side/right/sorter rules and errors."""
from __future__ import annotations

import math

import numpy as np

from ... import dtypes as _dt
from ...dtypes import scalar_name as _short
from ...tensor import Tensor
from ..registry import register
from ._select import _not_implemented, _out1


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _binary_search(bd, vals, right, sorter):
    """cus_lower_bound / cus_upper_bound per value, with PyTorch's comparisons (a NaN boundary
    compares false): bd is (rows, n), vals (rows, m)."""
    rows, n = bd.shape
    m = vals.shape[1]
    start = np.zeros((rows, m), np.int64)
    end = np.full((rows, m), n, np.int64)
    r = np.arange(rows)[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            act = start < end
            if not act.any():
                return start
            mid = start + ((end - start) >> 1)
            midc = np.minimum(mid, n - 1)
            j = sorter[r, midc] if sorter is not None else midc
            mv = bd[r, j]
            go_right = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(act & go_right, mid + 1, start)
            end = np.where(act & ~go_right, mid, end)


def _searchsorted(boundaries, input, out_int32, right, side, sorter, scalar_input):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} "
                               "while right was True")
        right = side == "right"
    bd = boundaries._data
    if sorter is not None:
        if sorter._data.shape != bd.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {_shape_str(bd.shape)}and got sorter tensor {_shape_str(sorter._data.shape)}")
        if sorter._data.dtype != np.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{_short(sorter.dtype)}")
        s = sorter._data
        if s.size and (s.min() < 0 or s.max() >= s.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    v = input._data
    if not (v.ndim > 0 or (v.size == 1 and bd.ndim == 1)):
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({bd.ndim}) and input value's dim({v.ndim}) "
                           f"numel({v.size})")
    if bd.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if bd.ndim != 1 and (bd.ndim != v.ndim or bd.shape[:-1] != v.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{_shape_str(bd.shape)} and input value tensor {_shape_str(v.shape)}")
    common = _dt.result_type(boundaries, input.item() if scalar_input else input)
    if common is _dt.bool_:
        _not_implemented("searchsorted_out_cpu", boundaries)
    bd = bd.astype(common.np, copy=False)
    v = v.astype(common.np, copy=False)
    n = bd.shape[-1]
    if bd.ndim == 1:
        bd2, v2 = bd.reshape(1, n), v.reshape(1, -1)
        s2 = sorter._data.reshape(1, n) if sorter is not None else None
    else:
        rows = math.prod(bd.shape[:-1])   # not -1: it cannot be inferred when a dim is 0
        bd2, v2 = bd.reshape(rows, n), v.reshape(rows, v.shape[-1] if v.ndim else 1)
        s2 = sorter._data.reshape(rows, n) if sorter is not None else None
    if n == 0 or v2.size == 0:
        res = np.zeros(v2.shape, np.int64)
    else:
        res = _binary_search(bd2, v2, right, s2)
    return Tensor._make(res.reshape(v.shape).astype(np.int32 if out_int32 else np.int64))


@register(category="sorting")
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Insertion indices of input's values into the innermost dim of sorted_sequence (left or right side)."""
    scalar = not isinstance(input, Tensor)
    if scalar:
        input = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np))
    return _out1(_searchsorted(sorted_sequence, input, out_int32, right, side, sorter, scalar), out)


@register(category="sorting")
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each value given 1-d sorted boundaries (torch.searchsorted with roles swapped)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)
