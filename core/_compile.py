"""torch.compile on core: every backend runs the program eagerly, so results are eager PyTorch's.

What is mirrored: the arguments torch.compile checks up front (a callable, mode vs options, the mode names,
the backend names of a CPU build) and what is printable: a compiled function is a functools.wraps wrapper;
a compiled Module is an `OptimizedModule` (torch._dynamo.eval_frame's): its repr is
`OptimizedModule(\\n  (_orig_mod): Net(...)\\n)`, its state_dict / named_parameters keys are prefixed
`_orig_mod.`, attribute reads and writes and `training` go to the original module. Not mirrored: graph
breaks, recompilation, guards, `fullgraph=True` errors, inductor options (any options dict is accepted)."""
from __future__ import annotations

import functools
import sys

from .nn.module import Module

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch._dynamo.list_backends() on a CPU build, plus the debug backends it accepts by name
_BACKENDS = ("cudagraphs", "inductor", "onnxrt", "openxla", "tvm", "eager", "aot_eager", "aot_eager_decomp_partition",
             "aot_inductor", "aot_ts", "aot_eager_default_partitioner", "relu_compile_error_TESTING_ONLY")


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


class OptimizedModule(Module):
    """What torch.compile returns for a Module: the original under `_orig_mod`, run eagerly."""
    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "forward", "_forward", "__dict__", "_super_module_initialized"}

    def __init__(self, mod, dynamo_ctx=None):
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_super_module_initialized", False)
        super().__init__()
        object.__setattr__(self, "_super_module_initialized", True)
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = mod
        self.forward = mod.__call__

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self.__dict__["_modules"]["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __dir__(self):
        own = self._orig_mod.__dir__()
        return own + [a for a in super().__dir__() if a not in own]


def _check(mode, options, backend):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile: a callable giving eager results (a Module: an OptimizedModule); called without a
    model, the decorator that compiles one; disable=True returns the model itself."""
    _check(mode, options, backend)
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    _patch_once()
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled


_PATCHED = [False]


def _patch_once():
    """torch._dynamo's TorchPatcher.patch, run by the first model compiled: among its effects, distributions no
    longer validate their arguments by default (Distribution.set_default_validate_args(False)) in this process."""
    if not _PATCHED[0]:
        _PATCHED[0] = True      # core.distributions reads it when it is imported later
        dist = sys.modules.get("core.distributions.distribution")
        if dist is not None:
            dist.Distribution.set_default_validate_args(False)


def is_compiling():
    """torch.compiler.is_compiling(): False (core never traces)."""
    return False
