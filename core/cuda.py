"""`torch.cuda` as a CPU-only PyTorch build has it: nothing is available, seeding and memory
queries are harmless no-ops, and anything that needs a GPU raises torch's AssertionError."""
from __future__ import annotations

from .device import as_device

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _no_cuda(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available():
    """False: this build has no CUDA."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def get_arch_list():
    return []


def manual_seed(seed):
    """Harmless without CUDA (torch queues the seed for a lazy init that never happens)."""
    int(seed)


manual_seed_all = manual_seed


def seed():
    pass


seed_all = seed


def set_rng_state(new_state, device="cuda"):
    pass


def set_rng_state_all(new_states):
    pass


def get_rng_state_all():
    return []


def empty_cache():
    pass


def memory_stats(device=None):
    return {}


def _zero(device=None):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero
current_device = get_device_name = get_device_properties = get_device_capability = _no_cuda
synchronize = init = initial_seed = get_rng_state = current_stream = default_stream = mem_get_info = _no_cuda
ipc_collect = _no_cuda


def set_device(device):
    """torch reaches for a C binding that a CPU build lacks: AttributeError."""
    raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")


def reset_peak_memory_stats(device=None):
    raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")


class device:
    """torch.cuda.device(idx): constructs; entering it needs CUDA."""

    def __init__(self, device):
        self.idx = device if isinstance(device, int) or device is None else as_device(device).index

    def __enter__(self):
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


device.__module__ = "torch.cuda"
