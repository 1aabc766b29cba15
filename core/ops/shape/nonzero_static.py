"""torch.nonzero_static(input, *, size, fill_value=-1): nonzero's (n, ndim) int64 indices truncated or
padded with fill_value to exactly size rows."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ..registry import register


@register(category="indexing", methods=("nonzero_static",))
def nonzero_static(input, *, size, fill_value=-1):
    """Indices of the non-zero elements, as a (size, input.dim()) int64 tensor (padded with fill_value)."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    idx = np.argwhere(input._data)[:size].astype(np.int64)
    out = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    out[:len(idx)] = idx
    return Tensor._make(out)
