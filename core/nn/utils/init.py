"""torch.nn.utils.skip_init: build a module without running its parameter initialisation."""
from __future__ import annotations

import inspect

from ... import random as _random
from ..module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with uninitialised parameters and buffers, drawing nothing from the
    default generator (torch builds it on the meta device, then to_empty; core builds it and restores the
    generator's state)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    return module.to_empty(device=final_device)
