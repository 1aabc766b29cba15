"""core.nn: PyTorch's torch.nn over core tensors (`import core.nn as nn`)."""
from __future__ import annotations

from . import functional, init, utils
from .modules import *  # noqa: F401,F403  (the layer classes; their list is modules.__all__)
from .modules import __all__ as _modules_all
from .parameter import Parameter

__all__ = ["functional", "init", "utils", "Parameter", *_modules_all]
