"""Safe evaluator for user expressions written in PyTorch syntax.

Expressions come from CI files and other people's scripts, so this module is a security
boundary. The source is parsed with ``ast.parse`` and interpreted by walking a whitelist
of node types; nothing is compiled to code or handed to eval/exec. Three layers:

* ``parse``: static checks (size, nesting, node types, ``_`` names and attributes).
* ``evaluate`` resolves every name, module attribute chain and call target before any
  statement runs, so most refusals happen before anything executes.
* While running, every produced value must be of a whitelisted type, and Python-int,
  string, list and tensor-allocation sizes are checked *before* the operation.
"""
from __future__ import annotations

import importlib
import math

__all__ = ["Limits", "ExprError", "Program", "Backend", "ALIASES", "parse", "evaluate", "run_program",
           "ProgramResult", "StatementRecord", "error_line", "error_prefix", "located"]


from .expr_parse import (  # noqa: F401 - Limits, Program: part of this module's API
    ALIASES, ALLOWED_MEMBERS, DENIED_MEMBERS, DENIED_PREFIXES, SUBMODULES, ExprError, Limits, Program,
    located)
from .expr_validate import parse  # noqa: F401 - part of this module's API
from .program import Interpreter, ProgramResult, StatementRecord, error_line, error_prefix  # noqa: F401


# ---------------------------------------------------------------------------------------
# What expressions may reach
# ---------------------------------------------------------------------------------------

class Backend:
    """The modules (by canonical dotted path: "torch", "torch.nn.functional", ...), tensor
    class(es) and inert value classes (Size, dtype) an expression may reach. Built from
    ``core`` by default; tests and other engines can pass their own."""

    def __init__(self, modules: dict, tensor_types: tuple, value_types: tuple = ()):
        self.modules = dict(modules)
        self.tensor_types = tuple(tensor_types)
        self.value_types = tuple(value_types)
        # Classes an expression may instantiate: tensors and tuple-like values (Size).
        # Not dtype: a hand-made dtype could wrap NumPy's object dtype.
        self.constructible = self.tensor_types + tuple(
            t for t in self.value_types if issubclass(t, tuple))
        self._members: dict[str, frozenset] = {}

    @classmethod
    def from_module(cls, mod) -> Backend:
        """Backend for a core-like package: its submodules in SUBMODULES that import."""
        modules = {"torch": mod}
        for sub in SUBMODULES:
            try:
                modules["torch." + sub] = importlib.import_module(f"{mod.__name__}.{sub}")
            except ImportError:
                pass
        value_types = []
        dtypes_mod = getattr(mod, "dtypes", None)
        for candidate in (getattr(mod, "Size", None), getattr(mod, "dtype", None),
                          getattr(dtypes_mod, "dtype", None)):
            if isinstance(candidate, type) and candidate not in value_types:
                value_types.append(candidate)
        return cls(modules, (mod.Tensor,), tuple(value_types))

    def members(self, path: str) -> frozenset:
        """Public names of a module that expressions may use: its ``__all__`` minus denials."""
        if path not in self._members:
            names = getattr(self.modules[path], "__all__", ())
            self._members[path] = frozenset(
                n for n in names if isinstance(n, str) and n.isidentifier()
                and not n.startswith("_") and n not in DENIED_MEMBERS
                and (not n.startswith(DENIED_PREFIXES) or n in ALLOWED_MEMBERS)
                and f"{path}.{n}" not in self.modules)
        return self._members[path]

    def default_itemsize(self) -> int:
        try:
            return int(self.modules["torch"].get_default_dtype().itemsize)
        except Exception:
            return 4


_CORE_BACKEND: list = []


def _core_backend() -> Backend:
    if not _CORE_BACKEND:
        import core  # lazily: core may be incomplete when this module is imported
        _CORE_BACKEND.append(Backend.from_module(core))
    return _CORE_BACKEND[0]


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------

def _float(x=0.0):
    """Python's float(): numbers, one-element tensors, and the strings 'nan', 'inf', '1e-3'..."""
    if isinstance(x, str) and len(x) > 64:
        raise ValueError("float(): string too long")
    return float(x)


_CONSTANTS = (("nan", math.nan), ("inf", math.inf), ("pi", math.pi), ("e", math.e))
# Always available, as in PyTorch code: math's constants, float('nan'); torch.nan, torch.inf,
# torch.pi, torch.e on the core backend (another backend answers for its own module).
BUILTINS = {**{f"math.{n}": v for n, v in _CONSTANTS}, "math.tau": math.tau, "float": _float}
TORCH_CONSTANTS = {f"{mod}.{n}": v for mod in ("torch", "core") for n, v in _CONSTANTS}


def _program(source_or_program, limits):
    if isinstance(source_or_program, Program):
        if limits is not None and limits != source_or_program.limits:
            return parse(source_or_program.source, limits)
        return source_or_program
    return parse(source_or_program, limits)


def _extras(extra_callables, backend):
    extras = {}
    for key, fn in (extra_callables or {}).items():
        if not isinstance(key, str) or not all(p.isidentifier() and not p.startswith("_")
                                               for p in key.split(".")):
            raise ValueError(f"extra_callables: invalid name {key!r}")
        if not callable(fn):
            raise ValueError(f"extra_callables: {key!r} is not callable")
        extras[key] = fn
    return {**BUILTINS, **(TORCH_CONSTANTS if backend is None else {}), **extras}


def run_program(source_or_program, names: dict | None = None, *, extra_callables: dict | None = None,
                limits: Limits | None = None, backend: Backend | None = None, out=None,
                record: bool = True) -> ProgramResult:
    """Run a program (services/program.py); return its ProgramResult: ``value`` (the last top-level
    statement's value), ``namespace`` (the caller's names, then every name bound, in order) and
    ``records`` (one StatementRecord per top-level simple statement: span, new bindings, grad mode,
    error). ``out(text)`` receives what print() writes (default: sys.stdout). Refusals raise
    ExprError before (static) or while (values, sizes, budgets) the program runs; exceptions the
    program raises (torch's RuntimeError...) propagate unchanged, with ``error_line(e)`` giving the
    line of the statement that raised them."""
    program = _program(source_or_program, limits)
    interp = Interpreter(program, dict(names or {}), _extras(extra_callables, backend), program.limits,
                         backend or _core_backend(), out=out, record=record)
    interp.resolve()
    value = interp.run()
    return ProgramResult(value, interp.globals.vars, interp.records, interp.records_truncated,
                         interp.output_chars)


def evaluate(source_or_program, names: dict, *, extra_callables: dict | None = None,
             limits: Limits | None = None, backend: Backend | None = None, out=None):
    """Run an expression program; return ``(result, namespace)``.

    ``names`` are the caller's values (tensors, numbers...). ``extra_callables`` maps names,
    or exact dotted chains such as ``"MultiplyAdd.apply"``, to functions the expression may
    call; a class given by plain name may also be called through its ``apply``. The result
    is the value of the last statement (for an assignment, the assigned value); the
    namespace holds the caller's names plus every assigned name, in assignment order.
    """
    result = run_program(source_or_program, names, extra_callables=extra_callables, limits=limits,
                         backend=backend, out=out, record=False)
    return result.value, result.namespace
