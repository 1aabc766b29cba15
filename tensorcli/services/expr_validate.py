"""Static whitelist of the program language (the second half of services/expr_parse.py's parse).

What a program may contain, checked before anything runs: expressions, assignment (names, tuples,
subscripts, public attributes), ``if``/``for``/``while``/``with``/``try``/``assert``/``del``,
``def`` and ``lambda`` (decorators: torch's grad-mode managers only, ``staticmethod`` in a class
body), two kinds of class (``torch.autograd.Function`` with static methods, ``nn.Module`` with
``__init__`` and methods: one base, no keywords, no other dunders), comprehensions, f-strings, and
imports of torch's own modules (and numpy). Never: dunder names, ``_`` attributes (except
``super().__init__``), global/nonlocal, walrus, async, yield, match, star imports.
"""
from __future__ import annotations

import ast

from .expr_parse import (ALIASES, BINOPS, IMPORTABLE_ROOTS, SUBMODULES, TENSOR_PRIVATE_ATTRS, Limits, Program,
                         expr_error, parse_tree, refused)

GRAD_MODE_DECORATORS = ("no_grad", "enable_grad", "inference_mode", "set_grad_enabled")
_MODULE_PATHS = frozenset({"torch", *(f"torch.{s}" for s in SUBMODULES), "numpy"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def parse(source: str, limits: Limits | None = None) -> Program:
    """Parse and statically validate ``source``; raise ExprError for anything refused."""
    limits = limits or Limits()
    return validate(source, parse_tree(source, limits), limits)


def validate(source: str, tree: ast.Module, limits) -> Program:
    """Whitelist walk of ``tree``; a Program with its aliases and bindings."""
    v = _Validator(limits)
    v.collect(tree)
    for stmt in tree.body:
        v.stmt(stmt)
    return Program(source, tuple(tree.body), v.assigned, limits, aliases=v.aliases,
                   bound=frozenset(v.bound), top_loads=tuple(v.top_loads), inner_loads=tuple(v.inner_loads),
                   attributes=tuple(n for n in ast.walk(tree) if isinstance(n, ast.Attribute)))


def _targets(node):
    """Names bound by an assignment target."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            yield from _targets(elt)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _arg_names(args: ast.arguments):
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        yield a.arg
    for a in (args.vararg, args.kwarg):
        if a is not None:
            yield a.arg


class _Validator:
    def __init__(self, limits):
        self.limits = limits
        self.assigned: list[str] = []
        self.aliases: dict[str, str] = {}
        self.bound: set[str] = set()
        self.top_loads: list = []
        self.inner_loads: list = []
        self.function_depth = 0
        self.loop_depth = 0
        self.class_kind = None

    # -- pass 1: imports and every bound name ----------------------------------------------
    def collect(self, tree):
        imported = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    path = self.import_path(alias.name, node)
                    if alias.asname:
                        imported[alias.asname] = path
                    else:
                        root = alias.name.split(".")[0]
                        imported[root] = root
            elif isinstance(node, ast.ImportFrom):
                base = self.import_from_base(node)
                for alias in node.names:
                    if alias.name == "*":
                        raise expr_error("import * is not allowed", node)
                    if alias.name.startswith("_"):
                        raise expr_error(f"name {alias.name!r} is not allowed", node)
                    full = f"{base}.{alias.name}"
                    name = alias.asname or alias.name
                    if full in _MODULE_PATHS:
                        imported[name] = full
                    else:
                        self.bound.add(name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                self.bound.update(_arg_names(node.args))
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.For, ast.comprehension, ast.Delete)):
                targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target])
                for t in targets:
                    self.bound.update(_targets(t))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self.bound.update(_targets(node.optional_vars))
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
        for name, path in imported.items():
            if name in self.bound:
                node = next((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name
                             and isinstance(n.ctx, ast.Store)), None)
                raise expr_error(f"cannot assign to module alias {name!r}", node)
        for name in ("torch", "core"):
            if name in self.bound:
                node = next((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name
                             and isinstance(n.ctx, ast.Store)), tree.body[0])
                raise expr_error(f"cannot assign to module alias {name!r}", node)
        self.aliases = {n: p for n, p in ALIASES.items() if n not in self.bound}
        self.aliases.update({n: ("torch" if p == "torch" else p) for n, p in imported.items()})

    def import_path(self, dotted, node):
        root = dotted.split(".")[0]
        if root not in IMPORTABLE_ROOTS or dotted not in _MODULE_PATHS:
            raise expr_error(f"import of {dotted!r} is not allowed (only torch's modules "
                             f"{', '.join(sorted(_MODULE_PATHS - {'numpy'}))} and numpy)", node)
        return dotted

    def import_from_base(self, node):
        if node.level or not node.module:
            raise expr_error("relative import is not allowed", node)
        return self.import_path(node.module, node)

    # -- pass 2: statements -----------------------------------------------------------------
    def body(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, node):
        kind = type(node)
        if kind is ast.Expr:
            self.expr(node.value)
        elif kind is ast.Assign:
            self.expr(node.value)
            for target in node.targets:
                self.target(target, unpack=True)
        elif kind is ast.AugAssign:
            if type(node.op) not in BINOPS:
                raise expr_error(f"operator {type(node.op).__name__} is not allowed", node)
            self.target(node.target, unpack=False)
            self.expr(node.value)
        elif kind is ast.If or kind is ast.While:
            self.expr(node.test)
            if kind is ast.While:
                self.loop_depth += 1
            self.body(node.body)
            if kind is ast.While:
                self.loop_depth -= 1
            self.body(node.orelse)
        elif kind is ast.For:
            self.expr(node.iter)
            self.target(node.target, unpack=True)
            self.loop_depth += 1
            self.body(node.body)
            self.loop_depth -= 1
            self.body(node.orelse)
        elif kind is ast.With:
            for item in node.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, unpack=True)
            self.body(node.body)
        elif kind is ast.FunctionDef:
            self.function(node)
        elif kind is ast.ClassDef:
            self.class_def(node)
        elif kind is ast.Return:
            if not self.function_depth:
                raise expr_error("'return' outside function", node)
            if node.value is not None:
                self.expr(node.value)
        elif kind is ast.Pass:
            pass
        elif kind in (ast.Break, ast.Continue):
            if not self.loop_depth:
                raise expr_error(f"'{'break' if kind is ast.Break else 'continue'}' outside loop", node)
        elif kind is ast.Import or kind is ast.ImportFrom:
            self.record_imports(node)
        elif kind is ast.Assert:
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
        else:
            self.other_stmt(node, kind)

    def other_stmt(self, node, kind):
        """try, raise, global/nonlocal, del."""
        if kind is ast.Try:
            self.body(node.body)
            for h in node.handlers:
                if h.type is not None:
                    self.expr(h.type)
                if h.name:
                    self.check_name(h.name, h)
                self.body(h.body)
            self.body(node.orelse)
            self.body(node.finalbody)
        elif kind is ast.Raise:
            if node.cause is not None:
                raise expr_error("raise ... from is not allowed", node)
            if node.exc is not None:
                self.expr(node.exc)
        elif kind is ast.Global or kind is ast.Nonlocal:
            if not self.function_depth:
                raise refused(node)
            for name in node.names:
                self.check_name(name, node)
                if name in self.aliases:
                    raise expr_error(f"cannot assign to module alias {name!r}", node)
        elif kind is ast.Delete:
            for t in node.targets:
                if not isinstance(t, (ast.Name, ast.Subscript)):
                    raise expr_error("only names and items can be deleted", t)
                self.target(t, unpack=False)
        else:
            raise refused(node)

    def record_imports(self, node):
        if self.function_depth or self.class_kind:
            raise expr_error("import is only allowed at the top level", node)

    def function(self, node, in_class=False):
        self.check_name(node.name, node, method=in_class)
        for dec in node.decorator_list:
            self.decorator(dec, in_class)
        self.arguments(node.args)
        if not in_class and not self.function_depth:
            self.assign_name(node.name)
        self.function_depth += 1
        loops, self.loop_depth = self.loop_depth, 0
        kind, self.class_kind = self.class_kind, None
        self.body(node.body)
        self.class_kind = kind
        self.loop_depth = loops
        self.function_depth -= 1

    def arguments(self, args):
        for name in _arg_names(args):
            self.check_name(name, args)
        for d in (*args.defaults, *(d for d in args.kw_defaults if d is not None)):
            self.expr(d)

    def decorator(self, dec, in_class):
        if isinstance(dec, ast.Name) and dec.id == "staticmethod" and in_class:
            return
        chain = dec.func if isinstance(dec, ast.Call) else dec
        parts = []
        while isinstance(chain, ast.Attribute):
            parts.append(chain.attr)
            chain = chain.value
        if (isinstance(chain, ast.Name) and chain.id in self.aliases and parts
                and parts[0] in GRAD_MODE_DECORATORS):
            self.expr(dec)
            return
        raise expr_error("decorator is not allowed (only torch.no_grad(), torch.enable_grad(), "
                         "torch.inference_mode(), torch.set_grad_enabled(b), and staticmethod in a "
                         "class body)", dec)

    def class_def(self, node):
        if self.function_depth or self.class_kind:
            raise expr_error("a class can only be defined at the top level", node)
        self.check_name(node.name, node)
        if node.decorator_list:
            raise expr_error("class decorators are not allowed", node.decorator_list[0])
        if node.keywords:
            raise expr_error("class keywords (metaclass=...) are not allowed", node.keywords[0])
        if len(node.bases) != 1:
            raise expr_error("a class must have exactly one base: torch.autograd.Function or "
                             "nn.Module", node)
        self.expr(node.bases[0])
        self.assign_name(node.name)
        self.class_kind = "class"
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                self.function(item, in_class=True)
            elif isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
                pass  # docstring
            elif isinstance(item, ast.Pass):
                pass
            elif isinstance(item, ast.Assign) and all(isinstance(t, ast.Name) for t in item.targets):
                self.expr(item.value)
                for t in item.targets:
                    self.check_name(t.id, t, method=True)
            else:
                raise expr_error("a class body may only hold methods, docstrings, pass and simple "
                                 "class attributes", item)
        self.class_kind = None

    def check_name(self, name, node, method=False):
        if name.startswith("__") and not (method and name == "__init__"):
            raise expr_error(f"name {name!r} is not allowed", node)
        if method and name.startswith("_") and name != "__init__":
            raise expr_error(f"method or class attribute {name!r} is not allowed (no '_' names)", node)

    def assign_name(self, name):
        if name not in self.assigned:
            self.assigned.append(name)

    def target(self, node, unpack):
        if isinstance(node, ast.Name):
            self.check_name(node.id, node)
            if node.id in self.aliases:
                raise expr_error(f"cannot assign to module alias {node.id!r}", node)
            if not self.function_depth:
                self.assign_name(node.id)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.index(node.slice)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise expr_error(f"attribute {node.attr!r} is not allowed", node)
            self.expr(node.value)
        elif isinstance(node, (ast.Tuple, ast.List)) and unpack:
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    raise expr_error("only plain names can be unpacked into", elt)
                self.target(elt, unpack=True)
        elif isinstance(node, ast.Starred):
            raise expr_error("only plain names can be unpacked into", node)
        else:
            raise expr_error(f"cannot assign to {type(node).__name__}", node)

    def index(self, node):
        if isinstance(node, ast.Slice):
            self.slice(node)
        elif isinstance(node, ast.Tuple):
            self.seq(node)
            for elt in node.elts:
                if isinstance(elt, ast.Slice):
                    self.slice(elt)
                else:
                    self.expr(elt)
        else:
            self.expr(node)

    def slice(self, node):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.expr(part)

    def seq(self, node):
        if len(node.elts) > self.limits.max_literal_len:
            raise expr_error(f"{type(node).__name__.lower()} display has {len(node.elts)} elements "
                             f"(limit {self.limits.max_literal_len})", node)

    def name_load(self, node):
        if node.id == "__name__":       # `if __name__ == "__main__":` - a program runs as __main__
            return
        self.check_name(node.id, node)
        if node.id in self.aliases:
            raise expr_error(f"module {node.id!r} cannot be used as a value", node)
        (self.inner_loads if self.function_depth else self.top_loads).append(node)

    # -- expressions ------------------------------------------------------------------------
    def expr(self, node):
        kind = type(node)
        if kind is ast.Constant:
            self.constant(node)
        elif kind is ast.Name:
            self.name_load(node)
        elif kind is ast.Attribute:
            self.attribute(node)
        elif kind is ast.Call:
            self.expr(node.func)
            for arg in node.args:
                arg = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(arg, ast.Name) and arg.id in self.aliases:
                    self.check_name(arg.id, arg)   # a module as an argument: hasattr(torch, 'x')
                else:
                    self.expr(arg)
            for kw in node.keywords:
                if kw.arg is not None and kw.arg.startswith("__"):
                    raise expr_error(f"keyword argument {kw.arg!r} is not allowed", kw)
                self.expr(kw.value)
        elif kind is ast.BinOp:
            if type(node.op) not in BINOPS:
                raise expr_error(f"operator {type(node.op).__name__} is not allowed", node)
            self.expr(node.left)
            self.expr(node.right)
        elif kind is ast.UnaryOp:
            self.expr(node.operand)
        elif kind is ast.BoolOp:
            for value in node.values:
                self.expr(value)
        elif kind is ast.Compare:
            self.expr(node.left)
            for comp in node.comparators:
                self.expr(comp)
        elif kind is ast.IfExp:
            self.expr(node.test)
            self.expr(node.body)
            self.expr(node.orelse)
        elif kind is ast.Subscript:
            self.expr(node.value)
            self.index(node.slice)
        elif kind in (ast.List, ast.Tuple, ast.Set):
            self.seq(node)
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    raise refused(elt)
                self.expr(elt)
        elif kind is ast.Dict:
            if len(node.keys) > self.limits.max_literal_len:
                raise expr_error(f"dict display has {len(node.keys)} entries", node)
            for k, v in zip(node.keys, node.values):
                if k is None:
                    raise expr_error("**-unpacking in a dict display is not allowed", v)
                self.expr(k)
                self.expr(v)
        elif kind in (ast.Lambda, ast.JoinedStr, ast.FormattedValue, *_COMPREHENSIONS):
            self.scoped_expr(node)
        elif kind is ast.Slice:
            raise expr_error("a slice is only allowed inside [...]", node)
        else:
            raise refused(node)

    def scoped_expr(self, node):
        """lambda, comprehensions, f-strings."""
        kind = type(node)
        if kind is ast.Lambda:
            self.arguments(node.args)
            self.function_depth += 1
            self.expr(node.body)
            self.function_depth -= 1
        elif kind in _COMPREHENSIONS:
            for gen in node.generators:
                if gen.is_async:
                    raise refused(node)
                self.expr(gen.iter)
                self.target(gen.target, unpack=True)
                for cond in gen.ifs:
                    self.expr(cond)
            if kind is ast.DictComp:
                self.expr(node.key)
                self.expr(node.value)
            else:
                self.expr(node.elt)
        elif kind is ast.JoinedStr:
            for value in node.values:
                self.expr(value)
        elif kind is ast.FormattedValue:
            self.expr(node.value)
            if node.format_spec is not None:
                self.expr(node.format_spec)

    def attribute(self, node):
        if node.attr.startswith("_"):
            value = node.value
            is_super = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                        and value.func.id == "super")
            if not ((node.attr == "__init__" and is_super) or node.attr == "__name__"
                    or node.attr in TENSOR_PRIVATE_ATTRS):
                raise expr_error(f"attribute {node.attr!r} is not allowed", node)
        root = node.value
        while isinstance(root, ast.Attribute):
            if root.attr.startswith("_"):
                raise expr_error(f"attribute {root.attr!r} is not allowed", root)
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.aliases:
            self.check_name(root.id, root)
            (self.inner_loads if self.function_depth else self.top_loads).append(root)
            return
        self.expr(node.value)

    def constant(self, node):
        value = node.value
        kind = type(value)
        if value is None or value is Ellipsis or kind in (bool, float):
            return
        if kind is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise expr_error(f"integer literal has {value.bit_length()} bits "
                                 f"(limit {self.limits.max_int_bits})", node)
        elif kind is str:
            if len(value) > self.limits.max_str_len:
                raise expr_error("string literal is too long", node)
        else:
            raise expr_error(f"{kind.__name__} literal is not allowed", node)
