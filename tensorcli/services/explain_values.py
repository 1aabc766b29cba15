"""--explain rows for ops whose result has no gradient (comparisons, logical and bitwise ops, integer
results, argsort, bincount, unique, equal, random samples): the elements each output element reads,
found without autograd, so no op is left unexplained.

* elementwise ops (pointwise, comparison, logical): PyTorch's broadcasting names the operand element
  behind each output element (`out[1][2] = lt(input[1][2], other[0])`); weights are autograd's
  derivative where the op has one (0 for floor, sign, ...), absent where it has none (bool results);
* random samples (bernoulli, poisson: one parameter per element; multinomial: the row of
  probabilities a draw reads): the distribution parameters, no weight;
* anything else: probing. Each data operand element is changed (a bool flipped; a number moved by ±1,
  past the operand's extremes, to 0) and the op re-run; an output element depends on it when its
  value changes. Bounded by MAX_PROBE_ELEMENTS (up to 5 runs of the op per element).
Plain data only: no Typer, no Rich.
"""
from __future__ import annotations

import numpy as np

import core
from core import Tensor

from .. import opspec
from .dependencies import Row, Source, label

MAX_PROBE_ELEMENTS = 4096
ELEMENTWISE_CATEGORIES = ("pointwise", "comparison", "logical", "random")
NOT_ELEMENTWISE = {"isin", "equal", "allclose", "multinomial"}
PER_ROW = {"multinomial"}        # each sample reads its row of probabilities


def is_elementwise(info) -> bool:
    """Pointwise, comparison, logical and per-element random ops (not isin / equal / multinomial)."""
    return info.category in ELEMENTWISE_CATEGORIES and info.name not in NOT_ELEMENTWISE


def first_tensor(result):
    """The output the rows describe: the result, its first tensor, or a Python scalar as a 0-d tensor."""
    if isinstance(result, Tensor):
        return result
    if isinstance(result, (tuple, list)) and result and isinstance(result[0], Tensor):
        return result[0]
    return core.tensor(result)


def operands(call, steering=False):
    """[(label, ndarray)] of the call's tensor operands in call order (steering ones only if asked)."""
    out, steer = [], opspec.steering(call.info.name)
    for name, v in call.values.items():
        if name in steer and not steering:
            continue
        if isinstance(v, Tensor):
            out.append((label(call, name), np.asarray(v._data)))
        elif isinstance(v, (tuple, list)) and v and all(isinstance(t, Tensor) for t in v):
            out += [(label(call, name, k), np.asarray(t._data)) for k, t in enumerate(v)]
    return out


def _positions(shape, at, max_rows):
    if at is not None:
        return [tuple(at)], int(np.prod(shape, dtype=np.int64))
    picks = list(np.ndindex(*shape)) if shape else [()]
    return picks[:max_rows or None], len(picks)


def _value(a, idx):
    v = a[idx] if a.ndim else a[()]
    return v.item() if hasattr(v, "item") else v


def broadcast_rows(call, result, *, at=None, max_rows=0, weights=None):
    """Rows of an elementwise op: each operand element behind each output element by broadcasting
    (size-1 dims read index 0, missing leading dims are not indexed). `weights`: {(out, label,
    index): derivative} from autograd, where the op has one."""
    out = first_tensor(result)
    res = np.asarray(out._data)
    ops = [(lab, a) for lab, a in operands(call, steering=True) if np.broadcast_shapes(a.shape, res.shape) == res.shape]
    steer = {label(call, n) for n in call.values if n in opspec.steering(call.info.name)}     # where's condition: no weight
    picks, total = _positions(res.shape, at, max_rows)
    rows = []
    for o in picks:
        row = Row([int(i) for i in o], _value(res, o))
        for lab, a in ops:
            lead = res.ndim - a.ndim
            idx = [0 if n == 1 else o[lead + k] for k, n in enumerate(a.shape)]
            w = None if weights is None or lab in steer else weights.get((tuple(row.out), lab, tuple(idx)), 0.0)
            row.sources.append(Source(lab, idx, w, _value(a, tuple(idx))))
        rows.append(row)
    return rows, total


def weights_of(rows) -> dict:
    """{(out, label, index): weight} of autograd rows (to merge into broadcast rows)."""
    return {(tuple(r.out), s.input, tuple(s.index)): s.weight for r in rows for s in r.sources}


def distribution_rows(call, result, *, at=None, max_rows=0):
    """Random samples: the parameters each drawn element reads (multinomial: its row of weights)."""
    if call.info.name not in PER_ROW:
        return broadcast_rows(call, result, at=at, max_rows=max_rows)
    out = np.asarray(first_tensor(result)._data)
    probs = np.asarray(call.values["input"]._data)
    picks, total = _positions(out.shape, at, max_rows)
    rows = []
    for o in picks:
        lead = tuple(o[:-1]) if probs.ndim == 2 else ()
        row = Row([int(i) for i in o], _value(out, o))
        for j in range(probs.shape[-1]):
            idx = list(lead) + [j]
            row.sources.append(Source("input", idx, None, _value(probs, tuple(idx))))
        rows.append(row)
    return rows, total


def _probes(a, idx):
    """The values an element is changed to: a bool flipped; a number moved by ±1, past the operand's
    smallest and largest element (so an order or a count sees the change) and to 0 (nonzero)."""
    v = a[idx]
    if a.dtype == np.bool_:
        return [not v]
    finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
    lo, hi = (finite.min() - 1, finite.max() + 1) if finite.size else (v - 1, v + 1)
    return list(dict.fromkeys([v + 1, v - 1, lo, hi, v * 0]))


def _changed(base, got):
    """Output elements that differ (NaN equal to NaN); a position the probe's result lacks (bincount's
    last bin) changed; a result of another rank changed everywhere."""
    if got.ndim != base.ndim:
        return np.ones(base.shape, dtype=bool)
    out = np.ones(base.shape, dtype=bool)
    common = tuple(slice(0, min(a, b)) for a, b in zip(base.shape, got.shape))
    b, g = base[common], got[common]
    same = (b == g) | (np.isnan(b) & np.isnan(g)) if b.dtype.kind == "f" and g.dtype.kind == "f" else b == g
    out[common] = ~same
    return out


def _run(call, name, k, arr):
    v = core.from_numpy(arr)
    if k is not None:
        v = type(call.values[name])(v if i == k else t for i, t in enumerate(call.values[name]))
    with core.no_grad():
        return np.asarray(first_tensor(call.run(**{name: v}))._data)


def probe_rows(call, result, *, at=None, max_rows=0):
    """Rows from probing: out[o] lists the data operand elements whose change changes out[o]."""
    base = np.asarray(first_tensor(result)._data)
    items, steer = [], opspec.steering(call.info.name)
    for name, v in call.values.items():
        if name in steer:
            continue
        if isinstance(v, Tensor):
            items.append((name, None, v))
        elif isinstance(v, (tuple, list)) and v and all(isinstance(t, Tensor) for t in v):
            items += [(name, k, t) for k, t in enumerate(v)]
    n = sum(t.numel() for _, _, t in items)
    if n > MAX_PROBE_ELEMENTS:
        raise ValueError(f"{call.info.name} has no gradient and its operands have {n} elements (probing "
                         f"explains at most {MAX_PROBE_ELEMENTS})")
    deps = {}
    for name, k, t in items:
        a = np.asarray(t._data)
        for idx in (np.ndindex(*a.shape) if a.ndim else [()]):
            changed = np.zeros(base.shape, dtype=bool)
            for p in _probes(a, idx):
                b = a.copy()
                b[idx] = p
                try:
                    got = _run(call, name, k, b)
                except Exception:  # noqa: BLE001 - the op refuses the probe value (bincount of -1)
                    continue
                changed |= _changed(base, got)
            for o in zip(*np.nonzero(changed)) if base.ndim else ([()] if changed.any() else []):
                deps.setdefault(tuple(int(i) for i in o), []).append(
                    Source(label(call, name, k), [int(i) for i in idx], None, _value(a, idx)))
    picks, total = _positions(base.shape, at, max_rows)
    return [Row([int(i) for i in o], _value(base, o), deps.get(tuple(o), [])) for o in picks], total
