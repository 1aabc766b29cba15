"""torch.jit's function modifiers (torch._jit_internal): decorators that only mark a function."""
from __future__ import annotations

import typing
import warnings

Final = typing.Final


class FunctionModifiers:
    """How TorchScript treats a marked function (the strings are torch's)."""
    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = "if this method is not scripted, copy the python method onto the scripted model"
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"


def export(fn):
    """Mark a method to be compiled even if forward does not call it."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def unused(fn):
    """Mark a function whose calls TorchScript replaces with a raise."""
    if isinstance(fn, property):
        for f in (fn.fget, fn.fset):
            if f is not None:
                f._torchscript_modifier = FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def ignore(drop=False, **kwargs):
    """@ignore leaves the function as a Python call; @ignore(drop=True) (deprecated) as unused."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", stacklevel=2, category=FutureWarning)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on "
                      "compilation. Use torch.jit.unused now. {}", stacklevel=2, category=FutureWarning)

    def decorator(fn):
        fn._torchscript_modifier = FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE
        return fn
    return decorator


def is_scripting():
    """False: core runs Python, never TorchScript."""
    return False


def is_tracing():
    """False outside torch.jit.trace's recording (core's trace does not record)."""
    return False


def annotate(the_type, the_value):
    """The value, unchanged (a type hint for the TorchScript compiler)."""
    return the_value
