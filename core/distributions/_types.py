"""The typing aliases torch.distributions imports from torch.types (annotations only)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Union

_size = Sequence[int]
_Number = Union[int, float, bool]
Number = _Number
