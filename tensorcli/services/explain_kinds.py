"""--explain's rule per kind of op, written from dependency rows (services/dependencies.py): the text
of one row with its concrete indices and numbers. The facts (which elements, which weights) come
from autograd; this module only chooses how to say them:

* elementwise (with broadcasting): `out[1][2] = mul(a[1][0], b[2]) = mul(3, 4) = 12`;
* sums (sum, cumsum's prefix, ...): `out[0] = input[0][0] + input[0][1] = 1 + 2 = 3`;
* means (mean, avg pools): the terms and the divisor;
* max / min (and their pools): the winner among the candidates; ties as torch: first index;
* contractions (matmul, mm, bmm, einsum, linear, conv): `Σ a·b` with the concrete products;
* softmax / log_softmax: exp and the sum it is divided by;
* normalisations: over which elements (and dims) the mean and variance were taken;
* var / std: the mean used, the squared deviations and the divisor n - correction; logsumexp: the
  exp terms and their sum;
* anything else: the Jacobian's pattern, `f(...)` with ∂out/∂input per element.
"""
from __future__ import annotations

import math

import numpy as np

from .. import opspec

SHOW_TERMS = 6            # long sums: the first terms, an ellipsis and a count
# which rows get which wording: the op entry's `wording` (tensorcli/opspec/), e.g. Op(..., wording="mean")
EXTREMES = ("max", "min")


def g(v) -> str:
    """A number for a rule: integers without a point, others with 4 significant digits."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4g}"


def cells(coords) -> str:
    return "".join(f"[{c}]" for c in coords)


def joined(items, sep=" + "):
    """Join terms; more than SHOW_TERMS: the first ones, '…', the last, and the count."""
    items = list(items)
    if len(items) <= SHOW_TERMS:
        return sep.join(items)
    return sep.join(items[:SHOW_TERMS - 1]) + f"{sep}…{sep}{items[-1]} ({len(items)} terms)"


def kind_of(info, rows) -> str:
    """'copy' (movement) | 'elementwise' | 'sum' | 'mean' | 'extreme' | 'contraction' | 'softmax' | 'norm'
    | 'select' (each output element is one input element) | 'jacobian' (the fallback)."""
    if info.kind:
        return "copy"
    wording = opspec.wording(info.name)
    if wording in EXTREMES:
        return "extreme"
    if wording in ("contraction", "softmax", "norm", "spread", "logsumexp", "mean", "sum"):
        return wording
    if info.category in ("pointwise", "activation") or _looks_elementwise(rows):
        return "elementwise"
    if rows and all(len(r.sources) <= 1 and all(s.weight == 1 for s in r.sources) for r in rows):
        return "select"          # sort, topk, median, kthvalue, linalg.diagonal: each output is one input
    return "jacobian"


def _looks_elementwise(rows):
    """Each output element reads at most one element of each operand, aligned with it from the right."""
    for r in rows:
        seen = set()
        for s in r.sources:
            if s.input in seen or not _aligned(r.out, s.index):
                return False
            seen.add(s.input)
    return bool(rows)


def _aligned(out, idx):
    if len(idx) > len(out):
        return False
    tail = out[len(out) - len(idx):]
    return all(i == o or i == 0 for i, o in zip(idx, tail))


def broadcast_note(row, shapes) -> str:
    """'b broadcast along dim 0' for operands whose coordinates were broadcast to this cell."""
    notes = []
    for name, shape in shapes.items():
        src = next((s for s in row.sources if s.input == name), None)
        if src is None or not shape:
            continue
        lead = len(row.out) - len(shape)
        dims = [lead + k for k, n in enumerate(shape) if n == 1 and row.out[lead + k] != 0] + list(range(lead))
        if dims:
            notes.append(f"{name} broadcast along dim {','.join(map(str, sorted(dims)))}")
    return "; ".join(notes)


def rule(kind, info, row, ctx) -> str:
    """The row's formula with concrete indices and numbers (see the module docstring)."""
    lhs = "out" + cells(row.out)
    if not row.sources:
        return f"{lhs} = {g(row.value)}  (a constant: no input element changes it)"
    fn = {"sample": _sample, "depends": _depends, "elementwise": _elementwise, "sum": _sum, "copy": _sum, "select": _sum,
          "mean": _mean, "extreme": _extreme, "spread": _spread, "logsumexp": _logsumexp, "contraction": _contraction, "softmax": _softmax,
          "norm": _norm}.get(kind, _jacobian)
    return fn(info, row, ctx, lhs)


def _elementwise(info, row, ctx, lhs):
    refs = ", ".join(s.ref() for s in row.sources)
    vals = ", ".join(g(s.value) for s in row.sources)
    text = f"{lhs} = {info.name}({refs}) = {info.name}({vals}) = {g(row.value)}"
    note = broadcast_note(row, ctx.get("shapes", {}))
    return text + (f"  ({note})" if note else "")


def _sum(info, row, ctx, lhs):
    if not all(s.weight == 1 for s in row.sources):
        return _jacobian(info, row, ctx, lhs)
    terms = joined(s.ref() for s in row.sources)
    nums = joined(g(s.value) for s in row.sources)
    if len(row.sources) == 1:
        return f"{lhs} = {terms} = {g(row.value)}"
    return f"{lhs} = {terms} = {nums} = {g(row.value)}"


def _mean(info, row, ctx, lhs):
    w = row.sources[0].weight
    if not all(math.isclose(s.weight, w) for s in row.sources) or w == 0:
        return _jacobian(info, row, ctx, lhs)
    n = 1 / w
    n_text = g(round(n)) if abs(n - round(n)) < 1e-4 * max(1.0, n) else g(n)
    terms = joined(s.ref() for s in row.sources)
    nums = joined(g(s.value) for s in row.sources)
    return f"{lhs} = ({terms}) / {n_text} = ({nums}) / {n_text} = {g(row.value)}  (divisor {n_text})"


def _extreme(info, row, ctx, lhs):
    which = opspec.wording(info.name)
    cands = ctx.get("candidates", lambda r: None)(row)
    if len(row.sources) > 1:        # ties over a whole tensor: torch splits the gradient evenly
        won = ", ".join(s.ref() for s in row.sources)
        return (f"{lhs} = {which}(…) = {g(row.value)}  (tie between {won}: each gets "
                f"{g(row.sources[0].weight)} of the gradient)")
    win = row.sources[0]
    over = f"{which}({joined((c for c in cands), ', ')}) = " if cands else ""
    why = f"{win.ref()} = {g(win.value)} is the {'largest' if which == 'max' else 'smallest'}"
    if cands and ctx.get("ties", lambda r: 0)(row) > 1:
        why += "; tied: torch takes the first index"
    return f"{lhs} = {over}{win.ref()} = {g(row.value)}  ({why})"


def pairs(row, structure=None):
    """[(a Source, b Source | None)] for a bilinear row. The partner of a[x] is the b[y] whose value
    equals a[x]'s weight, found on `structure` (the same row at generic random inputs, so a zero at
    the actual inputs cannot hide or fake a partner), then shown with the actual values."""
    names = list(dict.fromkeys(s.input for s in (structure or row).sources))
    if len(names) < 2:
        return None
    a_name, b_name = names[0], names[1]
    ref = structure or row
    actual = {(s.input, tuple(s.index)): s for s in row.sources}
    vals = ctx_values(row, structure)
    bs = [s for s in ref.sources if s.input == b_name]
    free = {}                                   # (value, weight) -> unused b positions, in order
    for i, b in enumerate(bs):
        free.setdefault((b.value, b.weight), []).append(i)
    used, out = set(), []
    for a in (s for s in ref.sources if s.input == a_name):
        cands = free.get((a.weight, a.value))
        k = cands.pop(0) if cands else None
        if k is not None:
            used.add(k)
        out.append((_actual(a, actual, vals), _actual(bs[k], actual, vals) if k is not None else None))
    rest = [_actual(b, actual, vals) for i, b in enumerate(bs) if i not in used]
    others = [_actual(s, actual, vals) for s in ref.sources if s.input not in (a_name, b_name)]
    return out, rest, others


def ctx_values(row, structure):
    return getattr(structure, "values_of", None) if structure is not None else None


def _actual(s, actual, vals):
    """The source at the actual inputs (weight 0 there when the generic point had it only)."""
    got = actual.get((s.input, tuple(s.index)))
    if got is not None:
        return got
    from .dependencies import Source
    value = vals(s.input, s.index) if vals is not None else float("nan")
    return Source(s.input, s.index, 0.0, value)


def needs_structure(row):
    """Pairing on the actual values is unsafe: a partner is hidden by a zero or values repeat."""
    p = pairs(row)
    if p is None or p[1] or any(b is None for _, b in p[0]):
        return True
    for name in {s.input for s in row.sources}:
        vals = [s.value for s in row.sources if s.input == name]
        if len(set(vals)) != len(vals):
            return True
    return False


def _contraction(info, row, ctx, lhs):
    p = pairs(row, ctx.get("structure", {}).get(tuple(row.out)))
    if p is None:
        return _jacobian(info, row, ctx, lhs)
    matched, rest, others = p
    terms, nums = [], []
    for a, b in matched:
        terms.append(f"{a.ref()}·{b.ref()}" if b is not None else f"{g(a.weight)}·{a.ref()}")
        nums.append(f"{g(a.value)}·{g(b.value if b is not None else a.weight)}")
    for s in rest + others:
        terms.append(s.ref() if s.weight == 1 else f"{g(s.weight)}·{s.ref()}")
        nums.append(g(s.value) if s.weight == 1 else f"{g(s.weight)}·{g(s.value)}")
    extra = ctx.get("contraction_note", "")
    return f"{lhs} = Σ {joined(terms)} = {joined(nums)} = {g(row.value)}" + (f"  ({extra})" if extra else "")


def _own(row):
    return next((s for s in row.sources if s.index == row.out), None)


def _softmax(info, row, ctx, lhs):
    xs = row.sources
    own = _own(row) or xs[0]
    exps = [math.exp(s.value) for s in xs]
    total = sum(exps)
    denom = joined(f"exp({s.ref()})" for s in xs)
    if info.name == "log_softmax":
        return (f"{lhs} = {own.ref()} - log({denom}) = {g(own.value)} - log({g(total)}) = {g(row.value)}")
    return (f"{lhs} = exp({own.ref()}) / ({denom}) = {g(math.exp(own.value))} / {g(total)} = {g(row.value)}")


def varying_dims(row, name):
    """Dims along which the sources of operand `name` vary: the dims a norm/reduction ran over."""
    idx = [s.index for s in row.sources if s.input == name]
    if not idx:
        return []
    return [d for d in range(len(idx[0])) if len({i[d] for i in idx}) > 1]


def _norm(info, row, ctx, lhs):
    xs = [s for s in row.sources if s.input == "input"]
    own = _own(row)
    if len(xs) <= 1:   # eval mode: running statistics, one element in, affine out
        return f"{lhs} = (input{cells(row.out)} - running_mean) / sqrt(running_var + eps) = {g(row.value)}"
    vals = [s.value for s in xs]
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    dims = varying_dims(row, "input")
    over = joined((s.ref() for s in xs), ", ")
    me = own.ref() if own is not None else "input" + cells(row.out)
    return (f"{lhs} = ({me} - mean) / sqrt(var + eps) = {g(row.value)}  mean {g(mean)}, var {g(var)} "
            f"(biased) over dim{'s' if len(dims) != 1 else ''} {','.join(map(str, dims))}: {len(xs)} "
            f"elements {over}")


def _spread(info, row, ctx, lhs):
    """var / std: the mean used, the squared deviations and the divisor n - correction."""
    ref = ctx.get("structure", {}).get(tuple(row.out))
    vals_of = ctx_values(row, ref)
    xs = [s for s in (ref or row).sources if s.input == "input"]
    if not xs:
        return _jacobian(info, row, ctx, lhs)
    vals = [vals_of(s.input, s.index) if vals_of is not None else s.value for s in xs]
    n, corr = len(vals), ctx.get("correction", 1)
    mean = sum(vals) / n
    terms = joined(f"({g(v)} - {g(mean)})²" for v in vals)
    root = info.name.startswith("std")
    body = f"({terms}) / ({n} - {g(corr)})"
    return (f"{lhs} = {'sqrt' if root else ''}{body if not root else '(' + body + ')'} = {g(row.value)}  "
            f"(mean {g(mean)} of {joined((s.ref() for s in xs), ', ')}; correction {g(corr)}: divisor {g(n - corr)})")


def _logsumexp(info, row, ctx, lhs):
    """logsumexp: the exp terms and their sum."""
    terms = joined(f"exp({s.ref()})" for s in row.sources)
    nums = joined(g(math.exp(s.value)) for s in row.sources)
    total = sum(math.exp(s.value) for s in row.sources)
    return f"{lhs} = log({terms}) = log({nums}) = log({g(total)}) = {g(row.value)}"


def _sample(info, row, ctx, lhs):
    params = joined((f"{s.ref()} = {g(s.value)}" for s in row.sources), ", ")
    return f"{lhs} ~ {info.name}({params}) → {g(row.value)}  (a random draw: no gradient)"


def _depends(info, row, ctx, lhs):
    refs = joined((s.ref() for s in row.sources), ", ")
    return f"{lhs} = {info.name}({refs}) = {g(row.value)}  (no gradient: changing any of these changes it)"


def _jacobian(info, row, ctx, lhs):
    refs = joined((s.ref() for s in row.sources), ", ")
    return f"{lhs} = {info.name}({refs}) = {g(row.value)}  (∂out/∂input per element: see the inputs read)"


# ops whose rows pick one element among candidates: that element is "the winner" (text and JSON): the
# extremes (an entry's wording "max" / "min") and these
WINNERS = {"argmax", "argmin", "sort", "msort", "topk", "median", "nanmedian", "kthvalue",
           "mode", "masked.amax", "masked.amin", "masked.median", "masked.argmax", "masked.argmin"}


def is_winner(op) -> bool:
    return op in WINNERS or opspec.wording(op) in EXTREMES


def _weights_shown(row, kind):
    if any(s.weight is None for s in row.sources):
        return False
    return not (kind in ("elementwise", "extreme", "softmax", "norm", "jacobian")
                and all(s.weight == 1 for s in row.sources))


def weight_word(row, kind, op=None) -> str | None:
    """What the numbers after × in the 'reads' column are: '∂out/∂in' (the derivative at these
    inputs), 'summed ×1' (a plain sum), 'picked' (the output element is that input element),
    'picked: the winner' (max, sort, topk...); None when no weight is shown."""
    srcs = row.sources
    if not srcs or any(s.weight is None for s in srcs):
        return None
    ones = all(s.weight == 1 for s in srcs)
    if is_winner(op) and len(srcs) == 1:
        return "picked: the winner"
    if ones and len(srcs) == 1 and kind in ("copy", "select", "sum", "extreme"):
        return "picked"
    if ones and kind in ("sum", "copy", "select"):
        return "summed ×1"
    return "∂out/∂in" if _weights_shown(row, kind) else None


def reads(row, kind) -> str:
    """The 'inputs read' column: refs with their weights (∂out/∂input) where they say something."""
    if not _weights_shown(row, kind) or weight_word(row, kind) in ("picked", "summed ×1"):
        return joined((s.ref() for s in row.sources), ", ")
    return joined((f"{s.ref()}×{g(s.weight)}" for s in row.sources), ", ")
