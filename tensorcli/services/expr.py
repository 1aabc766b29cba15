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

import ast
import math
import importlib
import io
import types
from dataclasses import dataclass

import numpy as np

__all__ = ["Limits", "ExprError", "Program", "Backend", "ALIASES", "parse", "evaluate"]


from .expr_alloc import Alloc, _index, _numel
from .expr_parse import (  # noqa: F401 - Limits, Program, parse: part of this module's API
    ALIASES, BINOPS, COMPARE, DENIED_MEMBERS, DENIED_PREFIXES, DENIED_TENSOR_ATTRS, INPLACE, OP_SYMBOLS,
    SUBMODULES, UNARY, ExprError, Limits, Program, expr_error, parse, refused)


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
                and not n.startswith(DENIED_PREFIXES) and f"{path}.{n}" not in self.modules)
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


def evaluate(source_or_program, names: dict, *, extra_callables: dict | None = None,
             limits: Limits | None = None, backend: Backend | None = None):
    """Run an expression program; return ``(result, namespace)``.

    ``names`` are the caller's values (tensors, numbers...). ``extra_callables`` maps names,
    or exact dotted chains such as ``"MultiplyAdd.apply"``, to functions the expression may
    call; a class given by plain name may also be called through its ``apply``. The result
    is the value of the last statement (for an assignment, the assigned value); the
    namespace holds the caller's names plus every assigned name, in assignment order.
    """
    if isinstance(source_or_program, Program):
        program = source_or_program
        if limits is not None and limits != program.limits:
            program = parse(program.source, limits)
    else:
        program = parse(source_or_program, limits)
    extras = {}
    for key, fn in (extra_callables or {}).items():
        if not isinstance(key, str) or not all(p.isidentifier() and not p.startswith("_")
                                               for p in key.split(".")):
            raise ValueError(f"extra_callables: invalid name {key!r}")
        if not callable(fn):
            raise ValueError(f"extra_callables: {key!r} is not callable")
        extras[key] = fn
    extras = {**BUILTINS, **(TORCH_CONSTANTS if backend is None else {}), **extras}
    ev = _Evaluator(program, dict(names), extras, program.limits, backend or _core_backend())
    ev.resolve()
    return ev.run(), ev.namespace


class _Evaluator:
    def __init__(self, program, namespace, extras, limits, backend):
        self.program = program
        self.namespace = namespace
        self.extras = extras
        self.limits = limits
        self.backend = backend
        self.tensor_types = backend.tensor_types
        self.alloc = Alloc(backend)
        self.resolved: dict[ast.AST, tuple] = {}   # node -> (object, label)
        # Lists/tuples already checked, by id (objects kept alive so ids stay unique). Valid
        # because expressions cannot mutate lists; saves re-walking a big list on every use.
        self.checked: dict[int, object] = {}

    # -- pre-pass: names, module chains and call targets, before anything runs ---------
    def resolve(self):
        bound = set(self.namespace)
        for stmt in self.program.statements:
            if isinstance(stmt, ast.Expr):
                self._resolve(stmt.value, bound)
            elif isinstance(stmt, ast.Assign):
                self._resolve(stmt.value, bound)
                for target in stmt.targets:
                    self._resolve_target(target, bound)
            else:  # AugAssign: the target is read before it is written
                if isinstance(stmt.target, ast.Name):
                    self._resolve(ast.copy_location(ast.Name(stmt.target.id, ast.Load()),
                                                    stmt.target), bound)
                self._resolve_target(stmt.target, bound)
                self._resolve(stmt.value, bound)

    def _resolve_target(self, node, bound):
        if isinstance(node, ast.Subscript):
            self._resolve(node.value, bound)
            self._resolve(node.slice, bound)
            return
        for name_node in (node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]):
            if name_node.id in self.extras:
                raise expr_error(f"cannot assign to {name_node.id!r}", name_node)
            bound.add(name_node.id)

    def _resolve(self, node, bound, call=False):
        if isinstance(node, ast.Name):
            self._resolve_name(node, bound, call)
        elif isinstance(node, ast.Attribute):
            root, parts = node, []
            while isinstance(root, ast.Attribute):
                parts.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id not in bound and (
                    root.id in ALIASES or root.id in {k.split(".")[0] for k in self.extras}):
                self._resolve_chain(node, root.id, parts[::-1], call)
            else:
                self._resolve(node.value, bound)
        elif isinstance(node, ast.Call):
            self._resolve(node.func, bound, call=True)
            for arg in node.args:
                self._resolve(arg, bound)
            for kw in node.keywords:
                self._resolve(kw.value, bound)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._resolve(child, bound)

    def _resolve_name(self, node, bound, call):
        name = node.id
        if name in bound:
            if call:
                raise expr_error(f"{name!r} is not callable", node)
        elif name in self.extras:
            if not call:
                raise expr_error(f"function {name!r} can only be called", node)
            self.resolved[node] = (self.extras[name], name)
        elif name in ALIASES:
            raise expr_error(f"module {name!r} cannot be used as a value", node)
        else:
            raise expr_error(f"unknown name {name!r}", node)

    def _resolve_chain(self, node, root, parts, call):
        label = ".".join([root, *parts])
        if label in self.extras:
            obj, trusted = self.extras[label], True
        elif root in self.extras:
            obj, trusted = self.extras[root], True
            if not (parts == ["apply"] and isinstance(obj, type)
                    and callable(getattr(obj, "apply", None))):
                raise expr_error(f"attribute {parts[0]!r} of {root!r} is not allowed", node)
            obj = obj.apply
        elif root in ALIASES:
            obj, trusted = self._module_member(node, root, parts), False
        else:  # a dotted extra exists with this root, but not this chain
            raise expr_error(f"unknown name {label!r}", node)
        if call:
            if not callable(obj):
                raise expr_error(f"{label!r} is not callable", node)
            if isinstance(obj, types.ModuleType):
                raise expr_error(f"module {label!r} is not callable", node)
            if isinstance(obj, type) and not trusted and not issubclass(
                    obj, self.backend.constructible):
                raise expr_error(f"calling class {label!r} is not allowed "
                           "(its instances are not allowed values)", node)
        elif isinstance(obj, types.ModuleType):
            raise expr_error(f"module {label!r} cannot be used as a value", node)
        elif callable(obj):
            raise expr_error(f"function {label!r} can only be called", node)
        else:
            obj = self.check(obj, node)
        self.resolved[node] = (obj, label)

    def _module_member(self, node, root, parts):
        path = ALIASES[root]
        modules = self.backend.modules
        if path not in modules:
            raise expr_error(f"module {root!r} is not available", node)
        obj, shown = modules[path], root
        for part in parts:
            if path is not None and f"{path}.{part}" in modules:
                path = f"{path}.{part}"
                obj = modules[path]
            elif path is not None and part in self.backend.members(path):
                try:
                    obj = getattr(obj, part)
                except AttributeError:
                    raise expr_error(f"{shown}.{part} is not available", node) from None
                path = None
            else:
                kind = "module " if path is not None else ""
                raise expr_error(f"attribute {part!r} of {kind}{shown!r} is not allowed", node)
            shown = f"{shown}.{part}"
        return obj

    # -- running ----------------------------------------------------------------------
    def run(self):
        result = None
        for stmt in self.program.statements:
            if isinstance(stmt, ast.Expr):
                result = self.visit(stmt.value)
            elif isinstance(stmt, ast.Assign):
                result = self.visit(stmt.value)
                for target in stmt.targets:
                    self.assign(target, result)
            else:
                result = self.aug_assign(stmt)
        return result

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.namespace[target.id] = value
        elif isinstance(target, ast.Subscript):
            container = self.visit(target.value)
            self.setitem(container, self.index(target.slice), value, target)
        else:
            if not isinstance(value, (list, tuple) + self.tensor_types):
                raise expr_error(f"cannot unpack a value of type {type(value).__name__}", target)
            if len(value) != len(target.elts):
                raise expr_error(f"cannot unpack {len(value)} values into {len(target.elts)} names",
                           target)
            for name_node, item in zip(target.elts, value):
                self.namespace[name_node.id] = self.check(item, target)

    def aug_assign(self, stmt):
        target = stmt.target
        if isinstance(target, ast.Name):
            current = self.check(self.namespace[target.id], target)
            value = self.binop(stmt.op, current, self.visit(stmt.value), stmt, inplace=True)
            self.namespace[target.id] = value
            return value
        container = self.visit(target.value)
        idx = self.index(target.slice)
        current = self.check(container[idx], target)
        value = self.binop(stmt.op, current, self.visit(stmt.value), stmt, inplace=True)
        self.setitem(container, idx, value, target)
        return value

    def setitem(self, container, idx, value, node):
        # Only tensors: lists stay immutable, so no cyclic or aliased structures can be built.
        if not isinstance(container, self.tensor_types):
            raise expr_error(f"item assignment is only allowed on tensors, not "
                       f"{type(container).__name__}", node)
        self.guard_index(container, idx, node)
        container[idx] = value

    def visit(self, node):
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:  # unreachable after validation; kept as a last line of defence
            raise refused(node)
        return method(node)

    def eval_Constant(self, node):
        return node.value

    def eval_Name(self, node):
        return self.check(self.namespace[node.id], node)

    def eval_Attribute(self, node):
        if node in self.resolved:
            return self.resolved[node][0]
        return self.get_attr(self.visit(node.value), node.attr, node, call=False)

    def get_attr(self, obj, attr, node, call):
        if attr.startswith("_"):
            raise expr_error(f"attribute {attr!r} is not allowed", node)
        if isinstance(obj, self.tensor_types):
            tname = type(obj).__name__
            if attr in DENIED_TENSOR_ATTRS:
                raise expr_error(f"attribute {attr!r} of {tname} is not allowed", node)
            # Only attributes defined by the tensor classes themselves (or set on the
            # instance), never ones synthesized by a __getattr__ hook.
            in_class = any(attr in vars(c) for c in type(obj).__mro__ if c is not object
                           and c.__module__.split(".")[0] not in ("builtins", "numpy"))
            in_instance = not call and attr in getattr(obj, "__dict__", {})
            if not (in_class or in_instance):
                raise AttributeError(f"'{tname}' object has no attribute '{attr}'")
            value = getattr(obj, attr)
        elif isinstance(obj, tuple) and attr in getattr(type(obj), "_fields", ()):
            value = getattr(obj, attr)  # named-tuple results: x.max(0).values
        else:
            raise expr_error(f"attribute access on a {type(obj).__name__} value is not allowed", node)
        if call:
            return value
        if callable(value):
            raise expr_error(f"method {attr!r} can only be called", node)
        return self.check(value, node)

    def eval_Call(self, node):
        func = node.func
        receiver = None
        if func in self.resolved:
            fn, label = self.resolved[func]
            name = label.rsplit(".", 1)[-1]
        else:  # a tensor method: the resolver accepted everything else statically
            receiver = self.visit(func.value)
            if not isinstance(receiver, self.tensor_types):
                raise expr_error(f"calling a method of a {type(receiver).__name__} value is not allowed",
                           func)
            fn = self.get_attr(receiver, func.attr, func, call=True)
            name = func.attr
        args = [self.visit(a) for a in node.args]
        kwargs = {kw.arg: self.visit(kw.value) for kw in node.keywords}
        if name == "tolist" and receiver is not None:
            n = _numel(self.alloc.dims(receiver) or [0])
            if n > self.limits.max_seq_len:
                raise expr_error(f"tolist() of {n} elements (limit {self.limits.max_seq_len})", node)
        self.guard_bytes(self.alloc.call(name, args, kwargs, receiver), f"{name}()", node)
        return self.check(fn(*args, **kwargs), node)

    def eval_BinOp(self, node):
        left = self.visit(node.left)
        right = self.visit(node.right)
        return self.binop(node.op, left, right, node)

    def binop(self, op, left, right, node, inplace=False):
        kind = type(op)
        symbol = OP_SYMBOLS[kind]
        if kind is ast.Pow:
            self.guard_pow(left, right, node)
        elif kind is ast.Mult:
            self.guard_mul(left, right, node)
        elif kind is ast.LShift:
            if type(left) in (int, bool) and type(right) in (int, bool) and right > 0 and \
                    left.bit_length() + right > self.limits.max_int_bits:
                raise expr_error(f"{symbol} result exceeds {self.limits.max_int_bits} bits", node)
        elif kind is ast.Mod and isinstance(left, str):
            raise expr_error("string formatting with % is not allowed", node)
        if isinstance(left, self.tensor_types) or isinstance(right, self.tensor_types):
            est = self.alloc.elementwise([left, right], "matmul" if kind is ast.MatMult else None)
            self.guard_bytes(est, f"'{symbol}'", node)
        fn = INPLACE[kind] if inplace and isinstance(left, self.tensor_types) else BINOPS[kind]
        return self.check(fn(left, right), node)

    def guard_pow(self, base, exp, node):
        if type(base) in (int, bool) and type(exp) in (int, bool) and exp > 0 and abs(base) > 1:
            # (bit_length - 1) * exp is a lower bound on the result's bit length.
            if (abs(base).bit_length() - 1) * exp > self.limits.max_int_bits:
                raise expr_error(f"integer power with exponent {_short(exp)} exceeds "
                           f"{self.limits.max_int_bits} bits", node)

    def guard_mul(self, left, right, node):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and not isinstance(
                    count, (str, list, tuple, float)):
                n = _index(count)
                limit = self.limits.max_str_len if isinstance(seq, str) else self.limits.max_seq_len
                if n is not None and n > 0 and len(seq) * n > limit:
                    kind = "string" if isinstance(seq, str) else type(seq).__name__
                    raise expr_error(f"{kind} repetition would make {_short(len(seq) * n)} elements "
                               f"(limit {limit})", node)
        if type(left) in (int, bool) and type(right) in (int, bool) and \
                left.bit_length() + right.bit_length() > self.limits.max_int_bits + 1:
            raise expr_error(f"integer product exceeds {self.limits.max_int_bits} bits", node)

    def guard_bytes(self, estimate, what, node):
        if estimate is None:
            return
        numel, itemsize = estimate
        nbytes = numel * itemsize
        if nbytes > self.limits.max_bytes:
            raise expr_error(f"{what} would allocate {_short(numel)} elements ({_bytes(nbytes)}; "
                       f"limit {_bytes(self.limits.max_bytes)})", node)

    def guard_index(self, container, idx, node):
        if isinstance(container, self.tensor_types) and isinstance(idx, tuple):
            # Several index tensors broadcast against each other (x[a, b]).
            est = self.alloc.elementwise(list(idx))
            if est is not None:
                self.guard_bytes((est[0], self.alloc.itemsize(container)), "indexing", node)

    def eval_UnaryOp(self, node):
        return self.check(UNARY[type(node.op)](self.visit(node.operand)), node)

    def eval_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for value in node.values[1:]:
            if bool(result) != is_and:
                break
            result = self.visit(value)
        return result

    def eval_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
            right = self.visit(comp)
            if isinstance(left, self.tensor_types) or isinstance(right, self.tensor_types):
                est = self.alloc.elementwise([left, right])
                self.guard_bytes(est and (est[0], 1), "comparison", node)
            result = self.check(COMPARE[type(op)](left, right), node)
            if i < len(node.ops) - 1 and not result:
                return result
            left = right
        return result

    def eval_IfExp(self, node):
        return self.visit(node.body) if self.visit(node.test) else self.visit(node.orelse)

    def eval_Subscript(self, node):
        container = self.visit(node.value)
        idx = self.index(node.slice)
        self.guard_index(container, idx, node)
        return self.check(container[idx], node)

    def index(self, node):
        if isinstance(node, ast.Slice):
            return slice(*(None if p is None else self.visit(p)
                           for p in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Tuple):
            return tuple(self.index(elt) for elt in node.elts)
        return self.visit(node)

    def eval_List(self, node):
        return self.check([self.visit(e) for e in node.elts], node)

    def eval_Tuple(self, node):
        return self.check(tuple(self.visit(e) for e in node.elts), node)

    # -- value whitelist --------------------------------------------------------------
    def check(self, value, node):
        """Return ``value`` if it is of an allowed type and size, else raise ExprError."""
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            value = value.item()
        if isinstance(value, (list, tuple)):
            if id(value) not in self.checked:
                self._check(value, node, [self.limits.max_seq_len], 0)
                self.checked[id(value)] = value
            return value
        return self._check(value, node, [self.limits.max_seq_len], 0)

    def _check(self, value, node, budget, depth):
        kind = type(value)
        if value is None or value is Ellipsis or kind is bool or kind is float:
            return value
        if kind is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise expr_error(f"integer result has {value.bit_length()} bits "
                           f"(limit {self.limits.max_int_bits})", node)
            return value
        if kind is str:
            if len(value) > self.limits.max_str_len:
                raise expr_error(f"string of {len(value)} characters (limit {self.limits.max_str_len})",
                           node)
            return value
        if isinstance(value, self.tensor_types):
            return value
        if kind is list or isinstance(value, tuple):
            if depth > self.limits.max_ast_depth:
                raise expr_error("value nested too deeply", node)
            budget[0] -= len(value)
            if budget[0] < 0:
                raise expr_error(f"{kind.__name__} value with more than {self.limits.max_seq_len} "
                           "elements", node)
            for item in value:
                if not isinstance(item, (np.bool_, np.integer, np.floating)):
                    self._check(item, node, budget, depth + 1)
            return value
        if self.backend.value_types and isinstance(value, self.backend.value_types):
            return value
        if kind is slice:
            for part in (value.start, value.stop, value.step):
                self._check(part, node, budget, depth + 1)
            return value
        if isinstance(value, types.ModuleType):
            raise expr_error("a module is not an allowed value", node)
        if callable(value):
            raise expr_error(f"a {kind.__name__} value is not allowed (functions and classes can "
                       "only be called)", node)
        raise expr_error(f"a value of type {kind.__name__!r} is not allowed", node)


def _short(n: int) -> str:
    return str(n) if n.bit_length() < 200 else f"~2**{n.bit_length() - 1}"


def _bytes(n: int) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"
