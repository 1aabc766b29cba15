"""Helpers of the layer modules: empty parameter storage, int pairs (torch/nn/modules/utils.py)."""
from __future__ import annotations

from ... import creation as _creation


def _empty(shape, dtype=None, device=None):
    """Parameter storage (zeros; reset_parameters fills it); `device=` checked as torch.empty's."""
    return _creation.zeros(tuple(shape), dtype=dtype, device=device)


def _pair(x):
    if isinstance(x, (tuple, list)):
        return tuple(x) if len(x) != 1 else (x[0], x[0])
    return (x, x)
