"""torch.cpu: the CPU device module (always available, one device) and torch.cpu.amp."""
from __future__ import annotations

from . import amp  # noqa: F401


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU ops finish before they return."""
