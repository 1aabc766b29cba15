"""torch.distributed: not modelled by core; its public names are placeholders (core/_unmodelled.py)."""
from .._unmodelled import stub_module


def is_available():
    """False: core has no process groups (torch.distributed is a CPU build feature core does not model)."""
    return False


def is_initialized():
    """False: no default process group."""
    return False


__getattr__, __dir__, __all__ = stub_module("distributed", {"is_available": is_available,
                                                            "is_initialized": is_initialized})
