"""The padding layers (torch/nn/modules/padding.py): Constant/Zero/Reflection/Replication/CircularPad 1d-3d,
each F.pad with its mode, torch's padding tuples and reprs."""
from __future__ import annotations

from .. import functional as F
from ..module import Module


def _ntuple(n, x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


class _PadNd(Module):
    _MODE = "constant"
    _N = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(self._N, padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._MODE)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _N = 2


class ConstantPad2d(_ConstantPadNd):
    _N = 4


class ConstantPad3d(_ConstantPadNd):
    _N = 6


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    _MODE, _N = "reflect", 2


class ReflectionPad2d(_PadNd):
    _MODE, _N = "reflect", 4


class ReflectionPad3d(_PadNd):
    _MODE, _N = "reflect", 6


class ReplicationPad1d(_PadNd):
    _MODE, _N = "replicate", 2


class ReplicationPad2d(_PadNd):
    _MODE, _N = "replicate", 4


class ReplicationPad3d(_PadNd):
    _MODE, _N = "replicate", 6


class _CircularPadNd(_PadNd):
    _MODE = "circular"

    def forward(self, input):
        lo = self._N // 2 + 1   # the ranks accepted: unbatched or batched
        if input.dim() != lo and input.dim() != lo + 1:
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _N = 2


class CircularPad2d(_CircularPadNd):
    _N = 4


class CircularPad3d(_CircularPadNd):
    _N = 6


__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
