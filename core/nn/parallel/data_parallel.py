"""torch.nn.DataParallel as torch runs it when no GPU is available: it keeps the module as `.module`,
sets device_ids = [], and forward calls the module unchanged (no scatter, replicate or gather)."""
from __future__ import annotations

from ..module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """DataParallel(module, device_ids=None, output_device=None, dim=0): with no accelerator, a wrapper
    whose forward is module(*inputs, **kwargs); state_dict keys gain the `module.` prefix."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """torch.nn.parallel.data_parallel: without an accelerator torch cannot choose a device type."""
    raise RuntimeError("device type could not be determined")
