"""The op registry: each public op is registered once with its metadata. Tensor methods,
reflected dunders and in-place variants are recorded here (METHODS) and attached by core/_bind.py;
the `core.X` namespace and the CLI's commands come from the same entries (signature + metadata)."""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field

from .. import _methods
from .inplace import make_inplace


@dataclass
class OpInfo:
    """One registered op. `fn` is the public function (PyTorch's signature); `rule`
    gives the `out[i][j] = ...` formula for data-movement ops as a function of (ndim, dim)."""

    name: str
    fn: object
    category: str
    summary: str
    methods: tuple = ()
    inplace: str | None = None
    kind: str | None = None          # 'gather' | 'scatter' | 'view' | None: drives --explain
    rule: object = None
    cli: bool = False
    extras: dict = field(default_factory=dict)

    @property
    def signature(self):
        return inspect.signature(self.fn)


OPS: dict[str, OpInfo] = {}
FUNCTIONS: dict[str, object] = {}
METHODS = _methods.METHODS   # Tensor's methods, attached by core/_bind.py
method = _methods.method


def add_inplace(opname, name, fn):
    """Give the registered op `opname` the custom in-place variant `name` (e.g. a fast
    `scatter_` that writes straight into self), recorded for binding like any method."""
    OPS[opname].inplace = name
    METHODS[name] = fn
    return fn


# PyTorch's argument parser accepts NumPy's names for some parameters (python_arg_parser.cpp,
# numpy_compatibility_arg_names): x.sum(axis=0, keepdims=True), torch.cat(ts, axis=1). Only the
# dim/keepdim aliases are honoured: the input/other ones (x1, x2) would put a wrapper frame on every
# elementwise op for keywords real programs do not use.
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def accept_numpy_aliases(fn):
    """Wrap fn so NumPy-style keywords reach the PyTorch parameter they alias (only for the
    parameters fn has); fn itself is untouched when no alias applies."""
    params = inspect.signature(fn).parameters
    table = {a: p for a, p in NUMPY_ALIASES.items() if p in params and a not in params}
    if not table:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            for alias in table.keys() & kwargs.keys():
                if table[alias] in kwargs:
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{alias}'")
                kwargs[table[alias]] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return call


def register(name=None, *, category, methods=(), inplace=None, function=True, summary=None,
             kind=None, rule=None, cli=False, **extras):
    """Register a public op function. `methods` are attached to Tensor (the function's
    first parameter is self); `inplace` is a method name (generic in-place variant built
    from the out-of-place function) or a (name, callable) pair for a custom in-place."""

    def deco(fn):
        fn = accept_numpy_aliases(fn)
        opname = name or fn.__name__
        doc = summary or (inspect.getdoc(fn) or "").split("\n")[0]
        inplace_name = inplace[0] if isinstance(inplace, tuple) else inplace
        OPS[opname] = OpInfo(opname, fn, category, doc, tuple(methods), inplace_name, kind, rule, cli, extras)
        if function:
            FUNCTIONS[opname] = fn
        for m in methods:
            METHODS[m] = fn
        if inplace is not None:
            METHODS[inplace_name] = inplace[1] if isinstance(inplace, tuple) else make_inplace(fn, inplace)
        return fn

    return deco


def export(fn=None, *, name=None):
    """Expose a non-op helper (creation functions, utilities) as core.<name>."""
    def deco(f):
        FUNCTIONS[name or f.__name__] = f
        return f
    return deco(fn) if fn is not None else deco
