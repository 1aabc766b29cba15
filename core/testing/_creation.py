"""torch.testing.make_tensor: torch/testing/_creation.py's draws (randint for bool/integers, uniform_ for
floats), default ranges, clamping, checks and error texts; the same generator calls give the same values."""
from __future__ import annotations

import collections.abc
import functools
import math
import warnings

from .. import dtypes as _dt
from ..creation import empty
from ..ops.random import randint
from ..type_info import finfo, iinfo

_INTEGRAL = (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)
_FLOATING = (_dt.float16, _dt.float32, _dt.float64)
_BOOL_OR_INTEGRAL = (_dt.bool_, *_INTEGRAL)


def _modify_low_high(dtype, low, high, *, lowest, highest, default_low, default_high):
    """Defaults, NaN / order / range checks, clamping to the dtype's range; integers rounded up."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    elif low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` with values drawn uniformly from [low, high) (defaults by dtype: bool [0, 2),
    uint8 [0, 10), signed integers [-9, 10), floats [-9, 9))."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dt.bool_:
        low, high = _modify_low_high(dtype, low, high, lowest=0, highest=2, default_low=0, default_high=2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = _modify_low_high(dtype, low, high, lowest=info.min,
                                     highest=info.max + (1 if dtype is not _dt.int64 else 0),
                                     default_low=-9, default_high=10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = finfo(dtype)
        low, high = _modify_low_high(dtype, low, high, lowest=info.min, highest=info.max,
                                     default_low=-9, default_high=9)
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). "
                        f"To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result
