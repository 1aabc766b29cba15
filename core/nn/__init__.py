"""core.nn: PyTorch's torch.nn over core tensors (`import core.nn as nn`)."""
from __future__ import annotations

from . import functional, init, parallel, utils
from .modules import *  # noqa: F401,F403  (the layer classes; their list is modules.__all__)
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["functional", "init", "parallel", "utils", "Buffer", "Parameter", "UninitializedBuffer",
           "UninitializedParameter", *_modules_all]
