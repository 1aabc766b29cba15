"""--explain for every op: data-movement ops keep services/explain.py's rows (the op run on
position codes); every other differentiable op gets one row per output element from
services/dependencies.py (core's autograd: the elements each output element depends on, with
their weights), worded per kind by services/explain_kinds.py. argmax / argmin, which have no
gradient, are explained from their value (the winner among the candidates, ties: first index, as
torch). Other non-differentiable ops get a one-line CliError.
"""
from __future__ import annotations

import numpy as np

from core import Tensor

from .. import opspec
from ..errors import CliError
from . import dependencies as deps, explain as movement, explain_kinds as kinds, explain_values as values
from .dependencies import Source

ARG_EXTREMES = {"argmax": "max", "argmin": "min"}   # an op entry's wording -> the extreme it picks


def explain(call, result, *, at=None, max_rows=0) -> movement.Explanation:
    """The Explanation of one op call (movement rows, dependency rows or argmax/argmin rows)."""
    if call.info.kind:
        big = sum(int(np.prod(o.shape, dtype=np.int64)) for o in movement._data_operands(call)[0])
        if at is None or big <= movement.MAX_EXPLAIN_ELEMENTS:
            return movement.explain(call, result, at=at, max_rows=max_rows)
        # one element of a large movement op: autograd of that element only
    if opspec.wording(call.info.name) in ARG_EXTREMES:
        return _arg_extreme(call, result, at, max_rows)
    return _dependencies(call, result, at, max_rows)


def _title(call):
    args = ", ".join(f"{k}={v}" for k, v in call.scalars().items())
    return f"{call.info.name}({args})"


def _check_at(at, shape):
    if at is None:
        return None
    at = list(at)
    if len(at) == len(shape) + 1 and at[0] == 0:   # an output number first (multi-output ops)
        at = at[1:]
    if len(at) != len(shape) or any(not (-s <= c < s) for c, s in zip(at, shape)):
        raise CliError("--at", f"{','.join(map(str, at))} is not an element of the output (shape {list(shape)})")
    return [c % s for c, s in zip(at, shape)]


def _first_tensor(result):
    return result if isinstance(result, Tensor) else result[0]


def _dependencies(call, result, at, max_rows):
    info = call.info
    first = values.first_tensor(result)
    at = _check_at(at, tuple(first.shape))
    rows, total, kind = _rows(call, result, at, max_rows)
    ctx = {"shapes": {deps.label(call, n): tuple(v.shape) for n, v in call.values.items()
                      if isinstance(v, Tensor) and n not in opspec.steering(info.name)}}
    if kind == "extreme":
        ctx.update(_candidates(call))
    if kind == "spread":   # an element equal to the mean has derivative 0: its slice from generic inputs
        ctx["correction"] = _correction(call)
        ctx["structure"] = _structure(call, at, max_rows)
    if kind == "contraction":   # a zero hides a partner: pair on generic inputs; list it with ×0
        ctx["structure"] = _structure(call, at, max_rows)
        deps.add_structural_zeros(rows, ctx["structure"])
    if kind == "contraction" and info.name == "einsum":
        ctx["contraction_note"] = _einsum_note(call)
    elif kind == "contraction" and info.name.startswith("conv"):
        ctx["contraction_note"] = ", ".join(f"{k} {_text(call.values.get(k, d))}" for k, d in
                                            (("stride", 1), ("padding", 0), ("dilation", 1), ("groups", 1)))
    how = {"sample": "a random draw", "depends": "no gradient: by probing"}.get(
        kind, "from core's autograd" if any(s.weight is not None for r in rows for s in r.sources) else "by broadcasting")
    ex = movement.Explanation(info.name, kind, f"{_title(call)}: what each output element is computed from "
                                               f"({kind}, {how})", _KIND_RULE.get(kind),
                              limit=0, columns=True)
    for r in rows:
        r.rule = kinds.rule(kind, info, r, ctx)
        word = kinds.weight_word(r, kind, info.name)
        row = r.as_json()
        if word is not None:       # what the weights are: ∂out/∂in, summed ×1, picked
            row["weights"] = word
        if word == "picked: the winner":
            row["from"][0]["winner"] = True
        reads = kinds.reads(r, kind)
        ex.rows.append((row, ["out" + kinds.cells(r.out), r.rule,
                              f"reads ({word}): {reads}" if word else f"reads: {reads}", kinds.g(r.value)]))
    ex.total = 1 if at is not None else total
    note = _which_output(result, rows)
    if note:
        ex.notes.append(note)
        ex.extra["explain_output"] = rows[0].output if rows else 0
    return ex


def _which_output(result, rows):
    """For a multi-output op: which output the rows describe (sort's values, svd's U)."""
    if not isinstance(result, (tuple, list)) or len(result) < 2:
        return None
    k = rows[0].output if rows else 0
    fields = getattr(result, "_fields", None)
    name = fields[k] if fields else f"[{k}]"
    return f"rows: output {name} (the {_ordinal(k + 1)} of {len(result)}); --at takes its coordinates"


def _ordinal(n):
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _rows(call, result, at, max_rows):
    """(rows, total, kind): autograd's rows; for elementwise ops the broadcast operand elements with
    autograd's weights where there is a derivative; random samples their parameters; other ops
    without a gradient rows from probing (services/explain_values.py)."""
    info = call.info
    if info.category == "random":
        return (*values.distribution_rows(call, result, at=at, max_rows=max_rows), "sample")
    try:
        rows, total = deps.forward_rows(call, result, at=at, max_rows=max_rows)
    except (ValueError, RuntimeError, NotImplementedError):   # no gradient: no autograd rows
        rows = None
    if values.is_elementwise(info):
        w = values.weights_of(rows) if rows is not None else None
        return (*values.broadcast_rows(call, result, at=at, max_rows=max_rows, weights=w), "elementwise")
    if rows is not None:
        return rows, total, kinds.kind_of(info, rows)
    try:
        return (*values.probe_rows(call, result, at=at, max_rows=max_rows), "depends")
    except ValueError as e:
        raise CliError("--explain", f"{e}, so there is no element mapping to explain") from e


_KIND_RULE = {
    "elementwise": "out[...] = f(each operand at the same position; size-1 and missing dims broadcast)",
    "sum": "out[...] = the sum of the input elements listed",
    "copy": "out[...] = the input element it is copied from (summed where several land)",
    "mean": "out[...] = (sum of the elements listed) / their count",
    "extreme": "out[...] = the winning element (ties: the first index, as torch)",
    "contraction": "out[...] = Σ a·b over the contracted positions",
    "softmax": "out[...] = exp(x) / Σ exp(x') over the dim",
    "norm": "out[...] = (x - mean) / sqrt(var + eps) (· weight + bias), mean and var over the elements listed",
    "spread": "out[...] = Σ (x - mean)² / (n - correction) over the elements listed (std: its square root)",
    "logsumexp": "out[...] = log(Σ exp(x)) over the elements listed",
    "select": "out[...] = the one input element it is (sorted, picked, or on the diagonal)",
    "sample": "out[...] is a random sample drawn with the parameters listed (no gradient: a new draw each run)",
    "depends": "out[...] changes when one of the elements listed changes (the op has no gradient)",
    "jacobian": "out[...] depends on the elements listed (∂out/∂input ≠ 0 at these inputs)",
}


def _correction(call):
    """var/std's correction as torch applies it: `correction`, else 1 (0 with unbiased=False)."""
    c = call.values.get("correction")
    if c is not None:
        return c
    return 0 if call.values.get("unbiased") is False else 1


def _structure(call, at, max_rows):
    """{out coords: Row at generic random inputs} (pairs a contraction's factors; values_of gives the
    actual value of any operand element)."""
    generic = deps.generic_call(call)
    try:
        rows, _ = deps.forward_rows(generic, None, at=at, max_rows=max_rows)
    except ValueError:
        return {}
    arrays = {deps.label(call, n): np.asarray(v._data) for n, v in call.values.items() if isinstance(v, Tensor)}
    for n, v in call.values.items():
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor):
            arrays.update({deps.label(call, n, k): np.asarray(t._data) for k, t in enumerate(v)})

    def values_of(name, index):
        return float(arrays[name][tuple(index)])
    for r in rows:
        r.values_of = values_of
    return {tuple(r.out): r for r in rows}


def _text(v):
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)


def _einsum_note(call):
    eq = call.values.get("equation") or ""
    if "->" not in eq:
        return ""
    lhs, rhs = eq.replace(" ", "").split("->")
    summed = sorted(set(lhs.replace(",", "").replace(".", "")) - set(rhs))
    return f"{eq}: summed over {', '.join(summed)}" if summed else f"{eq}: no letter summed"


def _candidates(call):
    """For max/min with or without dim: the candidates of a row and how many tie with the winner."""
    x = call.values.get("input")
    dim = call.values.get("dim")
    if not isinstance(x, Tensor) or call.info.name not in ("max", "min", "amax", "amin"):
        return {}
    data = np.asarray(x._data)

    def cands(row):
        if not row.sources:
            return None
        w = row.sources[0].index
        if isinstance(dim, int) and data.ndim:
            d = dim % data.ndim
            return [f"input{kinds.cells(w[:d] + [k] + w[d + 1:])}" for k in range(data.shape[d])]
        if dim is None:
            return [f"input{kinds.cells(c)}" for c in np.ndindex(*data.shape)]
        return None

    def ties(row):
        if not row.sources or not isinstance(dim, int) or not data.ndim:
            return 0
        w = row.sources[0].index
        d = dim % data.ndim
        line = data[tuple(w[:d]) + (slice(None),) + tuple(w[d + 1:])]
        return int(np.sum(line == data[tuple(w)]))

    return {"candidates": cands, "ties": ties}


def _arg_extreme(call, result, at, max_rows):
    """argmax/argmin: no gradient, so rows from the value: the candidates and the winner."""
    which = ARG_EXTREMES[opspec.wording(call.info.name)]
    x = call.values["input"]
    data = np.asarray(x._data)
    dim = call.values.get("dim")
    res = np.asarray(_first_tensor(result)._data)
    at = _check_at(at, res.shape)
    ex = movement.Explanation(call.info.name, "arg-extreme", f"{_title(call)}: which element wins",
                              f"out[...] = the index of the {'largest' if which == 'max' else 'smallest'} "
                              "element (ties: the first index, as torch; NaN wins)", columns=True)
    picks = [tuple(at)] if at is not None else list(np.ndindex(*res.shape))
    ex.total = len(picks)
    for o in picks[:max_rows or None]:
        k = int(res[o])
        if dim is None:
            cand = [tuple(int(i) for i in c) for c in np.ndindex(*data.shape)]
            win = tuple(int(i) for i in np.unravel_index(k, data.shape)) if data.ndim else ()
        else:
            d = dim % max(data.ndim, 1)
            keep = call.values.get("keepdim", False)
            base = list(o) if keep else list(o[:d]) + [0] + list(o[d:])
            cand = [tuple(base[:d] + [j] + base[d + 1:]) for j in range(data.shape[d])] if data.ndim else [()]
            win = cand[k] if data.ndim else ()
        vals = [data[c] for c in cand]
        ties = sum(1 for v in vals if v == data[win])
        best = "largest" if which == "max" else "smallest"
        why = f"input{kinds.cells(win)} = {kinds.g(float(data[win]))} is the {best}"
        if ties > 1:
            why += f"; {ties} tie: torch takes the first index"
        srcs = [Source("input", list(c), float("nan"), float(data[c])) for c in cand]
        rule = (f"out{kinds.cells(o)} = arg{which}({kinds.joined((s.ref() for s in srcs), ', ')}) = {k}  ({why})")
        row = {"out": [int(i) for i in o], "rule": rule, "value": k,
               "from": [dict({"input": "input", "index": s.index}, **({"winner": True} if tuple(c) == win else {}))
                        for s, c in zip(srcs, cand)]}
        reads = kinds.joined((s.ref() + (" (the winner)" if tuple(c) == win else "") for s, c in zip(srcs, cand)),
                             ", ")
        ex.rows.append((row, ["out" + kinds.cells(o), rule, f"reads: {reads}", str(k)]))
    return ex


# -- --backward -----------------------------------------------------------------------------------

def _op_name(node_name):
    """'ScatterAddBackward0' -> 'scatter_add'."""
    base = node_name.rsplit("::", 1)[-1].rsplit("Backward", 1)[0]   # torch::autograd::CopySlices -> copy_slices
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(base))


def backward(call, grad_output=None, *, max_rows=0):
    """{"grad_fn", "grad_computed_by", "rows": [(json, line)], "total"} for --backward."""
    if call.info.category == "random":
        raise CliError("--backward", f"{call.info.name} draws random samples: torch gives them no gradient "
                                     "with respect to the distribution's parameters")
    try:
        b = deps.backward_rows(call, grad_output, max_rows=max_rows)
    except (ValueError, RuntimeError, NotImplementedError) as e:   # no gradient, or torch has no formula
        raise CliError("--backward", str(e).splitlines()[0] if str(e) else type(e).__name__) from e
    go = b.grad_output
    rows = []
    for r in b.rows:
        lhs = f"grad_{r.grad_of}{kinds.cells(r.index)}"
        if r.sources:
            terms = kinds.joined(f"grad_out{kinds.cells(o)}" + ("" if w == 1 else f"·{kinds.g(w)}")
                                 for o, w in r.sources)
            nums = kinds.joined(f"{kinds.g(float(go[tuple(o)]))}" + ("" if w == 1 else f"·{kinds.g(w)}")
                                for o, w in r.sources)
            rule = f"{lhs} = {terms} = {nums}" + ("" if nums == kinds.g(r.value) else f" = {kinds.g(r.value)}")
        else:
            rule = f"{lhs} = 0  (no output element depends on it)"
        reads = kinds.joined((f"grad_out{kinds.cells(o)}×{kinds.g(w)}" for o, w in r.sources), ", ")
        rows.append((r.as_json(), [lhs, rule, reads, kinds.g(r.value)]))
    nodes = torch_nodes(call.info.name, b.computed_by)
    return {"grad_fn": b.grad_fn, "grad_computed_by": nodes, "core_grad_computed_by": b.computed_by,
            "grad_ops": [_op_name(n) for n in nodes], "rows": rows, "total": b.total}


def torch_nodes(op, core_nodes):
    """The nodes torch's gradient has under create_graph=True (softmax: SoftmaxBackwardDataBackward0,
    where core's is built from MulBackward0): torch's set recorded at the op's example
    (services/grad_nodes.py, generated from torch) when core built this gradient as there; else core's."""
    from .grad_nodes import TORCH_GRAD_NODES
    entry = TORCH_GRAD_NODES.get(op)
    if entry is not None and sorted(core_nodes) == list(entry[0]):
        return list(entry[1])
    return list(core_nodes)


def backward_json(bw) -> dict:
    return {"explain_schema": movement.EXPLAIN_SCHEMA, "backward": [r[0] for r in bw["rows"]],
            "grad_fn": bw["grad_fn"], "grad_computed_by": bw["grad_computed_by"],
            "core_grad_computed_by": bw["core_grad_computed_by"], "backward_left_out": bw["total"] - len(bw["rows"])}


def valid_dims(call):
    """The dims of the op's first tensor operand: what --dim all runs."""
    for v in call.values.values():
        if isinstance(v, Tensor):
            return list(range(max(v.dim(), 1)))
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor):
            return list(range(max(v[0].dim(), 1)))
    return [0]



