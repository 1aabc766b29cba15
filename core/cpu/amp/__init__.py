"""torch.cpu.amp: the deprecated CPU spellings of torch.amp's autocast and GradScaler (FutureWarning)."""
from .autocast_mode import autocast
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]
