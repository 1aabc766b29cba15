"""`torch.utils`: only `torch.utils.data` is provided."""
from . import data  # noqa: F401
