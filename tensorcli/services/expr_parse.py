"""The language's parser (the first layer of tensorcli's safe interpreter, see services/expr.py and
services/program.py): size and nesting limits, then the static whitelist of services/expr_validate.py
(node types, no dunder names, no ``_`` attributes, imports of torch's own modules only). Nothing here
executes user text.
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

    max_chars: int = 100_000
    max_nodes: int = 20_000
    max_depth: int = 50            # bracket nesting in the source
    max_ast_depth: int = 100       # syntax-tree nesting; also bounds the evaluator's recursion
    max_statements: int = 2_000
    max_int_bits: int = 4_096
    max_str_len: int = 100_000
    max_seq_len: int = 100_000     # elements of a list/tuple value, nested elements included
    max_literal_len: int = 1_000   # elements written in one list/tuple display
    max_bytes: int = 2 * 1024**3   # largest tensor one operation may request
    max_iterations: int = 200_000  # loop and comprehension iterations plus function calls, per run
    max_call_depth: int = 40       # nested calls of the program's own functions (recursion)
    max_output_chars: int = 10_000_000  # what print() may write in one run


class ExprError(ValueError):
    """The expression was refused: syntax, construct, name, type or size limit. ``reason`` is the
    message without position; ``line``/``col`` the place (1-based) or None."""

    reason: str = ""
    line = None
    col = None


# Root names that resolve to modules, by canonical dotted path (a program may rebind F and nn).
ALIASES = {"torch": "torch", "core": "torch", "F": "torch.nn.functional", "nn": "torch.nn"}
SUBMODULES = ("nn", "nn.functional", "nn.init", "autograd", "autograd.graph", "autograd.function",
              "linalg", "fft", "special", "optim")
# Modules a program may import besides torch's (numpy through a whitelist: services/program_values.py).
IMPORTABLE_ROOTS = ("torch", "numpy")

# Public module functions that touch files or compile code.
DENIED_MEMBERS = frozenset({
    "save", "load", "compile", "from_file", "frombuffer", "fork_rng", "hub", "jit", "utils", "backends",
    "library",
})
DENIED_PREFIXES = ("set_", "use_", "load", "save", "register")
ALLOWED_MEMBERS = frozenset({"set_grad_enabled", "set_detect_anomaly", "set_printoptions", "saved_tensors_hooks",
                             "save_on_cpu"})
# Tensor methods that take a callable per element or expose storage / files; refused by name.
DENIED_TENSOR_ATTRS = frozenset({
    "apply_", "map_", "map2_", "tofile", "dump", "dumps", "storage", "untyped_storage", "share_memory_",
})
# Attributes refused on any value: files, frames, code, and the class hierarchy.
DENIED_ATTRS = frozenset({
    "tofile", "fromfile", "dump", "dumps", "storage", "untyped_storage", "share_memory_", "from_file",
    "to_file", "save", "load", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "ag_frame",
    "f_globals", "f_locals", "f_back", "f_builtins", "tb_frame", "tb_next", "mro", "format_map",
})
DENIED_ATTR_PREFIXES = ("export", "dump", "tofile", "to_file", "from_file", "fromfile", "save_to",
                        "load_from")


# The `_` attributes of tensors that PyTorch programs read (version counter, a view's base).
TENSOR_PRIVATE_ATTRS = frozenset({"_version", "_base"})


def attr_denied(attr: str) -> bool:
    """An attribute name no value may give: ``_`` names, files, frames (see DENIED_ATTRS)."""
    return attr.startswith("_") or attr in DENIED_ATTRS or attr.startswith(DENIED_ATTR_PREFIXES)


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
    err = ExprError(f"expression: {message}{_where(node) if node is not None else ''}")
    err.reason = message
    if node is not None and getattr(node, "lineno", None) is not None:
        err.line, err.col = node.lineno, node.col_offset + 1
    return err


def located(err: ExprError) -> str:
    """'line 3, col 5: <reason>' (or the reason alone when the place is unknown)."""
    reason = err.reason or str(err).removeprefix("expression: ")
    return f"line {err.line}, col {err.col}: {reason}" if err.line is not None else reason


def refused(node) -> ExprError:
    what = _CONSTRUCTS.get(type(node), type(node).__name__)
    return expr_error(f"{what} is not allowed", node)


# ---------------------------------------------------------------------------------------
# Parsing and static validation
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Program:
    """A parsed, statically validated program: ``aliases`` maps names to module paths (the default
    torch/core/F/nn unless the program binds them otherwise, plus its imports), ``bound`` is every
    name the program binds anywhere, ``top_loads`` the Name nodes read outside function bodies."""

    source: str
    statements: tuple
    names_assigned: list
    limits: Limits
    aliases: dict = None
    bound: frozenset = frozenset()
    top_loads: tuple = ()
    inner_loads: tuple = ()
    attributes: tuple = ()        # every Attribute node (module chains are resolved before running)


def parse_tree(source: str, limits: Limits) -> ast.Module:
    """``source`` as a syntax tree within ``limits`` (size, nesting, statements); raise ExprError otherwise.
    expr_validate.parse validates the tree."""
    if not isinstance(source, str):
        raise ExprError(f"expression: source must be a str, not {type(source).__name__}")
    if len(source) > limits.max_chars:
        raise expr_error(f"source is {len(source)} characters long (limit {limits.max_chars})")
    _check_brackets(source, limits)
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        where = f" (line {e.lineno}, col {e.offset})" if e.lineno else ""
        err = ExprError(f"expression: invalid syntax: {e.msg}{where}")
        err.reason, err.line, err.col = f"invalid syntax: {e.msg}", e.lineno, e.offset
        raise err from None
    except (RecursionError, MemoryError):
        raise expr_error("too deeply nested or too complex to parse") from None
    except ValueError as e:  # null bytes, int literals over sys.int_info digit limit
        raise expr_error(f"cannot parse: {e}") from None
    _check_tree_size(tree, limits)
    if not tree.body:
        raise expr_error("expression is empty")
    if len(tree.body) > limits.max_statements:
        raise expr_error(f"{len(tree.body)} statements (limit {limits.max_statements})")
    return tree


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


