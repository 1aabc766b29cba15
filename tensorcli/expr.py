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
import importlib
import io
import math
import operator
import tokenize
import types
from dataclasses import dataclass

import numpy as np

__all__ = ["Limits", "ExprError", "Program", "Backend", "ALIASES", "parse", "evaluate"]


@dataclass(frozen=True)
class Limits:
    """Bounds applied while parsing and evaluating an expression."""

    max_chars: int = 10_000
    max_nodes: int = 2_000
    max_depth: int = 50            # bracket nesting in the source
    max_ast_depth: int = 100       # syntax-tree nesting; also bounds the evaluator's recursion
    max_statements: int = 100
    max_int_bits: int = 4_096
    max_str_len: int = 100_000
    max_seq_len: int = 100_000     # elements of a list/tuple value, nested elements included
    max_literal_len: int = 1_000   # elements written in one list/tuple display
    max_bytes: int = 2 * 1024**3   # largest tensor one operation may request


class ExprError(ValueError):
    """The expression was refused: syntax, construct, name, type or size limit."""


# Root names that resolve to modules, by canonical dotted path.
ALIASES = {"torch": "torch", "core": "torch", "F": "torch.nn.functional", "nn": "torch.nn"}
_SUBMODULES = ("nn", "nn.functional", "nn.init", "autograd", "linalg", "fft", "special")

# Public module functions that touch files, global RNG/config state, or compile code.
_DENIED_MEMBERS = frozenset({
    "save", "load", "manual_seed", "seed", "compile", "from_file", "from_numpy", "frombuffer",
    "fork_rng", "hub", "jit", "utils", "backends", "library",
})
_DENIED_PREFIXES = ("set_", "use_", "load", "save", "register")
# Tensor methods that take callables or write files; refused by name as a second guard.
_DENIED_TENSOR_ATTRS = frozenset({
    "register_hook", "register_post_accumulate_grad_hook", "apply_", "map_", "map2_",
    "tofile", "dump", "dumps", "storage", "untyped_storage", "share_memory_",
})

_CONSTRUCTS = {
    ast.Lambda: "lambda", ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.NamedExpr: "assignment expression (:=)", ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string", ast.Starred: "starred expression", ast.Dict: "dict display",
    ast.Set: "set display", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.Import: "import", ast.ImportFrom: "import", ast.Delete: "del statement",
    ast.Global: "global statement", ast.Nonlocal: "nonlocal statement",
    ast.FunctionDef: "function definition", ast.AsyncFunctionDef: "function definition",
    ast.ClassDef: "class definition", ast.With: "with statement", ast.AsyncWith: "with statement",
    ast.For: "for loop", ast.AsyncFor: "for loop", ast.While: "while loop", ast.If: "if statement",
    ast.Try: "try statement", ast.TryStar: "try statement", ast.Raise: "raise statement",
    ast.Assert: "assert statement", ast.Return: "return statement", ast.Pass: "pass statement",
    ast.Break: "break statement", ast.Continue: "continue statement", ast.Match: "match statement",
    ast.AnnAssign: "annotated assignment",
}

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_INPLACE = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
    ast.Pow: operator.ipow, ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand,
    ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
    ast.RShift: operator.irshift,
}
_OP_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>",
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
# Leaves of the tree that carry no information of their own; not counted against max_nodes.
_UNCOUNTED = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _where(node) -> str:
    line = getattr(node, "lineno", None)
    if line is None:
        return ""
    return f" (line {line}, col {node.col_offset + 1})"


def _err(message: str, node=None) -> ExprError:
    return ExprError(f"expression: {message}{_where(node) if node is not None else ''}")


def _refuse(node) -> ExprError:
    what = _CONSTRUCTS.get(type(node), type(node).__name__)
    return _err(f"{what} is not allowed", node)


# ---------------------------------------------------------------------------------------
# Parsing and static validation
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Program:
    """A parsed, statically validated expression program."""

    source: str
    statements: tuple
    names_assigned: list
    limits: Limits


def parse(source: str, limits: Limits | None = None) -> Program:
    """Parse and statically validate ``source``; raise ExprError for anything refused."""
    limits = limits or Limits()
    if not isinstance(source, str):
        raise ExprError(f"expression: source must be a str, not {type(source).__name__}")
    if len(source) > limits.max_chars:
        raise _err(f"source is {len(source)} characters long (limit {limits.max_chars})")
    _check_brackets(source, limits)
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        where = f" (line {e.lineno}, col {e.offset})" if e.lineno else ""
        raise ExprError(f"expression: invalid syntax: {e.msg}{where}") from None
    except (RecursionError, MemoryError):
        raise _err("too deeply nested or too complex to parse") from None
    except ValueError as e:  # null bytes, int literals over sys.int_info digit limit
        raise _err(f"cannot parse: {e}") from None
    _check_tree_size(tree, limits)
    if not tree.body:
        raise _err("expression is empty")
    if len(tree.body) > limits.max_statements:
        raise _err(f"{len(tree.body)} statements (limit {limits.max_statements})")
    validator = _Validator(limits)
    for stmt in tree.body:
        validator.stmt(stmt)
    return Program(source, tuple(tree.body), validator.assigned, limits)


def _check_brackets(source: str, limits: Limits) -> None:
    # Token-based so that brackets inside string literals do not count, and it stops at
    # the first excess, before ast.parse ever sees pathological nesting.
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type != tokenize.OP:
                continue
            if tok.string in ("(", "[", "{"):
                depth += 1
                if depth > limits.max_depth:
                    line, col = tok.start
                    raise ExprError(f"expression: brackets nested deeper than {limits.max_depth} "
                                    f"(line {line}, col {col + 1})")
            elif tok.string in (")", "]", "}"):
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        return  # malformed source: ast.parse reports it properly


def _check_tree_size(tree, limits: Limits) -> None:
    count = 0
    stack = [(tree, 0)]
    while stack:  # iterative: the tree may be deeper than Python's recursion limit
        node, depth = stack.pop()
        if isinstance(node, _UNCOUNTED):
            continue
        count += 1
        if count > limits.max_nodes:
            raise _err(f"more than {limits.max_nodes} syntax nodes")
        if depth > limits.max_ast_depth:
            raise _err(f"nested deeper than {limits.max_ast_depth} levels", node)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


class _Validator:
    """Whitelist walk over the tree; records assigned names in order."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.assigned: list[str] = []

    def stmt(self, node):
        if isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            self.expr(node.value)
            for target in node.targets:
                self.target(target, unpack=True)
        elif isinstance(node, ast.AugAssign):
            self.target(node.target, unpack=False)
            self.expr(node.value)
        else:
            raise _refuse(node)

    def target(self, node, unpack):
        if isinstance(node, ast.Name):
            self.store_name(node)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.index(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List)) and unpack:
            for elt in node.elts:
                if not isinstance(elt, ast.Name):
                    raise _err("only plain names can be unpacked into", elt)
                self.store_name(elt)
        elif isinstance(node, ast.Attribute):
            raise _err("attribute assignment is not allowed", node)
        else:
            raise _refuse(node) if type(node) in _CONSTRUCTS else _err(
                f"cannot assign to {type(node).__name__}", node)

    def store_name(self, node):
        self.name(node)
        if node.id in ALIASES:
            raise _err(f"cannot assign to module alias {node.id!r}", node)
        if node.id not in self.assigned:
            self.assigned.append(node.id)

    def name(self, node):
        if node.id.startswith("_"):
            raise _err(f"name {node.id!r} is not allowed", node)

    def index(self, node):
        if isinstance(node, ast.Slice):
            self.slice(node)
        elif isinstance(node, ast.Tuple):
            self.seq(node)
            for elt in node.elts:
                self.index_elt(elt)
        else:
            self.expr(node)

    def index_elt(self, node):
        if isinstance(node, ast.Slice):
            self.slice(node)
        else:
            self.expr(node)

    def slice(self, node):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.expr(part)

    def seq(self, node):
        if len(node.elts) > self.limits.max_literal_len:
            raise _err(f"{type(node).__name__.lower()} display has {len(node.elts)} elements "
                       f"(limit {self.limits.max_literal_len})", node)
        if not isinstance(node.ctx, ast.Load):
            raise _err("unpacking is only allowed as an assignment target", node)

    def expr(self, node, str_ok=False):
        if isinstance(node, ast.Constant):
            self.constant(node, str_ok)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise _err(f"attribute {node.attr!r} is not allowed", node)
            self.expr(node.value)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                raise _err(f"operator {type(node.op).__name__} is not allowed", node)
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.UnaryOp):
            self.expr(node.operand)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                self.expr(value)
        elif isinstance(node, ast.Compare):
            self.expr(node.left)
            for comp in node.comparators:
                self.expr(comp)
        elif isinstance(node, ast.IfExp):
            self.expr(node.test)
            self.expr(node.body, str_ok)
            self.expr(node.orelse, str_ok)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.index(node.slice)
        elif isinstance(node, (ast.List, ast.Tuple)):
            self.seq(node)
            for elt in node.elts:
                self.expr(elt, str_ok)
        elif isinstance(node, ast.Slice):
            raise _err("a slice is only allowed inside [...]", node)
        else:
            raise _refuse(node)

    def constant(self, node, str_ok):
        value = node.value
        kind = type(value)
        if value is None or value is Ellipsis or kind in (bool, float):
            return
        if kind is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise _err(f"integer literal has {value.bit_length()} bits "
                           f"(limit {self.limits.max_int_bits})", node)
        elif kind is str:
            if not str_ok:
                raise _err("string literals are only allowed as call arguments", node)
            if len(value) > self.limits.max_str_len:
                raise _err("string literal is too long", node)
        else:
            raise _err(f"{kind.__name__} literal is not allowed", node)

    def call(self, node):
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise _err("only named functions and tensor methods can be called", node)
        self.expr(node.func)
        for arg in node.args:
            self.expr(arg, str_ok=True)
        for kw in node.keywords:
            if kw.arg is None:
                raise _err("**-unpacking is not allowed", kw)
            if kw.arg.startswith("_"):
                raise _err(f"keyword argument {kw.arg!r} is not allowed", kw)
            self.expr(kw.value, str_ok=True)


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
        """Backend for a core-like package: its submodules in _SUBMODULES that import."""
        modules = {"torch": mod}
        for sub in _SUBMODULES:
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
                and not n.startswith("_") and n not in _DENIED_MEMBERS
                and not n.startswith(_DENIED_PREFIXES) and f"{path}.{n}" not in self.modules)
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
# Allocation estimates
# ---------------------------------------------------------------------------------------

_SHAPE_ARGS = frozenset({"zeros", "ones", "empty", "rand", "randn", "new_zeros", "new_ones",
                         "new_empty", "resize_", "resize", "empty_strided"})
_INT_SHAPE_ARGS = frozenset({"Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor",
                             "BoolTensor", "new"})
_SHAPE_FIRST = frozenset({"full", "new_full"})
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                   "randn_like", "randint_like"})
_INT_RESULTS = frozenset({"randint", "randperm", "tril_indices", "triu_indices", "one_hot",
                          "bincount"})


def _index(value):
    """``operator.index(value)`` or None; never raises."""
    if type(value) in (int, bool):
        return int(value)
    try:
        return operator.index(value)
    except Exception:
        return None


def _dim(value):
    """A dimension as an int or None; finite floats count too, in case the op accepts them."""
    if type(value) is float:
        return int(value) if math.isfinite(value) else None
    return _index(value)


def _shape(value):
    """A shape given as an int or a sequence of ints, else None."""
    n = _dim(value)
    if n is not None:
        return [n]
    if isinstance(value, (list, tuple)):
        dims = [_dim(v) for v in value]
        if all(d is not None for d in dims):
            return dims
    return None


def _varargs_shape(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return _shape(args[0])
    dims = [_dim(a) for a in args]
    return dims if dims and all(d is not None for d in dims) else None


def _numel(dims) -> int:
    return math.prod(max(int(d), 0) for d in dims)


def _broadcast(shapes):
    """Broadcast shape of ``shapes`` or None if they do not broadcast."""
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(1, ndim + 1):
        sizes = {s[-i] for s in shapes if len(s) >= i} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return out[::-1]


def _matmul_numel(a, b):
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return 1
    a2 = [1, a[0]] if len(a) == 1 else a
    b2 = [b[0], 1] if len(b) == 1 else b
    batch = _broadcast([a2[:-2] or [1], b2[:-2] or [1]])
    if batch is None:
        return None
    return _numel(batch) * a2[-2] * b2[-1]


class _Alloc:
    """Estimates the bytes an operation is about to allocate, from its arguments."""

    def __init__(self, backend: Backend):
        self.tensor_types = backend.tensor_types
        self.backend = backend

    def is_tensor(self, value):
        return isinstance(value, self.tensor_types)

    @staticmethod
    def dims(t):
        try:
            return [int(d) for d in t.shape]
        except Exception:
            return None

    @staticmethod
    def itemsize(t, default=8):
        return getattr(getattr(t, "dtype", None), "itemsize", default) or default

    def tensors_in(self, values):
        return [v for v in values if self.is_tensor(v)]

    def elementwise(self, operands, op=None):
        """(numel, itemsize) of broadcasting (or ``@`` when op is MatMult) the tensors."""
        tensors = self.tensors_in(operands)
        if not tensors:
            return None
        shapes = [self.dims(t) for t in tensors]
        if any(s is None for s in shapes):
            return None
        itemsize = max(self.itemsize(t) for t in tensors)
        if any(type(v) is float for v in operands):
            itemsize = max(itemsize, 4)
        if op == "matmul":
            if len(shapes) != 2:
                return None
            numel = _matmul_numel(*shapes)
        else:
            out = _broadcast(shapes) if len(shapes) > 1 else None
            numel = None if out is None else _numel(out)
        return None if numel is None else (numel, itemsize)

    def call(self, name, args, kwargs, receiver):
        """Largest (numel, itemsize) estimate for a call; None when nothing is known."""
        estimates = []
        for estimate in (self.generic, self.specific):
            try:
                estimates.append(estimate(name, args, kwargs, receiver))
            except Exception:  # an estimate must never break a legitimate call
                pass
        estimates = [e for e in estimates if e is not None]
        return max(estimates, key=lambda e: e[0] * e[1]) if estimates else None

    def generic(self, name, args, kwargs, receiver):
        operands = ([receiver] if receiver is not None else []) + list(args) + list(kwargs.values())
        best = self.elementwise(operands)
        # cat/stack-style: tensors passed inside a list or tuple are all copied.
        for value in operands:
            if isinstance(value, (list, tuple)):
                inner = self.tensors_in(value)
                shapes = [self.dims(t) for t in inner]
                if inner and all(s is not None for s in shapes):
                    total = (sum(_numel(s) for s in shapes), max(self.itemsize(t) for t in inner))
                    if best is None or total[0] * total[1] > best[0] * best[1]:
                        best = total
        size = _shape(kwargs.get("size"))
        if size is not None:
            cand = (_numel(size), self.backend.default_itemsize())
            if best is None or cand[0] * cand[1] > best[0] * best[1]:
                best = cand
        return best

    def specific(self, name, args, kwargs, receiver):
        dtype = kwargs.get("dtype")
        base = receiver
        rest = list(args)
        if base is None and args and self.is_tensor(args[0]):
            base, rest = args[0], list(args[1:])
        default = self.itemsize(base) if base is not None else (
            8 if name in _INT_RESULTS else self.backend.default_itemsize())
        itemsize = getattr(dtype, "itemsize", None) or default
        base_dims = self.dims(base) if base is not None else None
        base_numel = _numel(base_dims) if base_dims is not None else None

        numel = None
        if name in _SHAPE_ARGS:
            dims = _varargs_shape(args) if args else _shape(kwargs.get("size"))
            numel = None if dims is None else _numel(dims)
        elif name in _INT_SHAPE_ARGS:
            dims = list(args) if args and all(type(a) is int for a in args) else None
            numel = None if not dims else _numel(dims)
        elif name in _SHAPE_FIRST:
            dims = _shape(args[0] if args else kwargs.get("size"))
            numel = None if dims is None else _numel(dims)
        elif name in _LIKE:
            numel = base_numel
        elif name == "randint":
            size = kwargs.get("size", args[-1] if args else None)
            dims = _shape(size) if isinstance(size, (list, tuple)) else None
            numel = None if dims is None else _numel(dims)
        elif name == "randperm":
            numel = _dim(args[0] if args else kwargs.get("n"))
        elif name in ("arange", "range"):
            if len(args) == 1 and "end" not in kwargs:
                start, end, step = 0, args[0], kwargs.get("step", 1)
            else:
                given = dict(zip(("start", "end", "step"), args))
                given.update({k: kwargs[k] for k in ("start", "end", "step") if k in kwargs})
                start, end, step = given.get("start", 0), given.get("end"), given.get("step", 1)
            if all(type(v) in (int, float, bool) for v in (start, end, step)):
                if step and all(math.isfinite(v) for v in (start, end, step)):
                    numel = max(0, math.ceil((end - start) / step))
                    if all(type(v) is int for v in (start, end, step)) and dtype is None:
                        itemsize = 8
        elif name in ("linspace", "logspace"):
            numel = _dim(args[2] if len(args) > 2 else kwargs.get("steps"))
        elif name == "eye":
            n = _dim(args[0] if args else kwargs.get("n"))
            m = _dim(args[1] if len(args) > 1 else kwargs.get("m", n))
            numel = None if n is None or m is None else max(n, 0) * max(m, 0)
        elif name in ("tril_indices", "triu_indices"):
            r, c = (_dim(a) for a in (list(args) + [None, None])[:2])
            numel = None if r is None or c is None else 2 * max(r, 0) * max(c, 0)
        elif name in ("repeat", "tile") and base_numel is not None:
            dims = _varargs_shape(rest)
            numel = None if dims is None else base_numel * _numel(dims)
        elif name in ("expand", "broadcast_to") and base_dims is not None:
            dims = _varargs_shape(rest) if rest else _shape(kwargs.get("size"))
            if dims is not None:
                aligned = [None] * (len(dims) - len(base_dims)) + base_dims
                numel = _numel(b if d == -1 and b is not None else d for d, b in zip(dims, aligned))
        elif name == "repeat_interleave" and base_numel is not None:
            reps = _dim(rest[0] if rest else kwargs.get("repeats"))
            numel = None if reps is None else base_numel * max(reps, 0)
        elif name == "one_hot" and base_numel is not None:
            classes = _dim(rest[0] if rest else kwargs.get("num_classes", -1))
            numel = None if classes is None else base_numel * max(classes, 1)
        elif name == "bincount":
            numel = _dim(kwargs.get("minlength", rest[1] if len(rest) > 1 else None))
        elif name == "histc":
            numel = _dim(kwargs.get("bins", rest[0] if rest else None))
        elif name == "pad" and base_dims is not None:
            pad = _shape(rest[0] if rest else kwargs.get("pad"))
            if pad is not None and len(pad) // 2 <= len(base_dims):
                dims = list(base_dims)
                for i in range(len(pad) // 2):
                    dims[-1 - i] += pad[2 * i] + pad[2 * i + 1]
                numel = _numel(dims)
        elif name == "interpolate" and base_dims is not None and len(base_dims) > 2:
            lead, spatial = base_dims[:2], base_dims[2:]
            size = kwargs.get("size", rest[0] if rest else None)
            scale = kwargs.get("scale_factor", rest[1] if len(rest) > 1 else None)
            if size is not None:
                dims = _shape(size)
                if dims is not None and len(dims) == 1:
                    dims = dims * len(spatial)
                numel = None if dims is None else _numel(lead) * _numel(dims)
            elif type(scale) in (int, float) and math.isfinite(scale):
                numel = _numel(lead) * math.prod(math.floor(d * scale) for d in spatial)
        elif name in ("matmul", "mm", "bmm") and len(args) + (receiver is not None) >= 2:
            return self.elementwise(([receiver] if receiver is not None else []) + list(args),
                                    op="matmul")
        elif name in ("outer", "ger", "kron", "cartesian_prod", "cdist", "block_diag"):
            tensors = self.tensors_in(([receiver] if receiver is not None else []) + list(args))
            shapes = [self.dims(t) for t in tensors]
            if tensors and all(s is not None for s in shapes):
                numel = math.prod(_numel(s) for s in shapes)
                if name == "cartesian_prod":
                    numel *= len(shapes)
                itemsize = max(self.itemsize(t) for t in tensors)
        elif name in ("diag", "diagflat", "diag_embed") and base_dims is not None:
            n = base_numel if name == "diagflat" or len(base_dims) == 1 else None
            if name == "diag_embed" and base_dims:
                n = base_numel * base_dims[-1]
            elif n is not None:
                n = n * n
            numel = n
        return None if numel is None else (numel, itemsize)


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------

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
        self.alloc = _Alloc(backend)
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
                raise _err(f"cannot assign to {name_node.id!r}", name_node)
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
                raise _err(f"{name!r} is not callable", node)
        elif name in self.extras:
            if not call:
                raise _err(f"function {name!r} can only be called", node)
            self.resolved[node] = (self.extras[name], name)
        elif name in ALIASES:
            raise _err(f"module {name!r} cannot be used as a value", node)
        else:
            raise _err(f"unknown name {name!r}", node)

    def _resolve_chain(self, node, root, parts, call):
        label = ".".join([root, *parts])
        if label in self.extras:
            obj, trusted = self.extras[label], True
        elif root in self.extras:
            obj, trusted = self.extras[root], True
            if not (parts == ["apply"] and isinstance(obj, type)
                    and callable(getattr(obj, "apply", None))):
                raise _err(f"attribute {parts[0]!r} of {root!r} is not allowed", node)
            obj = obj.apply
        elif root in ALIASES:
            obj, trusted = self._module_member(node, root, parts), False
        else:  # a dotted extra exists with this root, but not this chain
            raise _err(f"unknown name {label!r}", node)
        if call:
            if not callable(obj):
                raise _err(f"{label!r} is not callable", node)
            if isinstance(obj, types.ModuleType):
                raise _err(f"module {label!r} is not callable", node)
            if isinstance(obj, type) and not trusted and not issubclass(
                    obj, self.backend.constructible):
                raise _err(f"calling class {label!r} is not allowed "
                           "(its instances are not allowed values)", node)
        elif isinstance(obj, types.ModuleType):
            raise _err(f"module {label!r} cannot be used as a value", node)
        elif callable(obj):
            raise _err(f"function {label!r} can only be called", node)
        else:
            obj = self.check(obj, node)
        self.resolved[node] = (obj, label)

    def _module_member(self, node, root, parts):
        path = ALIASES[root]
        modules = self.backend.modules
        if path not in modules:
            raise _err(f"module {root!r} is not available", node)
        obj, shown = modules[path], root
        for part in parts:
            if path is not None and f"{path}.{part}" in modules:
                path = f"{path}.{part}"
                obj = modules[path]
            elif path is not None and part in self.backend.members(path):
                try:
                    obj = getattr(obj, part)
                except AttributeError:
                    raise _err(f"{shown}.{part} is not available", node) from None
                path = None
            else:
                kind = "module " if path is not None else ""
                raise _err(f"attribute {part!r} of {kind}{shown!r} is not allowed", node)
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
                raise _err(f"cannot unpack a value of type {type(value).__name__}", target)
            if len(value) != len(target.elts):
                raise _err(f"cannot unpack {len(value)} values into {len(target.elts)} names",
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
            raise _err(f"item assignment is only allowed on tensors, not "
                       f"{type(container).__name__}", node)
        self.guard_index(container, idx, node)
        container[idx] = value

    def visit(self, node):
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:  # unreachable after validation; kept as a last line of defence
            raise _refuse(node)
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
            raise _err(f"attribute {attr!r} is not allowed", node)
        if isinstance(obj, self.tensor_types):
            tname = type(obj).__name__
            if attr in _DENIED_TENSOR_ATTRS:
                raise _err(f"attribute {attr!r} of {tname} is not allowed", node)
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
            raise _err(f"attribute access on a {type(obj).__name__} value is not allowed", node)
        if call:
            return value
        if callable(value):
            raise _err(f"method {attr!r} can only be called", node)
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
                raise _err(f"calling a method of a {type(receiver).__name__} value is not allowed",
                           func)
            fn = self.get_attr(receiver, func.attr, func, call=True)
            name = func.attr
        args = [self.visit(a) for a in node.args]
        kwargs = {kw.arg: self.visit(kw.value) for kw in node.keywords}
        if name == "tolist" and receiver is not None:
            n = _numel(self.alloc.dims(receiver) or [0])
            if n > self.limits.max_seq_len:
                raise _err(f"tolist() of {n} elements (limit {self.limits.max_seq_len})", node)
        self.guard_bytes(self.alloc.call(name, args, kwargs, receiver), f"{name}()", node)
        return self.check(fn(*args, **kwargs), node)

    def eval_BinOp(self, node):
        left = self.visit(node.left)
        right = self.visit(node.right)
        return self.binop(node.op, left, right, node)

    def binop(self, op, left, right, node, inplace=False):
        kind = type(op)
        symbol = _OP_SYMBOLS[kind]
        if kind is ast.Pow:
            self.guard_pow(left, right, node)
        elif kind is ast.Mult:
            self.guard_mul(left, right, node)
        elif kind is ast.LShift:
            if type(left) in (int, bool) and type(right) in (int, bool) and right > 0 and \
                    left.bit_length() + right > self.limits.max_int_bits:
                raise _err(f"{symbol} result exceeds {self.limits.max_int_bits} bits", node)
        elif kind is ast.Mod and isinstance(left, str):
            raise _err("string formatting with % is not allowed", node)
        if isinstance(left, self.tensor_types) or isinstance(right, self.tensor_types):
            est = self.alloc.elementwise([left, right], "matmul" if kind is ast.MatMult else None)
            self.guard_bytes(est, f"'{symbol}'", node)
        fn = _INPLACE[kind] if inplace and isinstance(left, self.tensor_types) else _BINOPS[kind]
        return self.check(fn(left, right), node)

    def guard_pow(self, base, exp, node):
        if type(base) in (int, bool) and type(exp) in (int, bool) and exp > 0 and abs(base) > 1:
            # (bit_length - 1) * exp is a lower bound on the result's bit length.
            if (abs(base).bit_length() - 1) * exp > self.limits.max_int_bits:
                raise _err(f"integer power with exponent {_short(exp)} exceeds "
                           f"{self.limits.max_int_bits} bits", node)

    def guard_mul(self, left, right, node):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and not isinstance(
                    count, (str, list, tuple, float)):
                n = _index(count)
                limit = self.limits.max_str_len if isinstance(seq, str) else self.limits.max_seq_len
                if n is not None and n > 0 and len(seq) * n > limit:
                    kind = "string" if isinstance(seq, str) else type(seq).__name__
                    raise _err(f"{kind} repetition would make {_short(len(seq) * n)} elements "
                               f"(limit {limit})", node)
        if type(left) in (int, bool) and type(right) in (int, bool) and \
                left.bit_length() + right.bit_length() > self.limits.max_int_bits + 1:
            raise _err(f"integer product exceeds {self.limits.max_int_bits} bits", node)

    def guard_bytes(self, estimate, what, node):
        if estimate is None:
            return
        numel, itemsize = estimate
        nbytes = numel * itemsize
        if nbytes > self.limits.max_bytes:
            raise _err(f"{what} would allocate {_short(numel)} elements ({_bytes(nbytes)}; "
                       f"limit {_bytes(self.limits.max_bytes)})", node)

    def guard_index(self, container, idx, node):
        if isinstance(container, self.tensor_types) and isinstance(idx, tuple):
            # Several index tensors broadcast against each other (x[a, b]).
            est = self.alloc.elementwise(list(idx))
            if est is not None:
                self.guard_bytes((est[0], self.alloc.itemsize(container)), "indexing", node)

    def eval_UnaryOp(self, node):
        return self.check(_UNARY[type(node.op)](self.visit(node.operand)), node)

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
            result = self.check(_COMPARE[type(op)](left, right), node)
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
                raise _err(f"integer result has {value.bit_length()} bits "
                           f"(limit {self.limits.max_int_bits})", node)
            return value
        if kind is str:
            if len(value) > self.limits.max_str_len:
                raise _err(f"string of {len(value)} characters (limit {self.limits.max_str_len})",
                           node)
            return value
        if isinstance(value, self.tensor_types):
            return value
        if kind is list or isinstance(value, tuple):
            if depth > self.limits.max_ast_depth:
                raise _err("value nested too deeply", node)
            budget[0] -= len(value)
            if budget[0] < 0:
                raise _err(f"{kind.__name__} value with more than {self.limits.max_seq_len} "
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
            raise _err("a module is not an allowed value", node)
        if callable(value):
            raise _err(f"a {kind.__name__} value is not allowed (functions and classes can "
                       "only be called)", node)
        raise _err(f"a value of type {kind.__name__!r} is not allowed", node)


def _short(n: int) -> str:
    return str(n) if n.bit_length() < 200 else f"~2**{n.bit_length() - 1}"


def _bytes(n: int) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"
