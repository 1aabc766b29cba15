"""index_put / index_put_: values written (or accumulated) where a tuple of index tensors points."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from .. import registry
from ..inplace import check_inplace
from ..registry import register
from ._common import _assert_no_overlap
from .advanced import (IndexPutBackward0, _check_put_value, _dtype_match, _prep_adv, _put_writer, _region_positions,
                       _write_inplace)


def _index_put_entries(input, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    entries = []
    dim = 0
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
        entries.append((dim, t._data))
        dim += t._data.ndim if t._data.dtype in (np.bool_, np.uint8) else 1
    nd = input._data.ndim
    if len(indices) > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {len(indices)})")
    return entries



@register(category="indexing", methods=("index_put",), kind="scatter")
def index_put(input, indices, values, accumulate=False):
    """Copy of input with values written where a tuple of index tensors points (accumulate=True adds).

    Index tensors (int or bool) address the leading dims and broadcast together; with accumulate=True
    duplicate positions accumulate."""
    entries = _index_put_entries(input, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if not entries:
        raise RuntimeError("index_put(): expected at least one index tensor")
    per_dim = _prep_adv(input._data.shape, entries)
    v = _check_put_value(per_dim, input._data.shape, values, entries)
    _dtype_match(input._data, values, entries)
    write = _put_writer(per_dim, v, accumulate, input._data.shape)
    if STATE.grad_enabled and (input._requires_grad or values._requires_grad):
        pos = _region_positions(input._data.shape, (), per_dim) if any(p is not None for p in per_dim) else None
        return IndexPutBackward0.apply(input, values, write=write, inplace=False, positions=pos,
                                       accumulate=bool(accumulate))
    out = input._data.copy()
    write(out)
    return Tensor._make(out)


def index_put_(self, indices, values, accumulate=False):
    """In-place index_put (see index_put)."""
    entries = _index_put_entries(self, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put_(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if not entries:
        raise RuntimeError("index_put_(): expected at least one index tensor")
    check_inplace(self)
    per_dim = _prep_adv(self._data.shape, entries)
    v = _check_put_value(per_dim, self._data.shape, values, entries)
    _dtype_match(self._data, values, entries)
    _assert_no_overlap(self._data, values._data)
    write = _put_writer(per_dim, v, accumulate, self._data.shape)
    _write_inplace(self, values, IndexPutBackward0, write, (), per_dim, bool(accumulate))
    return self


registry.export(index_put_)
registry.add_inplace("index_put", "index_put_", index_put_)
