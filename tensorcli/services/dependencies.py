"""Which input elements each output element depends on, and with what weight, for ANY differentiable
op: rows computed with core's autograd (each row is one row of the op's Jacobian at the actual
inputs), so the facts are what PyTorch's autograd computes; nothing here re-implements an op.

* Forward rows: `out[i][j]` <- the input elements whose derivative is non-zero, each with its weight
  d out[i][j] / d input[...] (the exact coefficient where the op is linear in that input: 1 for
  sum, 1/n for mean, b[j][k] for a matmul's a[i][j], the kernel tap for conv2d...).
* Backward rows: `grad_input[r][c] = Σ grad_out[o] · weight` over the output cells that read it (the
  transposed Jacobian), and the value core's autograd gives for a grad_output (default ones).

Integer and boolean data operands are explained through float64 copies (same values); steering
operands (index, mask, target, ...) stay as they are. Plain data only: no Typer, no Rich.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import core

# operands that select or steer rather than flow into the result
STEERING = frozenset({"index", "indices", "mask", "condition", "target", "offsets", "boundaries",
                      "sorted_sequence", "repeats", "weight_index", "labels"})
MAX_JACOBIAN_ROWS = 100_000


@dataclass
class Source:
    input: str
    index: list
    weight: float
    value: float

    def ref(self):
        return f"{self.input}{''.join(f'[{i}]' for i in self.index)}"


@dataclass
class Row:
    out: list
    value: float
    sources: list = field(default_factory=list)
    rule: str = ""

    def as_json(self):
        return {"out": self.out, "rule": self.rule, "value": _num(self.value),
                "from": [{"input": s.input, "index": s.index, "weight": _num(s.weight)} for s in self.sources]}


@dataclass
class GradRow:
    grad_of: str
    index: list
    value: float
    sources: list = field(default_factory=list)     # (out index, weight)

    def as_json(self):
        return {"grad_of": self.grad_of, "index": self.index, "value": _num(self.value),
                "from": [{"grad_out": o, "weight": _num(w)} for o, w in self.sources]}


def _num(v):
    v = float(v)
    return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v


def _is_data(name, value):
    return isinstance(value, core.Tensor) and name not in STEERING


def differentiable_copies(args):
    """float64 leaves for the data operands (name -> Tensor or list of Tensors); the rest unchanged."""
    out, leaves = {}, {}
    for name, v in args.items():
        if _is_data(name, v):
            leaf = v.detach().to(core.float64).requires_grad_(True)
            out[name] = leaves[name] = leaf
        elif isinstance(v, (list, tuple)) and v and all(isinstance(t, core.Tensor) for t in v) \
                and name not in STEERING:
            ts = [t.detach().to(core.float64).requires_grad_(True) for t in v]
            out[name] = type(v)(ts)
            for k, t in enumerate(ts):
                leaves[f"{name}[{k}]"] = t
        else:
            out[name] = v
    return out, leaves


def _first_float(result):
    if isinstance(result, core.Tensor):
        return result
    if isinstance(result, (list, tuple)):
        for r in result:
            if isinstance(r, core.Tensor) and r.requires_grad:
                return r
    return None


def _call(fn, positional, args):
    return fn(*[args[n] for n in positional], **{n: v for n, v in args.items() if n not in positional})


def _positions(shape, at=None, limit=None):
    n = int(np.prod(shape)) if shape else 1
    if at is not None:
        flat = int(np.ravel_multi_index(tuple(at), shape)) if shape else 0
        return [flat], n
    return list(range(n if limit is None else min(n, limit))), n


def forward_rows(fn, positional, args, *, at=None, max_rows=None):
    """(rows, total output elements): one Row per output element (or only `at`), in C order."""
    copies, leaves = differentiable_copies(args)
    with core.enable_grad():
        out = _first_float(_call(fn, positional, copies))
    if out is None or not out.requires_grad:
        raise ValueError("the op's result does not depend differentiably on its data operands")
    actual = _first_float(_call(fn, positional, args))
    values = (actual if actual is not None else out).detach().reshape(-1)
    flat = out.reshape(-1)
    names, tensors = list(leaves), list(leaves.values())
    picks, total = _positions(tuple(out.shape), at, max_rows)
    rows = []
    for p in picks:
        grads = core.autograd.grad(flat[p], tensors, retain_graph=True, allow_unused=True)
        row = Row(list(np.unravel_index(p, tuple(out.shape))) if out.dim() else [], values[p].item())
        for name, leaf, g in zip(names, tensors, grads):
            if g is None:
                continue
            g = g._data
            src = leaf._data
            for idx in zip(*np.nonzero(g)):
                row.sources.append(Source(name, [int(i) for i in idx], float(g[idx]), float(src[idx])))
        row.out = [int(i) for i in row.out]
        rows.append(row)
    return rows, total


def backward_rows(fn, positional, args, grad_output=None, *, max_rows=None):
    """(rows, grad_fn name, names of the nodes that computed the gradient): one GradRow per element
    of each data operand: grad_input[idx] = Σ_o grad_out[o] · d out[o] / d input[idx]."""
    copies, leaves = differentiable_copies(args)
    with core.enable_grad():
        out = _first_float(_call(fn, positional, copies))
    if out is None or not out.requires_grad:
        raise ValueError("the op's result does not depend differentiably on its data operands")
    if out.numel() > MAX_JACOBIAN_ROWS:
        raise ValueError(f"--backward traces at most {MAX_JACOBIAN_ROWS} output elements; the output has "
                         f"{out.numel()}")
    go = core.ones_like(out) if grad_output is None else grad_output.to(out.dtype).expand(out.shape)
    names, tensors = list(leaves), list(leaves.values())
    with core.enable_grad():
        grads = core.autograd.grad(out, tensors, go, retain_graph=True, allow_unused=True, create_graph=True)
    computed_by = sorted({g.grad_fn.name() for g in grads if g is not None and g.grad_fn is not None})
    contrib = {n: {} for n in names}
    flat = out.reshape(-1)
    for p in range(out.numel()):
        js = core.autograd.grad(flat[p], tensors, retain_graph=True, allow_unused=True)
        oidx = [int(i) for i in np.unravel_index(p, tuple(out.shape))] if out.dim() else []
        for n, j in zip(names, js):
            if j is None:
                continue
            for idx in zip(*np.nonzero(j._data)):
                contrib[n].setdefault(tuple(int(i) for i in idx), []).append((oidx, float(j._data[idx])))
    rows = []
    for n, leaf, g in zip(names, tensors, grads):
        for idx in np.ndindex(*leaf.shape) if leaf.dim() else [()]:
            value = 0.0 if g is None else float(g._data[idx])
            rows.append(GradRow(n, [int(i) for i in idx], value, contrib[n].get(tuple(idx), [])))
            if max_rows is not None and len(rows) >= max_rows:
                return rows, out.grad_fn.name(), computed_by
    return rows, out.grad_fn.name(), computed_by


def rule_text(row, op_name, category):
    """`out[0] = input[0][0] + input[0][1] = 1 + 2 = 3`: the row as a formula with its numbers."""
    lhs = f"out{''.join(f'[{i}]' for i in row.out)}"
    srcs = row.sources
    value = f"{_num(row.value):g}" if isinstance(_num(row.value), float) else str(_num(row.value))
    if not srcs:
        return f"{lhs} = {value} (a constant: no input element affects it)"
    if category == "pointwise" or len(srcs) <= len({s.input for s in srcs}) and category != "reduce":
        return f"{lhs} = {op_name}({', '.join(s.ref() for s in srcs)}) = {value}"
    if all(s.weight == 1 for s in srcs):
        terms = " + ".join(s.ref() for s in srcs)
        nums = " + ".join(f"{_num(s.value)}" for s in srcs)
        return f"{lhs} = {terms} = {nums} = {value}"
    w0 = srcs[0].weight
    if all(s.weight == w0 for s in srcs) and w0 != 0 and abs(round(1 / w0) - 1 / w0) < 1e-9:
        return f"{lhs} = ({' + '.join(s.ref() for s in srcs)}) / {round(1 / w0)} = {value}"
    terms = " + ".join(f"{_num(s.weight)}·{s.ref()}" for s in srcs)
    return f"{lhs} = {terms} = {value}   (weights: ∂out/∂input at these inputs)"
