"""`torch.backends`: the flags and availability queries of a CPU-only PyTorch build."""
from . import cpu, cuda, cudnn, mha, mkldnn, mps, openmp  # noqa: F401
