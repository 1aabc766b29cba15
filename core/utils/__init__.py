"""`torch.utils`: `torch.utils.data` and `torch.utils.checkpoint`."""
from . import checkpoint, data  # noqa: F401
