"""torch.cpu.amp.autocast: torch.amp.autocast("cpu", ...) with torch's deprecation warning."""
from __future__ import annotations

import warnings

from ...amp import autocast_mode as _mode


class autocast(_mode.autocast):
    """Deprecated: torch.amp.autocast('cpu', ...)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=_mode.bfloat16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)
