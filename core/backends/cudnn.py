"""torch.backends.cudnn: unavailable, but its flags are plain settable attributes (torch's defaults)."""
import contextlib

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set the flags for the duration of the block, then restore them (as torch.backends.cudnn.flags)."""
    g = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    old = {n: g[n] for n in names}
    g.update(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit, deterministic=deterministic,
             allow_tf32=allow_tf32)
    try:
        yield
    finally:
        g.update(old)
