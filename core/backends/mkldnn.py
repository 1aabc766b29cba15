"""torch.backends.mkldnn: torch's CPU build has oneDNN; the flag is settable (core ignores it)."""
import contextlib

enabled = True
deterministic = False


def is_available():
    return True


@contextlib.contextmanager
def flags(enabled=False, deterministic=False):
    g = globals()
    old = (g["enabled"], g["deterministic"])
    g.update(enabled=enabled, deterministic=deterministic)
    try:
        yield
    finally:
        g["enabled"], g["deterministic"] = old
