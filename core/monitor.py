"""torch.monitor: not modelled by core; its public names are placeholders (core/_unmodelled.py)."""
from ._unmodelled import stub_module

__getattr__, __dir__, __all__ = stub_module("monitor")
