"""torch.finfo / torch.iinfo: the numerical limits of a floating point / integer dtype, as Python numbers,
with torch's reprs ("%g" with 6 digits) and errors."""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt


def _g(x):
    return f"{x:g}"


class finfo:
    """finfo(type=None): bits, eps, max, min, tiny (= smallest_normal), resolution and dtype of a floating type
    (the default dtype when omitted)."""

    def __init__(self, type=None):
        d = _dt.get_default_dtype() if type is None else type
        if not isinstance(d, _dt.dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(d.np)
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    __hash__ = None   # torch's finfo objects are unhashable

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, dtype={self.dtype})")


class iinfo:
    """iinfo(type): bits, max, min and dtype of an integer type."""

    def __init__(self, type):
        if isinstance(type, _dt.dtype) and type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        if not isinstance(type, _dt.dtype) or type.np == np.bool_:
            raise TypeError(f"{type!r} is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"
