"""The program interpreter: runs a parsed program (services/expr_parse.py + expr_validate.py) by
walking its syntax tree. Nothing is compiled or handed to eval/exec.

``run_program(source, names)`` -> ProgramResult: the value of the last top-level statement, the
global namespace (the caller's names, then every name the program binds, in order), and one
StatementRecord per simple statement run at the top level (also inside top-level with/for/if
blocks): its span, the names it bound or rebound, the grad mode it ran under, and its error.

Bounds: a budget of loop iterations, comprehension items and function calls (Limits.max_iterations);
a depth of nested calls of the program's functions (Limits.max_call_depth); allocation estimates
before each call and operator (services/expr_alloc.py); list/str/int sizes; print output. Values and
attribute accesses follow services/program_values.py.
"""
from __future__ import annotations

import ast
import builtins as _py_builtins
import contextvars
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from .expr_alloc import Alloc, _numel
from .expr_parse import ALLOWED_MEMBERS, ExprError, expr_error
from .program_builtins import BoundedType, make_builtins
from .program_functions import (NO_DEFAULT, Break, Continue, ControlFlow, Frame, Return, SuperProxy,
                                UserFunction, bind_arguments)
from .program_expressions import Expressions
from .program_values import NUMPY_MEMBERS, ModuleRef, Policy

LINE_ATTR = "_tensorcli_program_line"
# Where print() writes when run_program was given no ``out``: None is sys.stdout (a command whose
# stdout carries JSON sets sys.stderr for the duration of the run).
PRINT_STREAM: contextvars.ContextVar = contextvars.ContextVar("tensorcli_print_stream", default=None)
GRAD_MODE_NAMES = ("no_grad", "enable_grad", "inference_mode", "set_grad_enabled")
_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.Delete, ast.Assert, ast.Pass, ast.Import,
           ast.ImportFrom, ast.Raise, ast.FunctionDef, ast.ClassDef)
_MAX_RECORDS = 10_000
_MISSING = object()


def error_line(exc: BaseException):
    """The program line an exception was raised at (the innermost statement), or None."""
    return (getattr(exc, LINE_ATTR, None) or (None, False))[0]


def error_prefix(exc: BaseException) -> str:
    """'line N: ' for an exception raised by a program of several lines, else ''."""
    line, multiline = getattr(exc, LINE_ATTR, None) or (None, False)
    return f"line {line}: " if line is not None and multiline else ""


@dataclass
class StatementRecord:
    """One top-level simple statement as it ran."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str
    bindings: dict                 # names bound or rebound by the statement -> their new values
    grad_enabled: bool
    inference_mode: bool
    error: BaseException | None = None


@dataclass
class ProgramResult:
    value: object
    namespace: dict
    records: list = field(default_factory=list)
    records_truncated: bool = False
    output_chars: int = 0


class Interpreter(Expressions):
    def __init__(self, program, namespace, extras, limits, backend, out=None, record=True):
        self.program = program
        self.limits = limits
        self.backend = backend
        self.policy = Policy(backend, limits)
        self.alloc = Alloc(backend)
        self.tensor_types = backend.tensor_types
        self.globals = Frame(namespace)
        for name, value in namespace.items():
            self.policy.check(value, None)
        self.aliases = dict(program.aliases or {})
        self.extras = extras
        self.builtins = make_builtins(self)
        for name, value in extras.items():
            if "." not in name:
                self.builtins[name] = value
        for value in list(self.builtins.values()) + list(extras.values()):
            self.policy.callables.add(id(value))
            if isinstance(value, BoundedType):
                self.policy.callables.add(id(value.pytype))
        self._keep = list(self.builtins.values())
        self.out = out
        self.steps = 0
        self.depth = 0
        self.output_chars = 0
        self.current_node = None
        self.chains: dict = {}
        self.recording = record
        self.records: list = []
        self.records_truncated = False
        self.last = None
        torch_mod = backend.modules["torch"]
        self.grad_state = (getattr(torch_mod, "is_grad_enabled", lambda: True),
                           getattr(torch_mod, "is_inference_mode_enabled", lambda: False))
        ag = backend.modules.get("torch.autograd")
        self.function_class = getattr(ag, "Function", None)
        self.module_class = self.policy.module_class

    # -- static pre-pass: names and module chains, before anything runs -------------------------
    def resolve(self):
        program = self.program
        known = set(program.bound) | set(self.builtins) | set(self.aliases) | set(self.globals.vars)
        extra_roots = {k.split(".")[0] for k in self.extras} - set(program.bound)
        # Python's built-ins that programs do not get (open, eval, getattr...) are refused before
        # anything runs; other unknown names raise NameError when reached, as in Python.
        for node in program.top_loads + program.inner_loads:
            if node.id not in known and node.id not in extra_roots and hasattr(_py_builtins, node.id):
                raise expr_error(f"unknown name {node.id!r}", node)
        for node in program.attributes:
            self._resolve_chain(node, extra_roots)

    def _chain(self, node):
        parts = []
        root = node
        while isinstance(root, ast.Attribute):
            parts.append(root.attr)
            root = root.value
        return root, parts[::-1]

    def _resolve_chain(self, node, extra_roots):
        if node in self.chains:
            return
        root, parts = self._chain(node)
        if not isinstance(root, ast.Name):
            return
        label = ".".join([root.id, *parts])
        if root.id not in self.program.bound and label in self.extras:
            self.chains[node] = self.extras[label]
            return
        if root.id in extra_roots and root.id not in self.aliases:
            if root.id in self.extras and parts == ["apply"] and isinstance(self.extras[root.id], type):
                self.chains[node] = self.extras[root.id].apply
            elif not any(k.startswith(label + ".") for k in self.extras):
                raise expr_error(f"unknown name {label!r}", node)
            return
        if root.id not in self.aliases:
            return
        obj = ModuleRef(self.aliases[root.id])
        shown = root.id
        for i, part in enumerate(parts):
            if not isinstance(obj, ModuleRef):
                return
            obj = self.module_member(obj.path, part, node, shown)
            shown = f"{shown}.{part}"
        self.chains[node] = obj

    def module_member(self, path, attr, node, shown=None):
        shown = shown or path
        if path == "numpy":
            if attr in NUMPY_MEMBERS and hasattr(np, attr):
                value = getattr(np, attr)
                self.policy.callables.add(id(value))
                return value
            raise expr_error(f"attribute {attr!r} of module {shown!r} is not allowed", node)
        modules = self.backend.modules
        if path not in modules:
            raise expr_error(f"module {shown!r} is not available", node)
        if f"{path}.{attr}" in modules:
            return ModuleRef(f"{path}.{attr}")
        members = self.backend.members(path)
        if attr in members or (attr in ALLOWED_MEMBERS and hasattr(modules[path], attr)):
            try:
                return getattr(modules[path], attr)
            except AttributeError:
                raise expr_error(f"{shown}.{attr} is not available", node) from None
        raise expr_error(f"attribute {attr!r} of module {shown!r} is not allowed", node)

    # -- running ------------------------------------------------------------------------------
    def run(self):
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 8000))
        try:
            result = None
            for stmt in self.program.statements:
                self.last = None
                self.exec(stmt, self.globals)
                result = self.last
            return result
        except RecursionError:
            raise expr_error("program nested or recursing too deeply", self.current_node) from None
        finally:
            sys.setrecursionlimit(old_limit)

    def tick(self, node):
        self.steps += 1
        if self.steps > self.limits.max_iterations:
            raise expr_error(f"iteration budget exceeded: more than {self.limits.max_iterations} loop "
                             "iterations, comprehension items and function calls", node)

    def write(self, text):
        self.output_chars += len(text)
        if self.output_chars > self.limits.max_output_chars:
            raise expr_error(f"print() output exceeds {self.limits.max_output_chars} characters",
                             self.current_node)
        if self.out is None:
            (PRINT_STREAM.get() or sys.stdout).write(text)
        else:
            self.out(text)

    def check(self, value, node):
        return self.policy.check(value, node)

    def float_builtin(self, x=0.0):
        if isinstance(x, str) and len(x) > 64:
            raise ValueError("float(): string too long")
        return float(x)

    # -- statements ---------------------------------------------------------------------------
    def exec_block(self, stmts, frame):
        for s in stmts:
            self.exec(s, frame)

    def exec(self, stmt, frame):
        self.current_node = stmt
        record = self.recording and frame is self.globals and isinstance(stmt, _SIMPLE)
        before = dict(frame.vars) if record else None
        try:
            _STATEMENTS[type(stmt)](self, stmt, frame)
        except (ControlFlow, ExprError):
            raise
        except Exception as e:
            if error_line(e) is None:
                try:
                    setattr(e, LINE_ATTR, (stmt.lineno, "\n" in self.program.source.strip()))
                except Exception:
                    pass
            if record:
                self.add_record(stmt, before, frame, e)
            raise
        if record:
            self.add_record(stmt, before, frame)

    def add_record(self, stmt, before, frame, error=None):
        if len(self.records) >= _MAX_RECORDS:
            self.records_truncated = True
            return
        bindings = {k: v for k, v in frame.vars.items() if before.get(k, _MISSING) is not v}
        text = ast.get_source_segment(self.program.source, stmt) or ""
        self.records.append(StatementRecord(
            stmt.lineno, stmt.col_offset + 1, stmt.end_lineno, (stmt.end_col_offset or 0) + 1, text,
            bindings, bool(self.grad_state[0]()), bool(self.grad_state[1]()), error))

    def s_Expr(self, stmt, frame):
        value = self.ev(stmt.value, frame)
        if frame is self.globals:
            self.last = value

    def s_Assign(self, stmt, frame):
        value = self.ev(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame)
        if frame is self.globals:
            self.last = value

    def s_AugAssign(self, stmt, frame):
        target = stmt.target
        if isinstance(target, ast.Name):
            current = self.load_name(target.id, frame, target)
            value = self.binop(stmt.op, current, self.ev(stmt.value, frame), stmt, inplace=True)
            self.store(target.id, value, frame)
        elif isinstance(target, ast.Subscript):
            container = self.ev(target.value, frame)
            idx = self.index(target.slice, frame)
            current = self.check(container[idx], target)
            value = self.binop(stmt.op, current, self.ev(stmt.value, frame), stmt, inplace=True)
            self.setitem(container, idx, value, target)
        else:
            obj = self.ev(target.value, frame)
            current = self.check(self.get_attr(obj, target.attr, target), target)
            value = self.binop(stmt.op, current, self.ev(stmt.value, frame), stmt, inplace=True)
            self.policy.set_attr(obj, target.attr, value, target)
        if frame is self.globals:
            self.last = value

    def s_If(self, stmt, frame):
        self.exec_block(stmt.body if self.truth(self.ev(stmt.test, frame)) else stmt.orelse, frame)

    def s_For(self, stmt, frame):
        iterable = self.ev(stmt.iter, frame)
        for item in self.iterate(iterable, stmt.iter, loop=True):
            self.assign(stmt.target, item, frame)
            try:
                self.exec_block(stmt.body, frame)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(stmt.orelse, frame)

    def s_While(self, stmt, frame):
        while self.truth(self.ev(stmt.test, frame)):
            self.tick(stmt)
            try:
                self.exec_block(stmt.body, frame)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(stmt.orelse, frame)

    def s_With(self, stmt, frame):
        self._with(stmt.items, 0, stmt.body, frame)

    def _with(self, items, i, body, frame):
        if i == len(items):
            self.exec_block(body, frame)
            return
        item = items[i]
        cm = self.ev(item.context_expr, frame)
        cls = type(cm)
        if not (self.policy.backend_object(cm) and hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
            raise expr_error(f"a {cls.__name__} value is not a context manager a program may use "
                             "(torch.no_grad(), torch.enable_grad(), torch.inference_mode(), "
                             "torch.set_grad_enabled(b), torch.autograd.graph.saved_tensors_hooks(...))",
                             item.context_expr)
        value = cls.__enter__(cm)
        if item.optional_vars is not None:
            self.assign(item.optional_vars, self.check(value, item.context_expr), frame)
        try:
            self._with(items, i + 1, body, frame)
        except ControlFlow:
            cls.__exit__(cm, None, None, None)
            raise
        except ExprError:
            cls.__exit__(cm, None, None, None)
            raise
        except Exception as e:
            if not cls.__exit__(cm, type(e), e, None):
                raise
            return
        cls.__exit__(cm, None, None, None)

    def s_FunctionDef(self, stmt, frame):
        qual = stmt.name
        if frame.function is not None:
            qual = f"{frame.function.qualname}.<locals>.{stmt.name}"
        fn = self.make_function(stmt, frame, qual)
        value = fn
        for dec in reversed(stmt.decorator_list):
            value = self.decorate(dec, value, frame)
        self.store(stmt.name, value, frame)

    def make_function(self, node, frame, qualname, name=None, is_lambda=False):
        args = node.args
        defaults = tuple(self.ev(d, frame) for d in args.defaults)
        kw_defaults = tuple(NO_DEFAULT if d is None else self.ev(d, frame) for d in args.kw_defaults)
        return UserFunction(self, node, name or node.name, frame, defaults, kw_defaults, is_lambda, qualname)

    def decorate(self, dec, fn, frame):
        value = self.ev(dec, frame)
        name = type(value).__name__ if not isinstance(value, type) else value.__name__
        ok = (self.policy.backend_object(value) or (isinstance(value, type) and self.policy.backend_class(value)))
        if not ok or name not in GRAD_MODE_NAMES:
            raise expr_error("decorator is not allowed (only torch's grad-mode managers)", dec)
        return self.check(value(fn), dec)

    def s_ClassDef(self, stmt, frame):
        base = self.ev(stmt.bases[0], frame)
        fn_cls, mod_cls = self.function_class, self.module_class
        if isinstance(base, type) and fn_cls is not None and issubclass(base, fn_cls) and (
                base is fn_cls or base in self.policy.user_classes):
            kind = "Function"
        elif isinstance(base, type) and mod_cls is not None and issubclass(base, mod_cls) and \
                self.policy.known_class(base):
            kind = "Module"
        else:
            raise expr_error("a class must derive from torch.autograd.Function or nn.Module (or a "
                             "class of the program derived from them)", stmt.bases[0])
        ns = {"__module__": "__main__", "__qualname__": stmt.name}
        cframe = Frame({}, parent=frame)
        functions = []
        for item in stmt.body:
            if isinstance(item, ast.FunctionDef):
                if kind == "Function" and item.name == "__init__":
                    raise expr_error("a torch.autograd.Function subclass has no __init__ (forward and "
                                     "backward are static methods)", item)
                fn = self.make_function(item, frame, f"{stmt.name}.{item.name}")
                functions.append(fn)
                value = fn
                for dec in reversed(item.decorator_list):
                    if isinstance(dec, ast.Name) and dec.id == "staticmethod":
                        value = staticmethod(value)
                    else:
                        value = self.decorate(dec, value, frame)
                ns[item.name] = value
            elif isinstance(item, ast.Expr):
                if isinstance(item.value.value, str) and "__doc__" not in ns:
                    ns["__doc__"] = item.value.value
            elif isinstance(item, ast.Assign):
                value = self.ev(item.value, cframe)
                for t in item.targets:
                    ns[t.id] = cframe.vars[t.id] = value
        cls = type(base)(stmt.name, (base,), ns)
        for fn in functions:
            fn.owner = cls
        self.policy.user_classes.add(cls)
        frame.vars[stmt.name] = cls

    def s_Return(self, stmt, frame):
        raise Return(None if stmt.value is None else self.ev(stmt.value, frame))

    def s_Pass(self, stmt, frame):
        pass

    def s_Break(self, stmt, frame):
        raise Break()

    def s_Continue(self, stmt, frame):
        raise Continue()

    def s_Import(self, stmt, frame):
        for alias in stmt.names:
            path = alias.name
            if path != "numpy" and path not in self.backend.modules:
                raise expr_error(f"module {path!r} is not available", stmt)

    def s_ImportFrom(self, stmt, frame):
        for alias in stmt.names:
            full = f"{stmt.module}.{alias.name}"
            name = alias.asname or alias.name
            if self.aliases.get(name) == full:
                continue
            frame.vars[name] = self.check(self.module_member(stmt.module, alias.name, stmt), stmt)

    def s_Assert(self, stmt, frame):
        if not self.truth(self.ev(stmt.test, frame)):
            if stmt.msg is None:
                raise AssertionError()
            raise AssertionError(self.ev(stmt.msg, frame))

    def s_Try(self, stmt, frame):
        try:
            try:
                self.exec_block(stmt.body, frame)
            except (ControlFlow, ExprError, RecursionError, MemoryError):
                raise
            except Exception as e:
                for handler in stmt.handlers:
                    if handler.type is None or isinstance(e, self.exception_classes(handler.type, frame)):
                        if handler.name:
                            frame.vars[handler.name] = e
                        outer, frame.handling = frame.handling, e
                        try:
                            self.exec_block(handler.body, frame)
                        finally:
                            frame.handling = outer
                            if handler.name:
                                frame.vars.pop(handler.name, None)
                        break
                else:
                    raise
            else:
                self.exec_block(stmt.orelse, frame)
        finally:
            self.exec_block(stmt.finalbody, frame)

    def exception_classes(self, node, frame):
        value = self.ev(node, frame)
        classes = value if isinstance(value, tuple) else (value,)
        for c in classes:
            if not (isinstance(c, type) and issubclass(c, BaseException)):
                raise TypeError("catching classes that do not inherit from BaseException is not allowed")
        return classes

    def s_Raise(self, stmt, frame):
        if stmt.exc is None:
            f = frame
            while f is not None and f.handling is None:
                f = f.parent
            if f is None:
                raise RuntimeError("No active exception to reraise")
            raise f.handling
        exc = self.ev(stmt.exc, frame)
        if isinstance(exc, type) and issubclass(exc, Exception):
            exc = exc()
        if not isinstance(exc, Exception):
            raise TypeError("exceptions must derive from BaseException")
        raise exc

    def s_Delete(self, stmt, frame):
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                if t.id not in frame.vars:
                    raise NameError(f"name '{t.id}' is not defined")
                del frame.vars[t.id]
            else:
                container = self.ev(t.value, frame)
                if type(container) not in (list, dict):
                    raise expr_error(f"deleting items of a {type(container).__name__} is not allowed", t)
                del container[self.index(t.slice, frame)]

    # -- assignment ---------------------------------------------------------------------------
    def store(self, name, value, frame):
        """frame[name] = value, or where a global / nonlocal statement sent the name."""
        declared = frame.declared and frame.declared.get(name)
        if declared == "global":
            self.globals.vars[name] = value
        elif declared == "nonlocal":
            f = frame.parent
            while f is not None and f is not self.globals and name not in f.vars:
                f = f.parent
            if f is None or f is self.globals:
                raise SyntaxError(f"no binding for nonlocal '{name}' found")
            f.vars[name] = value
        else:
            frame.vars[name] = value

    def s_Global(self, stmt, frame):
        frame.declared = {**(frame.declared or {}), **dict.fromkeys(stmt.names, "global")}

    def s_Nonlocal(self, stmt, frame):
        frame.declared = {**(frame.declared or {}), **dict.fromkeys(stmt.names, "nonlocal")}

    def assign(self, target, value, frame):
        if isinstance(target, ast.Name):
            self.store(target.id, value, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts), target)
            for t, item in zip(target.elts, items):
                self.assign(t, item, frame)
        elif isinstance(target, ast.Subscript):
            container = self.ev(target.value, frame)
            self.setitem(container, self.index(target.slice, frame), value, target)
        else:
            self.policy.set_attr(self.ev(target.value, frame), target.attr, value, target)

    def unpack(self, value, n, node):
        if type(value) in (list, tuple):
            items = value
        else:
            items = []
            for item in self.iterate(value, node):
                items.append(item)
                if len(items) > n:
                    break
        if len(items) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        if len(items) < n:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
        return items

    def setitem(self, container, idx, value, node):
        if isinstance(container, self.tensor_types):
            self.guard_index(container, idx, node)
        elif type(container) not in (list, dict):
            raise expr_error(f"item assignment is only allowed on tensors, lists and dicts, not "
                             f"{type(container).__name__}", node)
        elif type(container) is list and isinstance(idx, slice) and len(container) + len(value) > \
                self.limits.max_seq_len:
            raise expr_error(f"list would exceed {self.limits.max_seq_len} elements", node)
        container[idx] = value

    # -- names, attributes, calls ---------------------------------------------------------------
    def load_name(self, name, frame, node):
        f = frame
        while f is not None:
            if name in f.vars:
                return f.vars[name]
            f = f.parent
        if name in self.builtins:
            return self.builtins[name]
        if name in self.aliases:
            return ModuleRef(self.aliases[name])
        raise NameError(f"name '{name}' is not defined")

    def get_attr(self, obj, attr, node):
        if attr == "__name__":      # type(x).__name__, fn.__name__: a string, nothing more
            if isinstance(obj, (type, UserFunction, BoundedType)) or self.policy.allowed_function(obj):
                return obj.pytype.__name__ if isinstance(obj, BoundedType) else obj.__name__
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '__name__'")
        if isinstance(obj, ModuleRef):
            return self.module_member(obj.path, attr, node)
        if isinstance(obj, SuperProxy):
            if attr != "__init__" and attr.startswith("_"):
                raise expr_error(f"attribute {attr!r} is not allowed", node)
            mro = type(obj.obj).__mro__
            after = mro[mro.index(obj.cls) + 1:]
            if not any(attr in vars(c) for c in after if self.policy.known_class(c)):
                raise AttributeError(f"'super' object has no attribute '{attr}'")
            return getattr(super(obj.cls, obj.obj), attr)
        self.policy.node = node
        return self.policy.get_attr(obj, attr, node)

    def super_context(self):
        node = self.current_node
        raise_it = expr_error("super() without arguments is only allowed in a method of the "
                              "program's class", node)
        frame = self._frame
        while frame is not None and frame.function is None:
            frame = frame.parent
        if frame is None or frame.function.owner is None or not frame.args:
            raise raise_it
        return frame.function.owner, frame.args[0]

    def call_user(self, fn, args, kwargs):
        node = fn.node
        self.depth += 1
        try:
            if self.depth > self.limits.max_call_depth:
                raise expr_error(f"calls nested deeper than {self.limits.max_call_depth} "
                                 "(recursion limit of programs)", node)
            self.tick(node)
            for a in args:
                self.check(a, node)
            frame = Frame(bind_arguments(fn, args, kwargs), parent=fn.closure, function=fn, args=args)
            if fn.is_lambda:
                return self.ev(node.body, frame)
            saved = self.current_node
            try:
                self.exec_block(node.body, frame)
            except Return as r:
                return r.value
            finally:
                self.current_node = saved
            return None
        finally:
            self.depth -= 1

    def call(self, fn, args, kwargs, node, name, receiver=None):
        if isinstance(fn, UserFunction):
            return self.call_user(fn, args, kwargs)
        if type(fn) is types.MethodType and isinstance(fn.__func__, UserFunction):
            return self.call_user(fn.__func__, (fn.__self__, *args), kwargs)
        if isinstance(fn, type):
            if fn is self.function_class:
                raise expr_error(f"calling class {name!r} is not allowed (its instances are not "
                                 "allowed values)", node)
            bounded = self.builtins.get(fn.__name__)
            if isinstance(bounded, BoundedType) and bounded.pytype is fn:
                return self.check(bounded(*args, **kwargs), node)
            constructible = (fn in self.policy.user_classes or issubclass(fn, BaseException)
                             or issubclass(fn, self.tensor_types) or id(fn) in self.policy.numpy_functions
                             or id(fn) in self.policy.callables
                             or (self.policy.backend_class(fn) and not (
                                 self.policy.value_types and issubclass(fn, self.policy.value_types)
                                 and not issubclass(fn, tuple))))
            if not constructible:
                label = ast.unparse(node.func) if isinstance(node, ast.Call) else name
                raise expr_error(f"calling class {label!r} is not allowed (its instances are not "
                                 "allowed values)", node)
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        if name == "tolist" and receiver is not None:
            n = _numel(self.alloc.dims(receiver) or [0])
            if n > self.limits.max_seq_len:
                raise expr_error(f"tolist() of {n} elements (limit {self.limits.max_seq_len})", node)
        self.guard_bytes(self.alloc.call(name, args, kwargs, receiver), f"{name}()", node)
        return self.check(fn(*args, **kwargs), node)

    # -- iteration ------------------------------------------------------------------------------
    def iterate(self, value, node, loop=False):
        trusted = type(value) in (list, tuple, str, range, dict, set)
        n = None
        if trusted or isinstance(value, tuple):
            n = len(value)
        elif isinstance(value, self.tensor_types):
            if not len(value.shape):
                raise TypeError("iteration over a 0-d tensor")
            n = int(value.shape[0])
        elif isinstance(value, np.ndarray) and value.ndim:
            n = int(value.shape[0])
        if n is not None and n > self.limits.max_iterations - self.steps:
            raise expr_error(f"iterating over {n} items exceeds the iteration budget "
                             f"({max(self.limits.max_iterations - self.steps, 0)} left of "
                             f"{self.limits.max_iterations})", node)
        if isinstance(value, type) or not hasattr(value, "__iter__") and not isinstance(
                value, self.tensor_types):
            raise TypeError(f"'{type(value).__name__}' object is not iterable")
        for item in value:
            self.tick(node)
            yield item if trusted else self.check(item, node)

    def truth(self, value):
        return bool(value)

_STATEMENTS = {getattr(ast, name[2:]): fn for name, fn in vars(Interpreter).items() if name.startswith("s_")}
