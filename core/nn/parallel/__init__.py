"""torch.nn.parallel on a machine without accelerators: DataParallel wraps and calls its module."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
