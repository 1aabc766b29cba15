"""Model specs of `tensorcli memory` and `tensorcli check`: a chain of ``core.nn`` layer calls joined
by ``->``, e.g. ``Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)``.

A spec is parsed, never evaluated: each layer is ``ast.parse``d, its name must be a layer of ``core.nn`` (``layer_names()``)
and its arguments literal ints, floats, bools, None, short strings, or tuples/lists of those (a
leading ``-`` allowed). Parameter sizes are checked with ``core.creation.check_alloc`` and against
``MAX_MODEL_BYTES`` before anything is built.
"""
from __future__ import annotations

import ast
import math
import re

import core

from ..errors import CliError

MAX_SPEC_CHARS = 2000
MAX_LAYERS = 64
MAX_MODEL_BYTES = 2 * 1024 ** 3      # parameters of the whole model


# layer name -> function(args, kwargs) returning the shapes of its parameters (for size checks)
def _linear(a, k):
    i, o = _arg(a, k, 0, "in_features"), _arg(a, k, 1, "out_features")
    return [(o, i), (o,)]


def _conv(nd):
    def shapes(a, k):
        i, o, ks = _arg(a, k, 0, "in_channels"), _arg(a, k, 1, "out_channels"), _arg(a, k, 2, "kernel_size")
        g = k.get("groups", 1)
        ks = tuple(ks) if isinstance(ks, (tuple, list)) else (ks,) * nd
        g = g if isinstance(g, int) and g > 0 else 1
        return [(o, i // g if isinstance(i, int) else i) + ks, (o,)]
    return shapes


def _features(a, k):
    n = _arg(a, k, 0, "num_features")
    return [(n,)] * 4


def _layernorm(a, k):
    n = _arg(a, k, 0, "normalized_shape")
    n = tuple(n) if isinstance(n, (tuple, list)) else (n,)
    return [n, n]


def _embedding(a, k):
    return [(_arg(a, k, 0, "num_embeddings"), _arg(a, k, 1, "embedding_dim"))]


# Parameter shapes of the layers that have parameters, from their arguments: the spec's size is
# checked BEFORE anything is allocated, which needs these facts per layer (the registry does not
# hold nn.Module classes). A layer with parameters that is not listed is built under the
# allocation limit and its parameters counted as it is built (see build_model).
PARAM_SHAPES = {
    "Linear": _linear, "Conv2d": _conv(2), "BatchNorm1d": _features, "BatchNorm2d": _features,
    "LayerNorm": _layernorm, "Embedding": _embedding,
}
# Module classes of core.nn that are not layers of a chain: containers and losses (two inputs).
_NOT_LAYERS = frozenset({"Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"})


def layer_names() -> list[str]:
    """The layers a spec may name: core.nn's Module classes, minus containers and losses."""
    nn = core.nn
    return sorted(n for n, c in vars(nn).items()
                  if isinstance(c, type) and issubclass(c, nn.Module) and not n.startswith("_")
                  and n not in _NOT_LAYERS and not n.endswith("Loss"))


class SpecError(CliError):
    """A refused model spec or memory-command argument (one line on stderr, exit 2)."""


def _arg(args, kwargs, i, name):
    if i < len(args):
        return args[i]
    if name in kwargs:
        return kwargs[name]
    return 0


# -- model spec ---------------------------------------------------------------------------------

_STR_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")


def _literal(node, where, depth=0):
    if isinstance(node, ast.Constant):
        v = node.value
        if v is None or isinstance(v, bool):
            return v
        if isinstance(v, int):
            if abs(v) > 2 ** 62:
                raise SpecError("--model", f"{where}: integer {v} is too large")
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise SpecError("--model", f"{where}: non-finite number")
            return v
        if isinstance(v, str) and _STR_OK.match(v):
            return v
        raise SpecError("--model", f"{where}: only int, float, bool, None and short identifier strings "
                                   f"are allowed, got {type(v).__name__} {str(v)[:30]!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
        v = _literal(node.operand, where, depth)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.Tuple, ast.List)) and depth < 2:
        if len(node.elts) > 8:
            raise SpecError("--model", f"{where}: tuple of more than 8 elements")
        return tuple(_literal(e, where, depth + 1) for e in node.elts)
    raise SpecError("--model", f"{where}: arguments must be literals, not {type(node).__name__.lower()} "
                               f"'{_src(node)}'")


def _src(node):
    try:
        s = ast.unparse(node)
    except Exception:   # pragma: no cover
        s = type(node).__name__
    return s if len(s) <= 40 else s[:37] + "..."


def _layer_name(func, where):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        raise SpecError("--model", f"{where}: expected a layer call like Linear(10, 5)")
    parts.append(func.id)
    parts.reverse()
    if len(parts) > 1 and parts[:-1] not in (["nn"], ["torch", "nn"], ["core", "nn"]):
        raise SpecError("--model", f"{where}: unknown layer '{'.'.join(parts)}'")
    return parts[-1]


def _split(spec):
    layers, depth, cur, i = [], 0, [], 0
    while i < len(spec):
        c = spec[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and spec.startswith("->", i):
            layers.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(c)
        i += 1
    layers.append("".join(cur))
    return layers


def parse_model_spec(spec: str) -> list:
    """'Linear(10,5) -> ReLU()' -> [('Linear', (10, 5), {}), ('ReLU', (), {})]. Never evaluates."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError("--model", "empty model spec")
    if len(spec) > MAX_SPEC_CHARS:
        raise SpecError("--model", f"model spec longer than {MAX_SPEC_CHARS} characters")
    pieces = _split(spec)
    if len(pieces) > MAX_LAYERS:
        raise SpecError("--model", f"more than {MAX_LAYERS} layers")
    out = []
    for n, piece in enumerate(pieces, 1):
        text = piece.strip()
        where = f"layer {n} '{text[:40]}'"
        if not text:
            raise SpecError("--model", f"layer {n} is empty")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise SpecError("--model", f"{where}: not a layer call") from None
        call = tree.body
        if isinstance(call, (ast.Name, ast.Attribute)):
            call = ast.Call(func=call, args=[], keywords=[])     # 'ReLU' means 'ReLU()'
        if not isinstance(call, ast.Call):
            raise SpecError("--model", f"{where}: expected a layer call like Linear(10, 5)")
        name = _layer_name(call.func, where)
        known = layer_names()
        if name not in known:
            raise SpecError("--model", f"{where}: unknown layer '{name}' (known: {', '.join(known)})")
        args = tuple(_literal(a, where) for a in call.args)
        kwargs = {}
        for kw in call.keywords:
            if kw.arg is None:
                raise SpecError("--model", f"{where}: '**' arguments are not allowed")
            if kw.arg.startswith("_"):
                raise SpecError("--model", f"{where}: keyword '{kw.arg}' is not allowed")
            kwargs[kw.arg] = _literal(kw.value, where)
        out.append((name, args, kwargs))
    return out


def check_model_size(layers: list) -> int:
    """Refuse (SpecError) before building when a parameter, or the whole model, is too large."""
    total = 0
    for n, (name, args, kwargs) in enumerate(layers, 1):
        try:
            shapes = PARAM_SHAPES[name](args, kwargs) if name in PARAM_SHAPES else []
        except Exception:
            shapes = []
        for shape in shapes:
            if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
                continue   # the layer's constructor reports bad argument types itself
            try:
                total += core.creation.check_alloc(shape, core.float32) * 4
            except RuntimeError as e:
                raise SpecError("--model", f"layer {n} {name}: {str(e).splitlines()[0]}") from None
    if total > MAX_MODEL_BYTES:
        raise SpecError("--model", f"model parameters need {total} bytes, more than the limit of "
                                   f"{MAX_MODEL_BYTES} bytes")
    return total


def build_model(spec: str, seed: int = 0):
    """Parse, size-check and build the spec as ``core.nn.Sequential`` (seeded initialisation)."""
    layers = parse_model_spec(spec)
    total = check_model_size(layers)
    nn = core.nn
    mods = []
    core.manual_seed(seed)
    for n, (name, args, kwargs) in enumerate(layers, 1):
        cls = getattr(nn, name, None)
        if cls is None:
            raise SpecError("--model", f"layer {n}: core.nn has no layer '{name}'")
        try:
            mods.append(cls(*args, **kwargs))
        except (TypeError, ValueError, RuntimeError) as e:
            raise SpecError("--model", f"layer {n} {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None
        if name not in PARAM_SHAPES:   # not checked before building: count its parameters now
            total += sum(p.numel() * p.element_size() for p in mods[-1].parameters())
            if total > MAX_MODEL_BYTES:
                raise SpecError("--model", f"model parameters need {total} bytes, more than the limit of "
                                           f"{MAX_MODEL_BYTES} bytes")
    return nn.Sequential(*mods)
