"""Shape errors drawn: when an op in a program fails on shapes (broadcasting, matmul, cat / stack,
view / reshape, gather's index), the lines printed under torch's message: the failing statement and
expression, the operands' shapes aligned (right-aligned for broadcasting and matmul, where trailing dims
pair up; left-aligned for cat / stack / gather, where dims pair by index) with the offending dims marked, and
the rule that failed.

``locate`` finds the failing statement, then the innermost call or operator in it that raises the same
message, by re-running them through the safe language (services/expr.py) on copies of the inputs; nothing
else executes user text. No Typer, no Rich here.
"""
from __future__ import annotations

import ast
import math
import re

import core

from . import expr

__all__ = ["locate", "drawing", "attach"]

_BROADCAST = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
                        r"non-singleton dimension (\d+)")
_EXPAND = re.compile(r"The expanded size of the tensor \((-?\d+)\) must match the existing size \((\d+)\) at "
                     r"non-singleton dimension (\d+)")
_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied|size mismatch, got input|inconsistent tensor "
                     r"size, expected tensor|Expected size for first two dimensions of batch2|"
                     r"both arguments to matmul need to be at least 1D|1D tensors expected")
_CAT = re.compile(r"Sizes of tensors must match except in dimension (-?\d+)")
_STACK = re.compile(r"stack expects each tensor to be equal size")
_TENSORS_DIMS = re.compile(r"Tensors must have same number of dimensions")
_VIEW = re.compile(r"shape '\[([-\d, ]*)\]' is invalid for input of size (\d+)")
_VIEW_STRIDE = re.compile(r"view size is not compatible with input tensor's size and stride")
_GATHER = re.compile(r"Size does not match at dimension (\d+) expected index \[([\d, ]*)\] to be no larger than "
                     r"self \[([\d, ]*)\] apart from dimension (\d+)")
_INDEX_DIMS = re.compile(r"Index tensor must have the same number of dimensions as (input|self|src) tensor")

RULES = {
    "broadcast": "broadcasting: shapes are compared from the last dim backwards; each pair of sizes must be "
                 "equal, or one of them 1",
    "matmul": "matmul: the last dim of the first operand must equal the second-to-last dim of the second "
              "(a 1-D operand: its only dim); leading (batch) dims broadcast",
    "cat": "cat: every tensor must have the first one's shape except in the dim joined",
    "stack": "stack: every tensor must have the same shape",
    "view": "view / reshape: the new shape must hold exactly as many elements as the input (one -1 is inferred)",
    "view_stride": "view: the input's strides cannot express the new shape; use .reshape() (copies if needed)",
    "gather": "gather / scatter: index.size(d) <= input.size(d) for every dim d except dim",
    "index_dims": "gather / scatter: index must have as many dims as the input",
}


def _segment(source, node) -> str:
    return ast.get_source_segment(source, node) or ""


def _copies(ns: dict) -> dict:
    out = {}
    for n, v in ns.items():
        out[n] = v.detach().clone() if isinstance(v, core.Tensor) else v
    return out


def _run(seg, ns, limits):
    try:
        return True, expr.evaluate(seg, ns, limits=limits)
    except Exception as e:   # noqa: BLE001 - any failure only means "not this node"
        return False, e


def _candidates(stmt):
    """Calls and operators in evaluation order (children before parents)."""
    out = []

    def walk(node):
        for child in ast.iter_child_nodes(node):
            walk(child)
        if isinstance(node, (ast.Call, ast.BinOp)):
            out.append(node)
    walk(stmt)
    return out


def _operands(node):
    """(label, ast node) of what the failing call or operator was given."""
    if isinstance(node, ast.BinOp):
        return [("a", node.left), ("b", node.right)]
    out = []
    if isinstance(node.func, ast.Attribute) and not _is_module_chain(node.func.value):
        out.append(("self", node.func.value))
    for i, a in enumerate(node.args):
        if isinstance(a, (ast.List, ast.Tuple)):
            out.extend((f"[{j}]", e) for j, e in enumerate(a.elts))
        else:
            out.append((f"arg {i}", a))
    out.extend((k.arg, k.value) for k in node.keywords if k.arg)
    return out


def _is_module_chain(node) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in expr.ALIASES


def locate(source: str, names: dict, message: str, max_bytes: int) -> dict | None:
    """{"line", "statement", "expression", "operands": [(label, source, shape)]} of the innermost call or
    operator that raises ``message``; None when it cannot be found."""
    limits = expr.Limits(max_bytes=max_bytes)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    ns = _copies(names)
    for stmt in tree.body:
        seg = _segment(source, stmt)
        before = dict(ns)
        ok, got = _run(seg, _copies(ns), limits)
        if ok:
            ns = got[1]
            continue
        if str(got) != message and message not in str(got):
            return None
        for node in _candidates(stmt):
            ok, err = _run(_segment(source, node), _copies(before), limits)
            if ok or (str(err) != message and message not in str(err)):
                continue
            operands = []
            for label, sub in _operands(node):
                fine, value = _run(_segment(source, sub), _copies(before), limits)
                if fine and isinstance(value[0], core.Tensor):
                    operands.append((label, _segment(source, sub), list(value[0].shape)))
            return {"line": stmt.lineno, "statement": seg, "expression": _segment(source, node),
                    "operands": operands}
        return {"line": stmt.lineno, "statement": seg, "expression": None, "operands": []}
    return None


def _cells(shape, width, right):
    cells = [str(d) for d in shape]
    pad = [""] * (width - len(cells))
    return pad + cells if right else cells + pad


def _table(rows, right: bool) -> list:
    """rows: (label, source, shape, marked dim indices) -> aligned lines, a caret line under marked rows."""
    width = max((len(r[2]) for r in rows), default=0)
    label_w = max(len(f"{r[0]} {r[1]}") for r in rows)
    col_w = max([len(str(d)) for r in rows for d in r[2]] + [1])
    out = []
    for label, src, shape, marked in rows:
        cells = _cells(shape, width, right)
        out.append(f"  {f'{label} {src}'.ljust(label_w)}  " + " ".join(c.rjust(col_w) for c in cells)
                   + ("" if shape else "(0-d)"))
        if marked:
            offset = width - len(shape) if right else 0
            carets = [" " * col_w] * width
            for d in marked:
                carets[offset + (d % len(shape))] = "^".rjust(col_w)
            out.append(f"  {' ' * label_w}  " + " ".join(carets).rstrip())
    return out


def drawing(message: str, found: dict) -> list:
    """The lines drawn under torch's message (empty when the message is not a shape error we know)."""
    ops = found["operands"] if found else []
    kind, rows, right, note = None, [], True, None
    if m := _BROADCAST.search(message) or _EXPAND.search(message):
        kind = "broadcast"
        tensors = ops[:2]
        if tensors:
            ndim = max(len(s) for _, _, s in tensors)
            d = int(m.group(3)) - ndim          # the result dim, counted from the right
            rows = [(lbl, src, s, [d] if -d <= len(s) and s[d] != 1 else []) for lbl, src, s in tensors]
            note = f"dim {m.group(3)} of the result: {m.group(1)} vs {m.group(2)}"
    elif _MATMUL.search(message):
        kind = "matmul"
        tensors = ops[:2]
        if len(tensors) == 2:
            (la, sa, a), (lb, sb, b) = tensors
            rows = [(la, sa, a, [-1] if a else []), (lb, sb, b, [-2] if len(b) >= 2 else ([-1] if b else []))]
            if a and b:
                note = f"{a[-1]} vs {b[-2] if len(b) >= 2 else b[-1]}"
    elif (m := _CAT.search(message)) or _STACK.search(message) or _TENSORS_DIMS.search(message):
        kind = "cat" if m or _TENSORS_DIMS.search(message) else "stack"
        right = False
        tensors = [o for o in ops if o[0].startswith("[")]
        if tensors:
            first = tensors[0][2]
            skip = int(m.group(1)) % max(len(first), 1) if m else None
            for lbl, src, s in tensors:
                bad = [] if len(s) != len(first) else [d for d in range(len(s)) if d != skip and s[d] != first[d]]
                rows.append((lbl, src, s, bad))
    elif m := _VIEW.search(message):
        kind = "view"
        want = [int(v) for v in m.group(1).split(",") if v.strip()]
        inp = next((o for o in ops if o[0] == "self"), ops[0] if ops else None)
        if inp:
            rows = [(inp[0], inp[1], inp[2], [])]
        known = math.prod(v for v in want if v != -1)
        note = (f"{m.group(2)} elements cannot fill {want}: " +
                (f"the other sizes multiply to {known}, which does not divide {m.group(2)}" if -1 in want
                 else f"the new shape holds {known}"))
    elif _VIEW_STRIDE.search(message):
        kind = "view_stride"
        inp = next((o for o in ops if o[0] == "self"), None)
        if inp:
            rows = [(inp[0], inp[1], inp[2], [])]
    elif m := _GATHER.search(message):
        kind, right = "gather", False
        index = [int(v) for v in m.group(2).split(",") if v.strip()]
        self_ = [int(v) for v in m.group(3).split(",") if v.strip()]
        dim = int(m.group(4))
        bad = [d for d in range(min(len(index), len(self_))) if d != dim and index[d] > self_[d]]
        src_of = {tuple(s): (lbl, src) for lbl, src, s in ops}
        rows = [(*src_of.get(tuple(self_), ("input", "")), self_, bad),
                (*src_of.get(tuple(index), ("index", "")), index, bad)]
        note = f"dim {dim} is free"
    elif _INDEX_DIMS.search(message):
        kind, right = "index_dims", False
        rows = [(lbl, src, s, []) for lbl, src, s in ops]
    if kind is None:
        return []
    out = []
    if found:
        where = f"line {found['line']}: {found['statement']}"
        out.append(where if not found["expression"] or found["expression"] == found["statement"]
                   else f"{where}   (in {found['expression']})")
    if rows:
        out.extend(_table(rows, right))
    out.append(f"rule: {RULES[kind]}" + (f" ({note})" if note else ""))
    return out


def attach(err, source: str, names: dict, max_bytes: int):
    """Give CliError ``err`` the drawing (``err.detail``) when its cause is a shape error we know."""
    cause = err.__cause__
    if cause is None or not isinstance(cause, (RuntimeError, IndexError, ValueError)):
        return err
    message = str(cause)
    if not drawing(message, None):
        return err
    try:
        found = locate(source, names, message, max_bytes)
    except RecursionError:
        found = None
    err.detail = drawing(message, found)
    return err
