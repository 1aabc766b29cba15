"""torch.nn.parallel on a machine without accelerators: DataParallel wraps and calls its module."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]

from ..._unmodelled import placeholder as _placeholder

# torch.nn.parallel.DistributedDataParallel: not modelled (no process groups); a placeholder that raises
# NotImplementedError when instantiated, so programs importing it at the top still import
DistributedDataParallel = _placeholder("torch.nn.parallel.DistributedDataParallel")
