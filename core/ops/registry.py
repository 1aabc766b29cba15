"""The op registry: each public op is registered once with its metadata. Tensor methods,
reflected dunders and in-place variants are recorded here (METHODS) and attached by core/_bind.py;
the `core.X` namespace comes from the same entries. Semantics only: nothing here is about a CLI."""
from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
import types

from .. import _methods, _warn
from .inplace import make_inplace


class OpInfo:
    """One registered op. `fn` is the public function (PyTorch's signature); `kind` says how its
    output elements relate to its inputs' ('gather', 'scatter', 'view' for data-movement ops, else None).
    (A plain class with a dataclass's constructor, repr and equality: @dataclass costs ~0.4 ms of
    `import core`.)"""

    FIELDS = ("name", "fn", "category", "summary", "methods", "inplace", "kind")
    __match_args__ = FIELDS
    __hash__ = None

    def __init__(self, name, fn, category, summary, methods=(), inplace=None, kind=None):
        self.name, self.fn, self.category, self.summary = name, fn, category, summary
        self.methods, self.inplace = methods, inplace
        self.kind = kind          # 'gather' | 'scatter' | 'view' | None

    def _values(self):
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __repr__(self):
        fields = ", ".join(f"{f}={v!r}" for f, v in zip(self.FIELDS, self._values()))
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

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


def _parameter_names(fn):
    """The names inspect.signature(fn) lists, read from the code object for a plain function
    (inspect.signature costs ~17 us an op, ~6 ms of `import core` over every registration)."""
    code = getattr(fn, "__code__", None)
    if code is None or hasattr(fn, "__wrapped__") or hasattr(fn, "__signature__"):
        return inspect.signature(fn).parameters
    flags = code.co_flags   # co_varnames: positional, keyword-only, then *args and **kwargs names
    star = bool(flags & inspect.CO_VARARGS) + bool(flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + star]


def accept_numpy_aliases(fn):
    """Wrap fn so NumPy-style keywords reach the PyTorch parameter they alias (only for the
    parameters fn has); fn itself is untouched when no alias applies."""
    params = _parameter_names(fn)
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
    _warn.TRANSPARENT.add(call.__code__)   # stacklevel-attributed warnings do not count this frame
    return call


# The end of a sentence: . ! or ? (not in "...", "e.g.", "i.e.", "vs."), maybe closing a parenthesis.
_SENTENCE_END = re.compile(r"(?<![.\s])(?<!e\.g)(?<!i\.e)(?<!\bvs)[.!?]\)?(?=\s|$)")
LONG_SUMMARY = 120   # a longer first sentence ends at its first '; ' clause in listings


def summary_of(doc: str) -> str:
    """A docstring's summary for listings and --help: the first sentence of its first paragraph
    (a sentence wrapped over several lines is joined, never cut mid-sentence); a first sentence
    longer than LONG_SUMMARY characters ends at its first '; ' clause. Always ends a sentence."""
    para = " ".join((doc or "").strip().split("\n\n")[0].split())
    if not para:
        return ""
    m = _SENTENCE_END.search(para)
    first = para[:m.end()] if m else para
    if len(first) > LONG_SUMMARY:   # the first '; ' outside parentheses and brackets
        for m in re.finditer("; ", first):
            head = first[:m.start()]
            if m.start() >= 30 and head.count("(") == head.count(")") and head.count("[") == head.count("]"):
                first = head
                break
    if _SENTENCE_END.search(first[-2:] + " ") is None:
        first = first.rstrip(";:, ") + "."
    return first


def register(name=None, *, category, methods=(), inplace=None, function=True, summary=None,
             kind=None):
    """Register a public op function. `methods` are attached to Tensor (the function's
    first parameter is self); `inplace` is a method name (generic in-place variant built
    from the out-of-place function) or a (name, callable) pair for a custom in-place."""

    def deco(fn):
        fn = accept_numpy_aliases(fn)
        opname = name or fn.__name__
        doc = summary or summary_of(inspect.getdoc(fn) or "")
        inplace_name = inplace[0] if isinstance(inplace, tuple) else inplace
        OPS[opname] = OpInfo(opname, fn, category, doc, tuple(methods), inplace_name, kind)
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


# -- lazy families (core/ops/families.py) ----------------------------------------------------------
# A family that `import core` does not import is represented by placeholders named in the generated
# table core/ops/lazy_table.py (names only, no metadata): a LazyOpInfo in OPS, a stub in FUNCTIONS, a
# LazyAttribute in METHODS (bound on Tensor by _bind, so dir/hasattr see it). The first use of any of
# them imports the family, whose registrations replace the placeholders (in place: OPS keeps its
# order); core/_bind.py then binds the real attributes (its hook in ON_LOAD).

LAZY: dict[str, str] = {}       # name in OPS / FUNCTIONS / METHODS -> the lazy family's module
ON_LOAD: list = []               # hooks called with a lazy family's module after it is imported


def load_family(module):
    """Import a lazy family (its ops register themselves), then run the binding hooks."""
    if module not in sys.modules:
        importlib.import_module(module)
    for hook in ON_LOAD:
        hook(module)


def _missing(module, name):
    return RuntimeError(f"{module} did not register {name!r}: core/ops/lazy_table.py is stale "
                        "(regenerate it: python scripts/regenerate.py)")


class LazyOpInfo(OpInfo):
    """The OpInfo of an op whose family is not imported yet: it knows its name and module only; any
    other field (summary, fn, signature, ...) imports the family and answers from the real entry, so
    what it reports is always the source's."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def real(self) -> OpInfo:
        load_family(self.module)
        info = OPS.get(self.name)
        if info is None or isinstance(info, LazyOpInfo):
            raise _missing(self.module, self.name)
        return info

    def __getattr__(self, field):   # only for the fields this placeholder does not hold
        if field.startswith("__"):
            raise AttributeError(field)
        return getattr(self.real(), field)

    def __repr__(self):
        return f"LazyOpInfo({self.module!r}, {self.name!r})"


class LazyAttribute:
    """Tensor.<name> from a lazy family: the first access imports the family and returns the real
    attribute (a bound method), which _bind then puts in this placeholder's place."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __get__(self, obj, cls=None):
        load_family(self.module)
        real = METHODS.get(self.name)
        if real is None or isinstance(real, LazyAttribute):
            raise _missing(self.module, self.name)
        return real.__get__(obj, cls) if hasattr(real, "__get__") else real


def lazy_function(module, name, table):
    """core.<name> from a lazy family (`table` is FUNCTIONS, or METHODS for torch.relu_-style aliases
    of in-place methods): imports the family, then calls the real function."""
    def stub(*args, **kwargs):
        load_family(module)
        fn = table.get(name)
        if fn is None or fn is stub or isinstance(fn, LazyAttribute):
            raise _missing(module, name)
        return fn(*args, **kwargs)
    stub.__name__ = stub.__qualname__ = name
    stub.lazy_family = module
    return stub


def add_lazy(module, names):
    """Placeholders for the lazy family `module` from its table entry (core/ops/lazy_table.py):
    {"ops": [...], "functions": [...], "methods": [...]}."""
    for name in names["ops"]:
        OPS[name] = LazyOpInfo(module, name)
    for name in names["functions"]:
        FUNCTIONS[name] = lazy_function(module, name, FUNCTIONS)
    for name in names["methods"]:
        METHODS[name] = LazyAttribute(module, name)
    for key in ("ops", "functions", "methods"):
        for name in names[key]:
            LAZY[name] = module


def is_placeholder(value) -> bool:
    """A lazy family's stand-in (LazyOpInfo, LazyAttribute or function stub), not yet replaced."""
    return isinstance(value, (LazyOpInfo, LazyAttribute)) or hasattr(value, "lazy_family")


# -- packages whose op modules are lazy one by one (shape, indexing) -------------------------------
# Such a package lists its lazy submodules in LAZY_SUBMODULES (each a unit of core/ops/lazy_table.py)
# and what it re-exports from them in a static table; the package's PEP 562 __getattr__ imports the
# submodule on first use of a name (`from ..indexing import gather`).

class ExportingPackage(types.ModuleType):
    """A package that keeps a re-exported name (indexing.take, the function) when the submodule of the
    same name (indexing/take.py) is imported: the import system would set the module in its place."""

    def __setattr__(self, name, value):
        if not (isinstance(value, types.ModuleType) and name in self.__dict__.get("_EXPORTS", ())):
            super().__setattr__(name, value)


def lazy_exports(package, exports):
    """Make the package `package` an ExportingPackage and return its module `__getattr__`: a name in
    `exports` ({submodule: names}) imports that submodule and answers its object."""
    owner = {name: sub for sub, names in exports.items() for name in names}
    pkg = sys.modules[package]
    pkg.__class__ = ExportingPackage
    pkg.__dict__["_EXPORTS"] = owner

    def __getattr__(name):
        sub = owner.get(name)
        if sub is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = pkg.__dict__[name] = getattr(importlib.import_module(f"{package}.{sub}"), name)
        return value
    return __getattr__
