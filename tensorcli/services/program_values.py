"""What values a program may hold, and which attributes it may read or write on them.

The interpreter (services/program.py) asks this module about every value a call, an attribute or
an item produces, and about every attribute access. Allowed: Python's plain data (numbers, strings,
lists, tuples, dicts, ranges, slices, exceptions), the backend's tensors and objects (instances of
classes defined in core: modules, optimizers, graph nodes, Function contexts...), the program's own
functions and classes, NumPy arrays and a whitelist of NumPy functions, and opaque iterators.
Attributes: never ``_`` names, files, frames or the class hierarchy (expr_parse.attr_denied); on
tensors only what the tensor classes define; on core objects what core classes define or the
instance holds; on Python data a list of methods per type (str.format, str.join and str.replace
checked for size before they run).
"""
from __future__ import annotations

import re
import string
import types

import numpy as np

from .expr_parse import DENIED_TENSOR_ATTRS, TENSOR_PRIVATE_ATTRS, attr_denied, expr_error
from .program_functions import SuperProxy, UserFunction

NUMPY_MEMBERS = frozenset({
    "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "zeros_like",
    "ones_like", "stack", "concatenate", "vstack", "hstack", "sum", "mean", "max", "min", "abs", "sqrt",
    "exp", "log", "allclose", "array_equal", "argmax", "argmin", "where", "dot", "matmul", "transpose",
    "reshape", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "complex64", "complex128", "pi", "e", "inf", "nan", "newaxis", "ndarray", "dtype", "round", "clip",
    "isclose", "maximum", "minimum", "prod", "cumsum", "tanh", "sin", "cos", "floor", "ceil",
})
NDARRAY_ATTRS = frozenset({
    "shape", "dtype", "ndim", "size", "T", "item", "tolist", "astype", "reshape", "sum", "mean", "max",
    "min", "copy", "flatten", "squeeze", "transpose", "argmax", "argmin", "all", "any", "std", "var",
    "round", "clip", "nbytes", "itemsize", "prod", "cumsum", "fill",
})
STR_METHODS = frozenset({
    "format", "join", "replace", "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit",
    "splitlines", "startswith", "endswith", "find", "rfind", "index", "count", "isdigit", "isalpha",
    "isalnum", "isspace", "isupper", "islower", "title", "capitalize", "swapcase", "partition",
    "rpartition", "casefold", "removeprefix", "removesuffix",
})
LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "index", "count", "reverse",
                          "sort", "copy", "clear"})
TUPLE_METHODS = frozenset({"index", "count"})
DICT_METHODS = frozenset({"keys", "values", "items", "get", "update", "pop", "setdefault", "copy",
                          "clear"})
_ITERATOR_TYPES = (types.GeneratorType, type(zip()), type(enumerate(())), type(map(None, ())),
                   type(filter(None, ())), type(reversed(())), type(iter([])), type(iter(())),
                   type(iter(range(0))), type({}.keys()), type({}.values()), type({}.items()),
                   type(iter("")), type(iter({})), type(reversed([])))
_PLAIN = (list, tuple, dict, set, frozenset)
_FORMAT_NUMBER = re.compile(r"\d+")
MAX_FORMAT_WIDTH = 1000


_NUMPY_FUNCTIONS: list = []


def _numpy_functions() -> frozenset:
    """ids of the whitelisted NumPy callables (computed once)."""
    if not _NUMPY_FUNCTIONS:
        _NUMPY_FUNCTIONS.append(frozenset(id(getattr(np, n)) for n in NUMPY_MEMBERS
                                          if callable(getattr(np, n, None))))
    return _NUMPY_FUNCTIONS[0]


class ModuleRef:
    """A module the program named (torch, torch.nn, numpy...): only its whitelisted members."""

    __slots__ = ("path",)

    def __init__(self, path):
        self.path = path

    def __repr__(self):
        return f"<module '{self.path}'>"


class SafeMethod:
    """A str/list/dict method whose size is checked before it runs."""

    __slots__ = ("fn", "receiver", "name")

    def __init__(self, fn, receiver, name):
        self.fn, self.receiver, self.name = fn, receiver, name

    def __call__(self, *args, **kwargs):
        return self.fn(self.receiver, *args, **kwargs)

    def __repr__(self):
        return f"<built-in method {self.name} of {type(self.receiver).__name__} object>"


def check_format_spec(spec: str, node):
    if "{" in spec or "}" in spec:
        raise expr_error("nested replacement fields in a format spec are not allowed", node)
    for n in _FORMAT_NUMBER.findall(spec):
        if len(n) > 4 or int(n) > MAX_FORMAT_WIDTH:
            raise expr_error(f"format width or precision {n} is too large (limit {MAX_FORMAT_WIDTH})", node)


def check_format_string(fmt: str, node):
    """str.format with plain fields only: '{}', '{0}', '{name}', conversions and bounded specs; no
    attribute or item lookups ('{0.__class__}', '{x[0]}')."""
    try:
        parts = list(string.Formatter().parse(fmt))
    except ValueError as e:
        raise ValueError(str(e)) from None
    for _, field, spec, conv in parts:
        if field is None:
            continue
        if field and not (field.isdigit() or field.isidentifier()):
            raise expr_error(f"format field {field!r} is not allowed (only '{{}}', '{{0}}', '{{name}}')", node)
        if field.startswith("_"):
            raise expr_error(f"format field {field!r} is not allowed", node)
        if conv not in (None, "r", "s", "a"):
            raise ValueError(f"Unknown conversion specifier {conv}")
        check_format_spec(spec or "", node)


class Policy:
    """Value and attribute rules for one run (see the module docstring)."""

    def __init__(self, backend, limits):
        self.backend = backend
        self.limits = limits
        self.tensor_types = backend.tensor_types
        self.value_types = backend.value_types
        torch_mod = backend.modules["torch"]
        self.roots = frozenset({getattr(torch_mod, "__name__", "torch").split(".")[0], "torch"})
        self.user_classes: set = set()
        self.callables: set = set()      # ids of the interpreter's built-in functions
        self.checked: dict = {}          # id -> container already checked (kept alive)
        self.numpy_functions = _numpy_functions()
        nn = backend.modules.get("torch.nn")
        self.module_class = getattr(nn, "Module", None)
        self.node = None

    # -- classes --------------------------------------------------------------------------
    def backend_class(self, cls) -> bool:
        mod = getattr(cls, "__module__", None) or ""
        return isinstance(cls, type) and mod.split(".")[0] in self.roots

    def known_class(self, cls) -> bool:
        return cls in self.user_classes or self.backend_class(cls)

    def user_object(self, value) -> bool:
        return type(value) in self.user_classes

    def backend_object(self, value) -> bool:
        cls = type(value)
        return cls in self.user_classes or self.backend_class(cls)

    # -- values ---------------------------------------------------------------------------
    def check(self, value, node):
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return value.item()
        if isinstance(value, _PLAIN):
            if id(value) not in self.checked:
                self._check(value, node, [self.limits.max_seq_len], 0, set())
                self.checked[id(value)] = value
            return value
        return self._check(value, node, [self.limits.max_seq_len], 0, set())

    def _check(self, value, node, budget, depth, seen):
        kind = type(value)
        if value is None or value is Ellipsis or kind in (bool, float, complex):
            return value
        if kind is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise expr_error(f"integer result has {value.bit_length()} bits "
                                 f"(limit {self.limits.max_int_bits})", node)
            return value
        if kind is str:
            if len(value) > self.limits.max_str_len:
                raise expr_error(f"string of {len(value)} characters (limit {self.limits.max_str_len})", node)
            return value
        if isinstance(value, self.tensor_types):
            return value
        if isinstance(value, _PLAIN):
            if id(value) in seen:   # a cycle
                return value
            seen.add(id(value))
            try:
                return self._check_items(value, node, budget, depth, seen)
            finally:
                seen.discard(id(value))
        return self._check_other(value, node)

    def _check_items(self, value, node, budget, depth, seen):
        kind = type(value)
        if True:
            if depth > self.limits.max_ast_depth:
                raise expr_error("value nested too deeply", node)
            budget[0] -= len(value)
            if budget[0] < 0:
                raise expr_error(f"{kind.__name__} value with more than {self.limits.max_seq_len} "
                                 "elements", node)
            items = value.items() if isinstance(value, dict) else value
            for item in items:
                if isinstance(value, dict):
                    self._check(item[0], node, budget, depth + 1, seen)
                    item = item[1]
                if not isinstance(item, (np.bool_, np.integer, np.floating)):
                    self._check(item, node, budget, depth + 1, seen)
            return value

    def _check_other(self, value, node):
        kind = type(value)
        if self.value_types and isinstance(value, self.value_types):
            return value
        if kind in (range, slice, ModuleRef, SafeMethod) or isinstance(
                value, (BaseException, np.ndarray, np.dtype, SuperProxy) + _ITERATOR_TYPES):
            return value
        if kind is types.MethodType:
            if isinstance(value.__self__, self.tensor_types) or (
                    self.allowed_function(value.__func__) and self.allowed_receiver(value.__self__)):
                return value
        elif kind is types.BuiltinMethodType or kind is types.MethodWrapperType:
            receiver = getattr(value, "__self__", None)
            if id(value) in self.callables or id(value) in self.numpy_functions or (
                    receiver is not None and not isinstance(receiver, types.ModuleType)
                    and self.allowed_receiver(receiver)):
                return value
        elif isinstance(value, type):
            if self.known_class(value) or value in _BUILTIN_CLASSES or issubclass(value, BaseException) \
                    or id(value) in self.numpy_functions:
                return value
        elif self.allowed_function(value):
            return value
        elif self.backend_object(value) and not isinstance(value, types.ModuleType):
            return value
        if isinstance(value, types.ModuleType):
            raise expr_error("a module is not an allowed value", node)
        raise expr_error(f"a value of type {kind.__name__!r} is not allowed", node)

    def allowed_function(self, fn) -> bool:
        if isinstance(fn, UserFunction) or id(fn) in self.callables or id(fn) in self.numpy_functions:
            return True
        if isinstance(fn, np.ufunc):
            return id(fn) in self.numpy_functions
        if isinstance(fn, types.FunctionType):   # where it was defined (wraps() copies __module__)
            mod = fn.__globals__.get("__name__") or ""
            return mod.split(".")[0] in self.roots
        if isinstance(fn, types.BuiltinFunctionType):
            mod = getattr(fn, "__module__", None) or ""
            return mod.split(".")[0] in self.roots
        return False

    def allowed_receiver(self, obj) -> bool:
        return (isinstance(obj, self.tensor_types + _PLAIN + (str, np.ndarray)) or self.backend_object(obj)
                or (isinstance(obj, type) and self.known_class(obj)))

    # -- attributes -----------------------------------------------------------------------
    def denied(self, obj, attr, node):
        if isinstance(obj, self.tensor_types):
            return expr_error(f"attribute {attr!r} of {type(obj).__name__} is not allowed", node)
        return expr_error(f"attribute {attr!r} of {type(obj).__name__} is not allowed", node)

    def get_attr(self, obj, attr, node):
        """obj.attr under the rules above (the value is not checked here)."""
        if attr in TENSOR_PRIVATE_ATTRS and isinstance(obj, self.tensor_types):
            return getattr(obj, attr)
        if attr_denied(attr) or (attr in DENIED_TENSOR_ATTRS and isinstance(obj, self.tensor_types)):
            raise self.denied(obj, attr, node)
        if isinstance(obj, self.tensor_types):
            tname = type(obj).__name__
            in_class = any(attr in vars(c) for c in type(obj).__mro__ if c is not object
                           and c.__module__.split(".")[0] not in ("builtins", "numpy"))
            if not (in_class or attr in getattr(obj, "__dict__", {})):
                raise AttributeError(f"'{tname}' object has no attribute '{attr}'")
            return getattr(obj, attr)
        if isinstance(obj, str):
            if attr not in STR_METHODS:
                raise self.denied(obj, attr, node)
            return _STR_SAFE[attr](self, obj, node) if attr in _STR_SAFE else getattr(obj, attr)
        if isinstance(obj, list) and type(obj) is list:
            if attr not in LIST_METHODS:
                raise self.denied(obj, attr, node)
            return SafeMethod(self._extend, obj, "extend") if attr == "extend" else getattr(obj, attr)
        if isinstance(obj, dict):
            if attr not in DICT_METHODS:
                raise self.denied(obj, attr, node)
            return getattr(obj, attr)
        if isinstance(obj, tuple):
            fields = getattr(type(obj), "_fields", ())
            if attr in fields or attr in TUPLE_METHODS or (
                    self.backend_class(type(obj)) and self._in_classes(type(obj), attr)):
                return getattr(obj, attr)
            raise self.denied(obj, attr, node)
        if isinstance(obj, np.ndarray):
            if attr not in NDARRAY_ATTRS:
                raise self.denied(obj, attr, node)
            return getattr(obj, attr)
        if isinstance(obj, BaseException):
            if attr != "args":
                raise self.denied(obj, attr, node)
            return obj.args
        if isinstance(obj, type):
            if self.known_class(obj) and self._in_classes(obj, attr):
                return getattr(obj, attr)
            raise self.denied(obj, attr, node) if not self.known_class(obj) else AttributeError(
                f"type object '{obj.__name__}' has no attribute '{attr}'")
        if self.backend_object(obj) or (self.value_types and isinstance(obj, self.value_types)):
            in_instance = attr in getattr(obj, "__dict__", {})
            in_module = self.module_class is not None and isinstance(obj, self.module_class) and any(
                attr in (obj.__dict__.get(k) or {}) for k in ("_parameters", "_buffers", "_modules"))
            if in_instance or in_module or self._in_classes(type(obj), attr):
                return getattr(obj, attr)
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{attr}'")
        raise expr_error(f"attribute access on a {type(obj).__name__} value is not allowed", node)

    def _in_classes(self, cls, attr) -> bool:
        return any(attr in vars(c) for c in cls.__mro__ if self.known_class(c))

    def set_attr(self, obj, attr, value, node):
        if attr_denied(attr):
            raise self.denied(obj, attr, node)
        if isinstance(obj, type) or isinstance(obj, ModuleRef) or not (
                isinstance(obj, self.tensor_types) or self.backend_object(obj)):
            raise expr_error(f"attribute assignment on a {type(obj).__name__} value is not allowed", node)
        setattr(obj, attr, value)

    # -- size-checked methods ---------------------------------------------------------------
    def _extend(self, lst, items):
        items = list(items) if not isinstance(items, (list, tuple)) else items
        if len(lst) + len(items) > self.limits.max_seq_len:
            raise expr_error(f"list would have {len(lst) + len(items)} elements "
                             f"(limit {self.limits.max_seq_len})", self.node)
        lst.extend(items)

    def safe_format(self, fmt, node, args, kwargs):
        check_format_string(fmt, node)
        out = fmt.format(*args, **kwargs)
        return self.check(out, node)


def _str_format(policy, s, node):
    return SafeMethod(lambda recv, *a, **k: policy.safe_format(recv, node, a, k), s, "format")


def _str_join(policy, s, node):
    def join(sep, items):
        items = list(items)
        total = sum(len(i) for i in items if isinstance(i, str)) + len(sep) * max(len(items) - 1, 0)
        if total > policy.limits.max_str_len:
            raise expr_error(f"join would make a string of {total} characters "
                             f"(limit {policy.limits.max_str_len})", node)
        return sep.join(items)
    return SafeMethod(join, s, "join")


def _str_replace(policy, s, node):
    def replace(recv, old, new, count=-1):
        if isinstance(old, str) and isinstance(new, str):
            n = recv.count(old) if old else len(recv) + 1
            if count >= 0:
                n = min(n, count)
            size = len(recv) + n * (len(new) - len(old))
            if size > policy.limits.max_str_len:
                raise expr_error(f"replace would make a string of {size} characters "
                                 f"(limit {policy.limits.max_str_len})", node)
        return recv.replace(old, new, count)
    return SafeMethod(replace, s, "replace")


_STR_SAFE = {"format": _str_format, "join": _str_join, "replace": _str_replace}
_BUILTIN_CLASSES = frozenset({int, float, bool, str, list, tuple, dict, set, frozenset, range, slice,
                              complex, type(None)})
