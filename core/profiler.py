"""`torch.profiler`: the same recorder as `torch.autograd.profiler` under the newer names."""
from .autograd.profiler import ProfilerActivity, profile, record_function  # noqa: F401
