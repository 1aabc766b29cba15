"""torch.jit.script / torch.jit.trace as eager wrappers.

A scripted or traced Module shares the original's parameters and buffers (the same dicts), wraps its
children likewise and runs the original class's forward on itself (its own train/eval state, as
torch's scripted copy), so outputs, gradients and state_dict keys are torch's; it prints as torch's (`RecursiveScriptModule(original_name=Linear)`, a traced
module as `Linear(original_name=Linear)`). A scripted or traced function is a `torch.jit.ScriptFunction`
calling the original."""
from __future__ import annotations

import functools
import inspect
import warnings

from ..nn.module import Module


def _deprecated(name, use="`torch.compile` or `torch.export`"):
    """torch 2.13's DeprecationWarning on every TorchScript entry point."""
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to {use}.", DeprecationWarning, stacklevel=3)


class ScriptModule(Module):
    """Base of scripted and traced modules."""


class RecursiveScriptModule(ScriptModule):
    """torch.jit.script(module): the original's parameters/buffers, children wrapped, its forward run."""

    def __init__(self, orig):
        super().__init__()
        d = self.__dict__
        d["_parameters"], d["_buffers"] = orig._parameters, orig._buffers
        d["_non_persistent_buffers_set"] = orig._non_persistent_buffers_set
        d["_modules"] = {k: (type(self)._wrap(v) if v is not None else None) for k, v in orig._modules.items()}
        d["original_name"], d["_jit_orig"], d["training"] = type(orig).__name__, orig, orig.training

    @classmethod
    def _wrap(cls, mod):
        return cls(mod)

    def forward(self, *args, **kwargs):
        return type(self._jit_orig).forward(self, *args, **kwargs)

    def __getattr__(self, name):
        """Parameters, buffers and wrapped children first; then the original's methods and properties
        bound to this module (so its own train/eval state is used, as a scripted copy's), then its other
        attributes (as scripting copies them)."""
        try:
            return super().__getattr__(name)
        except AttributeError:
            orig = self.__dict__.get("_jit_orig")
            if orig is None:
                raise
        static = inspect.getattr_static(type(orig), name, None)
        if static is not None and hasattr(static, "__get__") and not isinstance(static, (staticmethod, classmethod)):
            return static.__get__(self, type(self))
        return getattr(orig, name)

    def extra_repr(self):
        return f"original_name={self.original_name}"

    def save(self, f, **kwargs):
        save(self, f)


class TracedModule(RecursiveScriptModule):
    """A submodule of a traced module: printed under its original class name."""

    @classmethod
    def _wrap(cls, mod):
        return TracedModule(mod)

    def _get_name(self):
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """torch.jit.trace(module, example_inputs)."""


class ScriptFunction:
    """torch.jit.script(fn) / trace(fn, ...): calls the original function."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn, updated=())

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def save(self, f, **kwargs):
        save(self, f)


ScriptFunction.__module__, ScriptFunction.__qualname__ = "torch.jit", "torch.jit.ScriptFunction"   # torch's repr


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A Module -> RecursiveScriptModule, a function -> ScriptFunction (no TorchScript compilation: code
    TorchScript rejects runs here; classes are not supported)."""
    _deprecated("script")
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return RecursiveScriptModule(obj)
    if inspect.isclass(obj):
        raise NotImplementedError("torch.jit.script of a class is not supported by core (it runs Python eagerly)")
    if callable(obj):
        return ScriptFunction(obj)
    raise RuntimeError(f"Cannot script object of type {type(obj).__name__}")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """Run func once on the example inputs (as torch's tracer does), then return a wrapper that runs it
    eagerly on any input (no recorded graph: data-dependent control flow is not frozen)."""
    _deprecated("trace")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("'NoneType' object is not iterable")
    args = example_inputs if isinstance(example_inputs, tuple) else (() if example_inputs is None else
                                                                     (example_inputs,))
    func(*args, **(example_kwarg_inputs or {}))
    if isinstance(func, Module):
        return TopLevelTracedModule(func)
    return ScriptFunction(func)


def _unsupported(what):
    raise NotImplementedError(f"torch.jit.{what} is not supported by core: scripted and traced programs run "
                              f"eagerly and have no TorchScript archive (use torch.save(model.state_dict(), f))")


def save(m, f, _extra_files=None):
    """Not supported: raises NotImplementedError."""
    _deprecated("save", "`torch.export`")
    _unsupported("save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Not supported: raises NotImplementedError."""
    _deprecated("load", "`torch.export`")
    _unsupported("load")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """The module itself, in eval mode (torch freezes a scripted module in eval mode)."""
    warnings.warn("`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=2)
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod
