"""torch.multiprocessing: not modelled by core; its public names are placeholders (core/_unmodelled.py)."""
import multiprocessing as _mp

from ._unmodelled import NAMES, stub_module

# torch.multiprocessing re-exports Python's multiprocessing; its own additions (spawn, sharing strategies,
# tensors in shared memory) are placeholders
_REAL = {n: getattr(_mp, n) for n in NAMES["multiprocessing"] if hasattr(_mp, n)}
globals().update(_REAL)
__getattr__, __dir__, __all__ = stub_module("multiprocessing", _REAL)
