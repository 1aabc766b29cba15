"""--explain's formulas: parse an opspec entry's `rule` text ('out[i][j] = input[i][index[i][j]]': names with
subscripts, integer arithmetic + - * // %), bind loop variables from the plain side and evaluate
the other side with concrete indices."""
from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(\+=|//|[\[\]()+\-*/%=,]))")


class _Parser:
    def __init__(self, text):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot parse formula at {text[pos:]!r}")
            num, name, op = m.groups()
            self.toks.append(("num", int(num)) if num else ("name", name) if name else ("op", op))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, kind=None, value=None):
        t = self.peek()
        if t[0] is None or (kind and t[0] != kind) or (value is not None and t[1] != value):
            raise ValueError(f"unexpected {t[1]!r} in formula")
        self.i += 1
        return t

    def formula(self):
        lhs = self.expr()
        if self.peek() == ("op", "+="):  # 'out[...] += src[...]'
            self.take()
        else:
            self.take("op", "=")
        rhs = self.expr()
        if self.peek()[0] is not None:
            raise ValueError("trailing text in formula")
        return lhs, rhs

    def expr(self):
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = ("bin", op, node, self.term())
        return node

    def term(self):
        node = self.factor()
        while self.peek() in (("op", "*"), ("op", "//"), ("op", "%"), ("op", "/")):
            op = self.take()[1]
            node = ("bin", "//" if op == "/" else op, node, self.factor())
        return node

    def factor(self):
        t = self.peek()
        if t == ("op", "-"):
            self.take()
            return ("neg", self.factor())
        if t == ("op", "("):
            self.take()
            node = self.expr()
            self.take("op", ")")
            return node
        if t[0] == "num":
            self.take()
            return ("num", t[1])
        if t[0] == "name":
            self.take()
            if self.peek() == ("op", "("):  # reduce(a, b): a call, kept for finding refs inside
                self.take()
                args = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.take("op", ")")
                return ("call", t[1], args)
            subs = []
            while self.peek() == ("op", "["):
                self.take()
                subs.append(self.expr())
                self.take("op", "]")
            return ("ref", t[1], subs) if subs else ("var", t[1])
        raise ValueError(f"unexpected {t[1]!r} in formula")


def parse_rule(text):
    """(lhs, rhs) ASTs of 'out[i][j] = input[i][index[i][j]]', or None if it does not parse.
    A trailing comment after two spaces and '(' ('...  (row-major order)') is ignored."""
    formula = re.split(r"\s{2,}\(", text, maxsplit=1)[0]
    try:
        return _Parser(formula).formula()
    except ValueError:
        return None


def pattern(node):
    """The subscripts of a plain ref like out[i][0][j]: ['i', 0, 'j'] (distinct variables or ints), else None."""
    if node[0] != "ref" or not all(s[0] in ("var", "num") for s in node[2]):
        return None
    pat = [s[1] for s in node[2]]
    names = [p for p in pat if isinstance(p, str)]
    return pat if len(set(names)) == len(names) else None


def bind(pat, coords, lead=None):
    """Variables of `pat` bound to coords (a leading output number first when the pattern has one
    more subscript); None when the pattern does not describe this cell."""
    if pat is None:
        return None
    coords = list(coords)
    if lead is not None and len(pat) == len(coords) + 1:
        coords = [lead] + coords
    if len(pat) != len(coords):
        return None
    env = {}
    for p, c in zip(pat, coords):
        if isinstance(p, int):
            if p != c:
                return None
        else:
            env[p] = int(c)
    return env


class Cell:
    def __init__(self, name, coords):
        self.name, self.coords = name, tuple(coords)

    def __repr__(self):
        return self.name + "".join(f"[{c}]" for c in self.coords)


class Eval:
    """Evaluate a parsed formula with bound loop variables and the call's index operands."""

    def __init__(self, env, lookup):
        self.env, self.lookup = env, lookup

    def value(self, node):
        k = node[0]
        if k == "num":
            return node[1]
        if k == "var":
            if node[1] not in self.env:
                raise KeyError(node[1])
            return self.env[node[1]]
        if k == "neg":
            return -self.value(node[1])
        if k == "call":
            raise TypeError("a function call in a formula")
        if k == "bin":
            a, b = self.value(node[2]), self.value(node[3])
            if isinstance(a, Cell) or isinstance(b, Cell):
                raise TypeError("arithmetic on a data cell")
            return {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0, "%": a % b if b else 0}[node[1]]
        coords = [self.value(s) for s in node[2]]
        if any(isinstance(c, Cell) for c in coords):
            raise TypeError("data cell used as an index")
        return self.lookup(node[1], coords)

    def text(self, node, top=True):
        """The formula with numbers substituted; nested index lookups shown as index[0][1]=2."""
        k = node[0]
        if k == "num":
            return str(node[1])
        if k == "var":
            return str(self.env.get(node[1], node[1]))
        if k == "neg":
            return "-" + self.text(node[1], False)
        if k == "call":
            return f"{node[1]}({', '.join(self.text(a, False) for a in node[2])})"
        if k == "bin":
            return f"{self.text(node[2], False)}{node[1]}{self.text(node[3], False)}"
        parts = []
        for s in node[2]:
            t = self.text(s, False)
            if s[0] in ("num", "var"):
                parts.append(f"[{t}]")
            else:
                try:
                    v = self.value(s)
                    parts.append(f"[{t}={v}]")
                except Exception:  # noqa: BLE001 - out of range: show unevaluated
                    parts.append(f"[{t}]")
        return node[1] + "".join(parts)


def find_ref(node, names):
    """The first ref named one of `names` with a plain pattern (src[i][j] inside alpha * src[i][j])."""
    if node[0] == "ref":
        if node[1] in names and pattern(node) is not None:
            return node
        for s in node[2]:
            r = find_ref(s, names)
            if r is not None:
                return r
    elif node[0] in ("bin", "call"):
        for s in (node[2:] if node[0] == "bin" else node[2]):
            r = find_ref(s, names)
            if r is not None:
                return r
    elif node[0] == "neg":
        return find_ref(node[1], names)
    return None


def index_lookups(node, ev, out, top=True):
    """Collect {name: coords} for refs nested inside subscripts (index[i][j] in input[i][index[i][j]])."""
    if node[0] == "ref":
        if not top:
            try:
                out.setdefault(node[1], [int(ev.value(s)) for s in node[2]])
            except Exception:  # noqa: BLE001
                pass
        for s in node[2]:
            index_lookups(s, ev, out, False)
    elif node[0] == "bin":
        index_lookups(node[2], ev, out, False)
        index_lookups(node[3], ev, out, False)
    elif node[0] == "neg":
        index_lookups(node[1], ev, out, False)
    return out
