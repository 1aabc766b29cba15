"""Python literal syntax for tensor arguments, parsed without eval.

Accepts what people copy from PyTorch code: `[0., .5, 1e3]`, `[True, False]`, `[nan, inf, -inf]`,
`((1, 2), (3, 4))`, `(1,)`, nested mixes of lists and tuples, `1_000`, `0x10`, unary `+`/`-`
(repeatable, as in Python). Names: True/False, nan/inf (also NaN/Infinity, JSON's spelling).
A small tokenizer and a recursive-descent parser with a nesting limit: nothing is evaluated,
and errors name the column (1-based) where the text stops being a literal.
"""
from __future__ import annotations

import re

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+)
           |(?:(?:\d[\d_]*)?\.\d[\d_]*|\d[\d_]*\.?)(?:[eE][+-]?\d[\d_]*)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>[\[\](),+-])
""", re.VERBOSE)

NAMES = {"True": True, "False": False, "nan": float("nan"), "inf": float("inf"),
         "NaN": float("nan"), "Infinity": float("inf")}


class LiteralError(ValueError):
    """Not a literal; `col` is the 1-based column where parsing stopped; `plain` is the message
    without the offending text (for data read from a file, whose bytes errors never quote)."""

    def __init__(self, msg, col, plain=None):
        super().__init__(msg)
        self.msg, self.col, self.plain = msg, col, plain or msg


def _tokens(text):
    """(kind, text, column) tokens, lazily, so that an error is the first one in reading order."""
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            raise LiteralError(f"unexpected character {text[pos]!r}", pos + 1, "unexpected character")
        if m.lastgroup != "ws":
            yield m.lastgroup, m.group(), pos + 1
        pos = m.end()
    while True:
        yield "end", "", n + 1


def _number(tok, col):
    try:
        if re.fullmatch(r"0[xXoObB][0-9a-fA-F_]+|\d[\d_]*", tok):
            return int(tok, 0)
        return float(tok)
    except ValueError:
        if len(tok) > 4300:   # Python's int() limit on decimal digits
            raise LiteralError(f"a number of {len(tok)} digits (integers have at most 4300)", col) from None
        raise LiteralError(f"invalid number {tok!r}", col, "invalid number") from None


class _Parser:
    def __init__(self, text, max_depth):
        self.toks, self.max_depth = _tokens(text), max_depth
        self.next = None

    def peek(self):
        if self.next is None:
            self.next = next(self.toks)
        return self.next

    def take(self):
        t = self.peek()
        self.next = None
        return t

    def value(self, depth):
        kind, tok, col = self.take()
        if kind == "punct" and tok in "[(":
            if depth >= self.max_depth:
                raise LiteralError(f"nested more than {self.max_depth} levels deep", col)
            return self.sequence("]" if tok == "[" else ")", tok == "(", depth + 1)
        sign = 1
        while kind == "punct" and tok in "+-":
            sign = -sign if tok == "-" else sign
            kind, tok, col = self.take()
        if kind == "num":
            v = _number(tok, col)
        elif kind == "name" and tok in NAMES:
            v = NAMES[tok]
        elif kind == "name":
            raise LiteralError(f"name {tok!r} is not a literal (allowed: {', '.join(NAMES)})", col,
                               f"a name that is not a literal (allowed: {', '.join(NAMES)})")
        else:
            raise LiteralError("expected a number, True/False, nan/inf, [ or (" if kind != "end"
                               else "unexpected end of text", col)
        if sign < 0:
            if isinstance(v, bool):
                v = int(v)   # Python: -True == -1
            v = -v
        return v

    def sequence(self, close, is_tuple, depth):
        items, saw_comma = [], False
        while True:
            kind, tok, col = self.peek()
            if kind == "punct" and tok == close:
                self.take()
                break
            items.append(self.value(depth))
            kind, tok, col = self.take()
            if kind == "punct" and tok == close:
                break
            if not (kind == "punct" and tok == ","):
                raise LiteralError(f"expected ',' or {close!r}" + (" (unclosed bracket)" if kind == "end" else ""), col)
            saw_comma = True
        if is_tuple and len(items) == 1 and not saw_comma:
            return items[0]           # (x) is x; (x,) is a 1-tuple
        return items


def parse_literal(text: str, *, max_depth: int = 32):
    """Nested lists of Python numbers/bools from Python literal text; LiteralError on anything else.
    A top-level `1, 2` is a tuple, as in Python."""
    p = _Parser(text, max_depth)
    first = p.value(0)
    kind, tok, col = p.take()
    if kind == "end":
        return first
    if kind == "punct" and tok == ",":
        items = [first]
        while p.peek()[0] != "end":
            items.append(p.value(0))
            kind, tok, col = p.take()
            if kind == "end":
                return items
            if tok != ",":
                raise LiteralError("expected ','", col)
        return items
    raise LiteralError(f"unexpected {tok!r} after the value", col, "unexpected text after the value")
