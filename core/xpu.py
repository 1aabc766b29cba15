"""torch.xpu: not modelled by core; its public names are placeholders (core/_unmodelled.py)."""
from ._unmodelled import stub_module


def is_available():
    """False, as torch on a machine without XPUs."""
    return False


def device_count():
    return 0


__getattr__, __dir__, __all__ = stub_module("xpu", {"is_available": is_available, "device_count": device_count})
