"""Which input elements each output element depends on, and with what weight, for ANY differentiable
op: rows computed with core's autograd (each row is one row of the op's Jacobian at the actual
inputs), so the facts are what PyTorch's autograd computes; nothing here re-implements an op.

* Forward rows: `out[i][j]` <- the input elements whose derivative is non-zero, each with its weight
  d out[i][j] / d input[...] (the exact coefficient where the op is linear in that input: 1 for
  sum, 1/n for mean, b[j][k] for a matmul's a[i][j], the kernel tap for conv2d...). `at` traces one
  element only (one backward pass), so a single element of a large output is cheap.
* Backward rows: `grad_input[r][c] = Σ grad_out[o] · weight` over the output cells that read it (the
  transposed Jacobian), and the value core's autograd gives for a grad_output (default ones), as
  torch computes it (the grad_fn torch records, and the nodes that compute the gradient).

Data operands are explained through leaves holding the same values (floating ones in their dtype;
integer and boolean ones as float64, when the op accepts them); steering operands (index, mask,
target, ...) stay as they are.
Plain data only: no Typer, no Rich.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import core

from .. import opspec

MAX_JACOBIAN_ROWS = 100_000
MAX_BACKWARD_ELEMENTS = 20_000


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
    output: int = 0          # which output of a multi-output op (sort's values: 0, linalg.lu's L: 1)

    def as_json(self):
        return {"out": self.out, "rule": self.rule, "value": num(self.value),
                "from": [_source_json(s) for s in self.sources]}


def _source_json(s):
    """One `from` entry; no weight where the op has no derivative (comparisons, integer results)."""
    d = {"input": s.input, "index": s.index}
    if s.weight is not None:
        d["weight"] = num(s.weight)
    return d


@dataclass
class GradRow:
    grad_of: str
    index: list
    value: float
    sources: list = field(default_factory=list)     # (out index, weight)

    def as_json(self):
        return {"grad_of": self.grad_of, "index": self.index, "value": num(self.value),
                "from": [{"grad_out": o, "weight": num(w)} for o, w in self.sources]}


def num(v):
    """A float as JSON shows it: integral values as ints; NaN / infinities as strings."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v


def label(call, name, k=None):
    """How rows name an operand: the positional tensor is 'input', others by their option name."""
    spec = next((s for s in call.specs if s.name == name), None)
    base = ("tensors" if k is not None else "input") if spec is not None and spec.positional else name
    if base == "input" and name != "input" and any(s.name == "input" for s in call.specs):
        base = name          # where(condition, input, other): the positional is not the input
    return base if k is None else f"{base}[{k}]"


def _leaf(t, convert_ints):
    """A leaf with t's values: floating tensors keep their dtype (weights are what torch computes in
    it), integer / boolean ones become float64."""
    if t.is_floating_point() or t.is_complex():
        return t.detach().requires_grad_(True)
    if convert_ints:
        return t.detach().to(core.float64).requires_grad_(True)
    return None


def differentiable_copies(call, convert_ints=True):
    """(values with float64 leaves for the data operands, {label: leaf}); the rest unchanged."""
    out, leaves = dict(call.values), {}
    steering = opspec.steering(call.info.name)   # operands that select or steer: kept as they are
    for name, v in call.values.items():
        if name in steering:
            continue
        if isinstance(v, core.Tensor):
            leaf = _leaf(v, convert_ints)
            if leaf is not None:
                out[name] = leaves[label(call, name)] = leaf
        elif isinstance(v, (list, tuple)) and v and all(isinstance(t, core.Tensor) for t in v):
            ts = [_leaf(t, convert_ints) for t in v]
            out[name] = type(v)(t if t is not None else o for t, o in zip(ts, v))
            for k, t in enumerate(ts):
                if t is not None:
                    leaves[label(call, name, k)] = t
    return out, leaves


def _first_float(result):
    """(k, the k-th output): the first output with a gradient (k = 0 for a single tensor)."""
    if isinstance(result, core.Tensor):
        return 0, result
    if isinstance(result, (list, tuple)):
        for k, r in enumerate(result):
            if isinstance(r, core.Tensor) and r.requires_grad:
                return k, r
    return 0, None


def traced(call):
    """(output tensor with a graph, {label: leaf}): the op run on float64 leaves (integer operands
    converted when the op accepts floats there, kept otherwise: embedding's indices)."""
    out, leaves, _ = traced_output(call)
    return out, leaves


def traced_output(call):
    """traced(call) and k: which output of a multi-output op has the graph (sort's values: 0)."""
    for convert in (True, False):
        copies, leaves = differentiable_copies(call, convert)
        if not leaves:
            continue
        try:
            with core.enable_grad():
                k, out = _first_float(call.run(**copies))
        except Exception:  # noqa: BLE001 - the op refuses float copies of an integer operand
            continue
        if out is not None and out.requires_grad:
            return out, leaves, k
    raise ValueError(f"{call.info.name}'s result has no gradient with respect to its data operands")


def _nonzero(a):
    """Index tuples of a's non-zero elements (a 0-d array: () when it is non-zero)."""
    if a.ndim == 0:
        return [()] if a != 0 else []
    return zip(*np.nonzero(a))


def _positions(shape, at=None, limit=None):
    n = int(np.prod(shape)) if shape else 1
    if at is not None:
        flat = int(np.ravel_multi_index(tuple(at), shape)) if shape else 0
        return [flat], n
    return list(range(n if not limit else min(n, limit))), n


def _unravel(p, shape):
    return [int(i) for i in np.unravel_index(p, shape)] if shape else []


def generic_call(call, seed=0):
    """The call with every floating data operand replaced by distinct random values of its shape: its
    Jacobian has the op's structural pattern (no accidental zeros), e.g. to pair a contraction's
    factors."""
    rng = np.random.default_rng(seed)
    vals = dict(call.values)
    steering = opspec.steering(call.info.name)
    for name, v in call.values.items():
        if name in steering:
            continue
        if isinstance(v, core.Tensor) and (v.is_floating_point() or not v.dtype == core.bool):
            vals[name] = core.from_numpy(rng.uniform(0.5, 1.5, size=tuple(v.shape)))
        elif isinstance(v, (list, tuple)) and v and all(isinstance(t, core.Tensor) for t in v):
            vals[name] = type(v)(core.from_numpy(rng.uniform(0.5, 1.5, size=tuple(t.shape))) for t in v)
    return type(call)(call.info, call.specs, vals)


def forward_rows(call, result, *, at=None, max_rows=None):
    """(rows, total output elements): one Row per output element (or only `at`), in C order, of the
    first output with a gradient (Row.output). Values are the op's actual result there."""
    out, leaves, k = traced_output(call)
    actual = result if isinstance(result, core.Tensor) else result[k] if isinstance(result, (tuple, list)) else None
    if actual is None or tuple(actual.shape) != tuple(out.shape):
        actual = out
    values = actual.detach().reshape(-1)._data
    flat = out.reshape(-1)
    names, tensors = list(leaves), list(leaves.values())
    shape = tuple(out.shape)
    picks, total = _positions(shape, at, max_rows)
    rows = []
    for p in picks:
        grads = core.autograd.grad(flat[p], tensors, retain_graph=True, allow_unused=True)
        row = Row(_unravel(p, shape), values[p].item(), output=k)
        for name, leaf, g in zip(names, tensors, grads):
            if g is None:
                continue
            g, src = g._data, leaf._data
            for idx in _nonzero(g):
                row.sources.append(Source(name, [int(i) for i in idx], float(g[idx]), float(src[idx])))
        rows.append(row)
    return rows, total


def add_structural_zeros(rows, structure):
    """Add to each row, with weight 0, the sources the same row has at generic inputs (`structure`:
    {out coords: Row}) but not at the actual ones: a contraction reads input[0][0] even where its
    partner is 0 (matmul's `'[[1.0,2]]' --other '[[0.0],[1]]'`), and says so with ×0. Values are
    the actual ones (`values_of` of the structure rows)."""
    for r in rows:
        ref = structure.get(tuple(r.out))
        if ref is None:
            continue
        have = {(s.input, tuple(s.index)) for s in r.sources}
        missing = [s for s in ref.sources if (s.input, tuple(s.index)) not in have]
        if not missing:
            continue
        vals = getattr(ref, "values_of", None)
        order = {(s.input, tuple(s.index)): k for k, s in enumerate(ref.sources)}
        r.sources = sorted(r.sources + [Source(s.input, list(s.index), 0.0,
                                               vals(s.input, s.index) if vals else float("nan"))
                                        for s in missing],
                           key=lambda s: order.get((s.input, tuple(s.index)), len(order)))


@dataclass
class Backward:
    rows: list
    grad_fn: str
    computed_by: list
    total: int
    grad_output: object = None      # the grad_output used (ndarray, the output's shape)


def backward_rows(call, grad_output=None, *, max_rows=None):
    """One GradRow per element of each data operand: grad_input[idx] = Σ_o grad_out[o] · d out[o] /
    d input[idx] (the Jacobian's column), with the value core's autograd gives for grad_output."""
    out, leaves = traced(call)
    if out.numel() > MAX_JACOBIAN_ROWS:
        raise ValueError(f"--backward traces at most {MAX_JACOBIAN_ROWS} output elements; the output has "
                         f"{out.numel()}")
    if sum(t.numel() for t in leaves.values()) > MAX_BACKWARD_ELEMENTS:
        raise ValueError(f"--backward lists at most {MAX_BACKWARD_ELEMENTS} input elements")
    if grad_output is None:
        go = core.ones_like(out)
    else:
        if tuple(grad_output.shape) != tuple(out.shape):
            raise ValueError(f"--grad-output has shape {list(grad_output.shape)}; the output has "
                             f"{list(out.shape)}")
        go = grad_output.detach().to(out.dtype)
    go = go.detach().requires_grad_(True)   # so the gradient records the node(s) that compute it
    names, tensors = list(leaves), list(leaves.values())
    with core.enable_grad():
        grads = core.autograd.grad(out, tensors, go, retain_graph=True, allow_unused=True, create_graph=True)
    computed_by = sorted({g.grad_fn.name() for g in grads if g is not None and g.grad_fn is not None})
    contrib = {n: {} for n in names}
    flat, shape = out.reshape(-1), tuple(out.shape)
    for p in range(out.numel()):
        js = core.autograd.grad(flat[p], tensors, retain_graph=True, allow_unused=True)
        for n, j in zip(names, js):
            if j is None:
                continue
            for idx in _nonzero(j._data):
                contrib[n].setdefault(tuple(int(i) for i in idx), []).append((_unravel(p, shape),
                                                                                float(j._data[idx])))
    rows, total = [], sum(t.numel() for t in tensors)
    for n, leaf, g in zip(names, tensors, grads):
        for idx in (np.ndindex(*leaf.shape) if leaf.dim() else [()]):
            if max_rows and len(rows) >= max_rows:
                break
            value = 0.0 if g is None else float(g._data[idx])
            rows.append(GradRow(n, [int(i) for i in idx], value, contrib[n].get(tuple(idx), [])))
    name = out.grad_fn.name() if out.grad_fn is not None else None
    return Backward(rows, name, computed_by, total, np.asarray(go.detach()._data))
