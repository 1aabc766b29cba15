"""The helpers torch.masked's functions share: the canonical mask (broadcast to input's shape, bool), the
identity value each operation fills masked-out elements with, and the canonical dim tuple."""
from __future__ import annotations

import math

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import FUNCTIONS

INT_TO_LONG = ("uint8", "bool", "int8", "int16", "int32")


def canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims (None or () mean all dims)."""
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def input_mask(input, mask):
    """The canonical input mask: mask broadcast to input's shape, as bool."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = FUNCTIONS["broadcast_to"](mask.clone(), input.shape)
    return mask.to(dtype=_dt.bool_)


def identity(op_name, input, *args):
    """The value that leaves op unchanged (None where it is not uniquely defined), as a 0-d tensor."""
    dt = input.dtype
    is_float = input.is_floating_point()
    info = None if is_float else np.iinfo(dt.np) if dt.name != "bool" else None
    value = None
    if op_name in ("sum", "cumsum"):
        value = 0
    elif op_name in ("prod", "cumprod"):
        value = 1
    elif op_name in ("amax", "argmax", "logaddexp", "logsumexp"):
        value = -math.inf if is_float else (info.min if info is not None else None)
    elif op_name in ("amin", "argmin"):
        value = math.inf if is_float else (info.max if info is not None else None)
    elif op_name == "norm":
        value = math.inf if (args and args[0] == -math.inf) else 0
    elif op_name == "median":
        return Tensor._make(np.array(np.nan, dtype=dt.np if is_float else np.float32))
    elif op_name in ("mean", "var", "std"):
        return None
    if value is None:
        raise NotImplementedError(f"identity of {op_name} on {dt} input")
    return Tensor._make(np.array(value, dtype=dt.np))


def combine(op_name, input, mask, *args):
    """input with its masked-out elements replaced by op's identity (input itself when mask is None)."""
    if mask is None:
        return input
    return FUNCTIONS["where"](input_mask(input, mask), input, identity(op_name, input, *args))
