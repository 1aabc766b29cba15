"""The expression language's parser and static validator (the first layer of tensorcli's safe
evaluator, see services/expr.py): size and nesting limits, a whitelist of node types, no ``_``
names or attributes, no modules outside ``ALIASES``. Nothing here executes user text.
"""
from __future__ import annotations

import ast
import io
import operator
import tokenize
from dataclasses import dataclass

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
SUBMODULES = ("nn", "nn.functional", "nn.init", "autograd", "linalg", "fft", "special")

# Public module functions that touch files, global RNG/config state, or compile code.
DENIED_MEMBERS = frozenset({
    "save", "load", "manual_seed", "seed", "compile", "from_file", "from_numpy", "frombuffer",
    "fork_rng", "hub", "jit", "utils", "backends", "library",
})
DENIED_PREFIXES = ("set_", "use_", "load", "save", "register")
# Tensor methods that take callables or write files; refused by name as a second guard.
DENIED_TENSOR_ATTRS = frozenset({
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

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
INPLACE = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
    ast.Pow: operator.ipow, ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand,
    ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
    ast.RShift: operator.irshift,
}
OP_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>",
}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
COMPARE = {
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


def expr_error(message: str, node=None) -> ExprError:
    return ExprError(f"expression: {message}{_where(node) if node is not None else ''}")


def refused(node) -> ExprError:
    what = _CONSTRUCTS.get(type(node), type(node).__name__)
    return expr_error(f"{what} is not allowed", node)


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
        raise expr_error(f"source is {len(source)} characters long (limit {limits.max_chars})")
    _check_brackets(source, limits)
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        where = f" (line {e.lineno}, col {e.offset})" if e.lineno else ""
        raise ExprError(f"expression: invalid syntax: {e.msg}{where}") from None
    except (RecursionError, MemoryError):
        raise expr_error("too deeply nested or too complex to parse") from None
    except ValueError as e:  # null bytes, int literals over sys.int_info digit limit
        raise expr_error(f"cannot parse: {e}") from None
    _check_tree_size(tree, limits)
    if not tree.body:
        raise expr_error("expression is empty")
    if len(tree.body) > limits.max_statements:
        raise expr_error(f"{len(tree.body)} statements (limit {limits.max_statements})")
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
            raise expr_error(f"more than {limits.max_nodes} syntax nodes")
        if depth > limits.max_ast_depth:
            raise expr_error(f"nested deeper than {limits.max_ast_depth} levels", node)
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
            raise refused(node)

    def target(self, node, unpack):
        if isinstance(node, ast.Name):
            self.store_name(node)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.index(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List)) and unpack:
            for elt in node.elts:
                if not isinstance(elt, ast.Name):
                    raise expr_error("only plain names can be unpacked into", elt)
                self.store_name(elt)
        elif isinstance(node, ast.Attribute):
            raise expr_error("attribute assignment is not allowed", node)
        else:
            raise refused(node) if type(node) in _CONSTRUCTS else expr_error(
                f"cannot assign to {type(node).__name__}", node)

    def store_name(self, node):
        self.name(node)
        if node.id in ALIASES:
            raise expr_error(f"cannot assign to module alias {node.id!r}", node)
        if node.id not in self.assigned:
            self.assigned.append(node.id)

    def name(self, node):
        if node.id.startswith("_"):
            raise expr_error(f"name {node.id!r} is not allowed", node)

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
            raise expr_error(f"{type(node).__name__.lower()} display has {len(node.elts)} elements "
                       f"(limit {self.limits.max_literal_len})", node)
        if not isinstance(node.ctx, ast.Load):
            raise expr_error("unpacking is only allowed as an assignment target", node)

    def expr(self, node, str_ok=False):
        if isinstance(node, ast.Constant):
            self.constant(node, str_ok)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise expr_error(f"attribute {node.attr!r} is not allowed", node)
            self.expr(node.value)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in BINOPS:
                raise expr_error(f"operator {type(node.op).__name__} is not allowed", node)
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
            raise expr_error("a slice is only allowed inside [...]", node)
        else:
            raise refused(node)

    def constant(self, node, str_ok):
        value = node.value
        kind = type(value)
        if value is None or value is Ellipsis or kind in (bool, float):
            return
        if kind is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise expr_error(f"integer literal has {value.bit_length()} bits "
                           f"(limit {self.limits.max_int_bits})", node)
        elif kind is str:
            if not str_ok:
                raise expr_error("string literals are only allowed as call arguments", node)
            if len(value) > self.limits.max_str_len:
                raise expr_error("string literal is too long", node)
        else:
            raise expr_error(f"{kind.__name__} literal is not allowed", node)

    def call(self, node):
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise expr_error("only named functions and tensor methods can be called", node)
        self.expr(node.func)
        for arg in node.args:
            self.expr(arg, str_ok=True)
        for kw in node.keywords:
            if kw.arg is None:
                raise expr_error("**-unpacking is not allowed", kw)
            if kw.arg.startswith("_"):
                raise expr_error(f"keyword argument {kw.arg!r} is not allowed", kw)
            self.expr(kw.value, str_ok=True)
