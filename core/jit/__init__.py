"""torch.jit on core, a minimal faithful subset.

Mirrored: script / trace return callables with the original's outputs and gradients (modules share the
original's parameters, print as torch's script/traced modules, have its state_dict keys and train/eval);
ignore / unused / export mark functions as torch's do; is_scripting / is_tracing are False; annotate;
Final. Not mirrored: TorchScript compilation (no type checking or compile errors: code TorchScript would
reject runs), `.code` / `.graph`, traced graphs (trace does not freeze control flow or warn
TracerWarning; a traced tensor constant stays a tensor, so `x * c` is MulBackward0 where torch's trace
records MulBackward1), scripting classes, and TorchScript archives: save / load raise NotImplementedError."""
from ._modifiers import (Final, FunctionModifiers, annotate, export, ignore, is_scripting, is_tracing,
                         unused)
from ._script import (RecursiveScriptModule, ScriptFunction, ScriptModule, TopLevelTracedModule,
                      TracedModule, freeze, load, save, script, trace)

__all__ = ["Final", "FunctionModifiers", "RecursiveScriptModule", "ScriptFunction", "ScriptModule",
           "TopLevelTracedModule", "TracedModule", "annotate", "export", "freeze", "ignore", "is_scripting",
           "is_tracing", "load", "save", "script", "trace", "unused"]
