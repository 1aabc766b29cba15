"""Expressions of the program interpreter (services/program.py): operators with their size guards
(allocation estimates before tensor and NumPy operators, int/str/list sizes), comparisons,
subscripts, displays, lambdas, comprehensions (their own scope, every item counted against the
iteration budget) and f-strings (format specs bounded)."""
from __future__ import annotations

import ast
import types

import numpy as np

from .expr_alloc import _index, _numel
from .expr_parse import BINOPS, COMPARE, INPLACE, OP_SYMBOLS, UNARY, expr_error
from .program_functions import Frame
from .program_values import ModuleRef, check_format_spec


class Expressions:
    """The expression half of Interpreter (a mixin: it uses the interpreter's ev, call, check...)."""

    # -- expressions ----------------------------------------------------------------------------
    def ev(self, node, frame):
        self._frame = frame
        return EXPRESSIONS[type(node)](self, node, frame)

    def e_Constant(self, node, frame):
        return node.value

    def e_Name(self, node, frame):
        return self.load_name(node.id, frame, node)

    def e_Attribute(self, node, frame):
        if node in self.chains:
            return self.chains[node]
        obj = self.ev(node.value, frame)
        value = self.get_attr(obj, node.attr, node)
        if isinstance(value, ModuleRef):
            return value
        return self.check(value, node)

    def e_Call(self, node, frame):
        func = node.func
        receiver = None
        if isinstance(func, ast.Attribute) and func not in self.chains:
            receiver = self.ev(func.value, frame)
            fn = self.get_attr(receiver, func.attr, func)
            if not isinstance(fn, ModuleRef):
                fn = self.check(fn, func)
            name = func.attr
            if not isinstance(receiver, self.tensor_types):
                receiver = None
        else:
            fn = self.ev(func, frame)
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "<call>")
            if isinstance(fn, type) and fn is self.function_class:
                raise expr_error(f"calling class {ast.unparse(func)!r} is not allowed (subclass it: "
                                 "class F(torch.autograd.Function))", node)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.ev(a.value, frame)
                args.extend(value if type(value) in (list, tuple) else list(self.iterate(value, a)))
                if len(args) > self.limits.max_seq_len:
                    raise expr_error("too many arguments", a)
            else:
                args.append(self.ev(a, frame))
        kwargs = {}
        for kw in node.keywords:
            value = self.ev(kw.value, frame)
            if kw.arg is None:
                if type(value) is not dict or not all(isinstance(k, str) for k in value):
                    raise TypeError("argument after ** must be a mapping with string keys")
                kwargs.update(value)
            else:
                kwargs[kw.arg] = value
        saved = self.current_node
        self.current_node = node
        self._frame = frame
        try:
            return self.call(fn, args, kwargs, node, name, receiver)
        finally:
            self.current_node = saved

    def e_BinOp(self, node, frame):
        return self.binop(node.op, self.ev(node.left, frame), self.ev(node.right, frame), node)

    def binop(self, op, left, right, node, inplace=False):
        kind = type(op)
        symbol = OP_SYMBOLS[kind]
        if kind is ast.Pow:
            self.guard_pow(left, right, node)
        elif kind is ast.Mult:
            self.guard_mul(left, right, node)
        elif kind is ast.Add:
            for a, b in ((left, right),):
                if isinstance(a, (str, list, tuple)) and isinstance(b, (str, list, tuple)):
                    limit = self.limits.max_str_len if isinstance(a, str) else self.limits.max_seq_len
                    if len(a) + len(b) > limit:
                        raise expr_error(f"'+' would make {len(a) + len(b)} elements (limit {limit})", node)
        elif kind is ast.LShift:
            if type(left) in (int, bool) and type(right) in (int, bool) and right > 0 and \
                    left.bit_length() + right > self.limits.max_int_bits:
                raise expr_error(f"{symbol} result exceeds {self.limits.max_int_bits} bits", node)
        elif kind is ast.Mod and isinstance(left, str):
            raise expr_error("string formatting with % is not allowed (use str.format or an f-string)",
                             node)
        if isinstance(left, self.tensor_types) or isinstance(right, self.tensor_types):
            est = self.alloc.elementwise([left, right], "matmul" if kind is ast.MatMult else None)
            self.guard_bytes(est, f"'{symbol}'", node)
        elif isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            self.guard_numpy(left, right, node, symbol)
        fn = INPLACE[kind] if inplace and isinstance(left, self.tensor_types + (list,)) else BINOPS[kind]
        return self.check(fn(left, right), node)

    def guard_numpy(self, left, right, node, symbol):
        shapes = [list(np.shape(v)) for v in (left, right) if isinstance(v, np.ndarray)]
        try:
            out = np.broadcast_shapes(*shapes)
        except ValueError:
            return
        nbytes = _numel(out) * 8
        if nbytes > self.limits.max_bytes:
            raise expr_error(f"'{symbol}' would allocate {_numel(out)} elements", node)

    def guard_pow(self, base, exp, node):
        if type(base) in (int, bool) and type(exp) in (int, bool) and exp > 0 and abs(base) > 1:
            if (abs(base).bit_length() - 1) * exp > self.limits.max_int_bits:
                raise expr_error(f"integer power with exponent {_short(exp)} exceeds "
                                 f"{self.limits.max_int_bits} bits", node)

    def guard_mul(self, left, right, node):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and not isinstance(count, (str, list, tuple, float)):
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
        if not isinstance(itemsize, int):    # a dtype given as a NumPy scalar class
            itemsize = 8
        nbytes = numel * itemsize
        if nbytes > self.limits.max_bytes:
            raise expr_error(f"{what} would allocate {_short(numel)} elements ({_bytes(nbytes)}; "
                             f"limit {_bytes(self.limits.max_bytes)})", node)

    def guard_index(self, container, idx, node):
        if isinstance(container, self.tensor_types) and isinstance(idx, tuple):
            est = self.alloc.elementwise(list(idx))
            if est is not None:
                self.guard_bytes((est[0], self.alloc.itemsize(container)), "indexing", node)

    def e_UnaryOp(self, node, frame):
        return self.check(UNARY[type(node.op)](self.ev(node.operand, frame)), node)

    def e_BoolOp(self, node, frame):
        is_and = isinstance(node.op, ast.And)
        result = self.ev(node.values[0], frame)
        for value in node.values[1:]:
            if bool(result) != is_and:
                break
            result = self.ev(value, frame)
        return result

    def e_Compare(self, node, frame):
        left = self.ev(node.left, frame)
        result = None
        for i, (op, comp) in enumerate(zip(node.ops, node.comparators)):
            right = self.ev(comp, frame)
            if isinstance(left, self.tensor_types) or isinstance(right, self.tensor_types):
                est = self.alloc.elementwise([left, right])
                self.guard_bytes(est and (est[0], 1), "comparison", node)
            result = self.check(COMPARE[type(op)](left, right), node)
            if i < len(node.ops) - 1 and not result:
                return result
            left = right
        return result

    def e_IfExp(self, node, frame):
        return self.ev(node.body, frame) if self.truth(self.ev(node.test, frame)) else self.ev(node.orelse, frame)

    def e_Subscript(self, node, frame):
        container = self.ev(node.value, frame)
        idx = self.index(node.slice, frame)
        self.guard_index(container, idx, node)
        if isinstance(container, (ModuleRef, types.FunctionType)) or callable(container) and not isinstance(
                container, self.tensor_types + (list, tuple, dict, str, range, np.ndarray)) and not \
                self.policy.backend_object(container):
            raise TypeError(f"'{type(container).__name__}' object is not subscriptable")
        return self.check(container[idx], node)

    def index(self, node, frame):
        if isinstance(node, ast.Slice):
            return slice(*(None if p is None else self.ev(p, frame) for p in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Tuple):
            return tuple(self.index(elt, frame) for elt in node.elts)
        return self.ev(node, frame)

    def e_List(self, node, frame):
        return [self.ev(e, frame) for e in node.elts]

    def e_Tuple(self, node, frame):
        return tuple(self.ev(e, frame) for e in node.elts)

    def e_Set(self, node, frame):
        return {self.ev(e, frame) for e in node.elts}

    def e_Dict(self, node, frame):
        return {self.ev(k, frame): self.ev(v, frame) for k, v in zip(node.keys, node.values)}

    def e_Lambda(self, node, frame):
        qual = "<lambda>" if frame.function is None else f"{frame.function.qualname}.<locals>.<lambda>"
        return self.make_function(node, frame, qual, name="<lambda>", is_lambda=True)

    def comprehension(self, node, frame, kind):
        inner = Frame({}, parent=frame, function=frame.function, args=frame.args)
        out = {} if kind is ast.DictComp else set() if kind is ast.SetComp else []

        def run(i):
            gen = node.generators[i]
            iterable = self.ev(gen.iter, frame if i == 0 else inner)
            for item in self.iterate(iterable, gen.iter):
                self.assign(gen.target, item, inner)
                if all(self.truth(self.ev(c, inner)) for c in gen.ifs):
                    if i + 1 < len(node.generators):
                        run(i + 1)
                    elif kind is ast.DictComp:
                        out[self.ev(node.key, inner)] = self.ev(node.value, inner)
                    elif kind is ast.SetComp:
                        out.add(self.ev(node.elt, inner))
                    else:
                        out.append(self.ev(node.elt, inner))
                    if len(out) > self.limits.max_seq_len:
                        raise expr_error(f"comprehension of more than {self.limits.max_seq_len} items", node)
        run(0)
        self._frame = frame
        return iter(out) if kind is ast.GeneratorExp else out

    def e_ListComp(self, node, frame):
        return self.comprehension(node, frame, ast.ListComp)

    def e_SetComp(self, node, frame):
        return self.comprehension(node, frame, ast.SetComp)

    def e_DictComp(self, node, frame):
        return self.comprehension(node, frame, ast.DictComp)

    def e_GeneratorExp(self, node, frame):
        return self.comprehension(node, frame, ast.GeneratorExp)

    def e_JoinedStr(self, node, frame):
        parts = []
        total = 0
        for value in node.values:
            text = value.value if isinstance(value, ast.Constant) else self.ev(value, frame)
            total += len(text)
            if total > self.limits.max_str_len:
                raise expr_error(f"f-string longer than {self.limits.max_str_len} characters", node)
            parts.append(text)
        return "".join(parts)

    def e_FormattedValue(self, node, frame):
        value = self.ev(node.value, frame)
        if node.conversion == ord("s"):
            value = str(value)
        elif node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion == ord("a"):
            value = ascii(value)
        spec = "" if node.format_spec is None else self.ev(node.format_spec, frame)
        check_format_spec(spec, node)
        return self.check(format(value, spec), node)



def _short(n: int) -> str:
    return str(n) if n.bit_length() < 200 else f"~2**{n.bit_length() - 1}"


def _bytes(n: int) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"



EXPRESSIONS = {getattr(ast, name[2:]): fn for name, fn in vars(Expressions).items() if name.startswith("e_")}
