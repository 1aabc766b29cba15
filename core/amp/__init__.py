"""torch.amp: autocast (the state, without casts: see autocast_mode) and GradScaler (imported on first use:
`import core` reads the autocast state functions from here)."""
import importlib as _importlib

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available


def __getattr__(name):
    if name in ("GradScaler", "grad_scaler"):
        module = _importlib.import_module(f"{__name__}.grad_scaler")
        globals().update(GradScaler=module.GradScaler, grad_scaler=module)
        return globals()[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
