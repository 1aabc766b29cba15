"""--explain: where each output element of a data-movement op comes from.

The mapping is derived by RUNNING THE OP ITSELF on position tensors, never re-implemented:

* Every data operand (INPUT, src, source, values, other, the tensors of cat/stack, ...) is
  replaced by a float64 tensor of the same shape holding distinct codes (its flat positions,
  offset per operand); a scalar `value` becomes a sentinel code; index operands (index, mask,
  indices, ...) are passed unchanged. Each output element then reads as "input cell (i, k)",
  "src cell (…)", "the scalar value", a constant (e.g. triu's 0), or a mix.
* A mixed element (several sources accumulated, e.g. scatter_add, index_put(accumulate=True))
  is resolved with probe runs: each operand's elements get distinct powers of two (in batches
  of 50, others 0), so the output's bits name the contributors; the sum of their codes must
  equal the coded run (otherwise the reduction is not a sum, and one-hot probes are used).
* For scatter-like ops (kind 'scatter') rows are per src element: where it lands. An element
  that lands nowhere visible lost a collision (plain scatter: PyTorch leaves the winner
  undefined) or is unused; the op's formula (its opspec entry's `rule`), evaluated with the concrete
  indices, says which.

The formula: the entry's `rule(ndim, dim)` returns e.g. 'out[i][j] = input[i][index[i][j]]'; ndim is
INPUT's rank and dim the op's `dim` wrapped to be non-negative (against the larger of the input
and output ranks). If the rule function takes further parameters (or **kwargs), the op's other
arguments are passed by name (`dims`, `sizes`, `dim0`...). The formula is parsed (names with
subscripts, integer arithmetic + - * // %), the loop variables are bound from the plain side
(`out[i][j]`, or `src[i][j]` for scatter-like rules) and each row shows it with the concrete
numbers: `out[0][1] = input[0][index[0][1]=2] = input[0][2] = 3`. A rule that does not parse
is shown as text; the rows then come from the runs alone.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

import numpy as np

import core
from core import Tensor

from ..errors import CliError
from ..io import c_order as _c_order, json_scalar
from .. import opspec
from ..spec import OUT_NAMES, SCALAR_DATA, data_names
from .explain_rule import Cell, Eval, bind, find_ref, index_lookups, parse_rule, pattern
from .text import fmt_value

SENTINEL = float(2 ** 45)  # code of a scalar `value` (outside the range of element codes)
CODE_LO, CODE_HI = 2 ** 40, 2 ** 41
BATCH = 50                # powers of two per probe run (exact in float64)
MAX_PROBE_ELEMENTS = 20000
MAX_ONEHOT_ELEMENTS = 1000
MAX_EXPLAIN_ELEMENTS = 200_000
EXPLAIN_SCHEMA = "tensorcli.explain/1"   # docs/explain-json.md


# -- the explanation ----------------------------------------------------------------------------

def _cells(coords):
    return "".join(f"[{c}]" for c in coords)


def _py(v):
    v = v.item() if hasattr(v, "item") else v
    return v


@dataclass
class Explanation:
    op: str
    kind: str
    header: str
    rule: str | None
    rows: list = field(default_factory=list)        # (json dict, text line), at most `limit`
    notes: list = field(default_factory=list)       # text lines after the table
    extra: dict = field(default_factory=dict)       # extra JSON keys (collisions, untouched)
    limit: int = 0                                  # 0: keep every row
    total: int = 0                                  # rows there are (kept or not)
    columns: bool = False                           # rows' lines are [out, rule, inputs read, value]

    def full(self):
        return bool(self.limit) and len(self.rows) >= self.limit

    def add(self, row, line):
        self.total += 1
        if not self.full():
            self.rows.append((row, line))

    def to_json(self, max_rows=40):
        rows = self.rows if not max_rows else self.rows[:max_rows]
        obj = {"explain_schema": EXPLAIN_SCHEMA, "explain_kind": self.kind,
               "explain": [_jsonable(r[0], json_scalar) for r in rows], "rule": self.rule,
               "explain_left_out": self.total - len(rows)}
        obj.update(_jsonable(self.extra, json_scalar))
        if self.notes:
            obj["notes"] = list(self.notes)
        return obj


def _jsonable(x, enc):
    if isinstance(x, dict):
        return {k: _jsonable(v, enc) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v, enc) for v in x]
    return enc(_py(x))


class _Operand:
    def __init__(self, name, label, tensor, spec_name, index=None):
        self.name, self.label, self.tensor = name, label, tensor
        self.shape = tuple(tensor.shape)
        self.n = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        self.spec_name, self.index = spec_name, index   # index: position inside a tuple operand

    def unravel(self, flat):
        return tuple(int(c) for c in np.unravel_index(int(flat), self.shape)) if self.shape else ()


def _data_operands(call):
    """[_Operand] for every data operand in call order, and {param: scalar} for scalar data."""
    ops, scalars = [], {}
    first = True
    for s in call.specs:
        v = call.values.get(s.name)
        is_data = s.name in data_names(call.info) or (first and s.positional)
        first = False
        if s.name in SCALAR_DATA and s.name in call.values and not isinstance(v, Tensor):
            scalars[s.name] = v
            continue
        if not is_data or v is None:
            continue
        if isinstance(v, Tensor):
            label = "input" if s.positional else s.name
            ops.append(_Operand(s.name, label, v, s.name))
        elif isinstance(v, (tuple, list)) and v and all(isinstance(t, Tensor) for t in v):
            label = "tensors" if s.positional else s.name
            for i, t in enumerate(v):
                ops.append(_Operand(s.name, f"{label}[{i}]", t, s.name, index=i))
    return ops, scalars


def _run_with(call, ops, fills, scalar_value):
    """Run the op with data operands replaced by `fills` (list of float64 arrays)."""
    replace = {}
    for o, arr in zip(ops, fills):
        t = core.from_numpy(_c_order(arr.reshape(o.shape)))
        if o.index is None:
            replace[o.spec_name] = t
        else:
            cur = list(replace.get(o.spec_name, call.values[o.spec_name]))
            cur[o.index] = t
            replace[o.spec_name] = tuple(cur)
    for name in _scalar_names(call):
        replace[name] = scalar_value
    with core.no_grad():
        res = call.run(**replace)
    return _outputs(res)


def _scalar_names(call):
    return [n for n in SCALAR_DATA if n in call.values and not isinstance(call.values[n], Tensor)]


def _outputs(res):
    if isinstance(res, Tensor):
        return [np.asarray(res._data, dtype=np.float64)]
    return [np.asarray(r._data, dtype=np.float64) for r in res]


class _Codes:
    """Distinct random integer codes in [2**40, 2**41) for every data element (exact in float64).

    Sums of two or more codes fall outside the range, and a mean or a max of several codes is
    caught by the second run on the negated codes: a cell has a single source only if both runs
    name the same element (a copy or an overwrite does; amax picks another element, a mean or a
    sum names none)."""

    def __init__(self, ops, seed=20240521):
        rng = np.random.default_rng(seed)
        total = sum(o.n for o in ops)
        while True:
            vals = rng.integers(CODE_LO, CODE_HI, size=total, dtype=np.int64)
            if np.unique(vals).size == total:
                break
        self.ops = ops
        self.per_op, start = [], 0
        for o in ops:
            self.per_op.append(vals[start:start + o.n].astype(np.float64))
            start += o.n
        order = np.argsort(vals)
        self.sorted = vals[order]
        self.owner = order                      # position in the concatenation
        self.starts = np.cumsum([0] + [o.n for o in ops])

    def code(self, o, coords):
        k = self.ops.index(o)
        flat = int(np.ravel_multi_index(coords, o.shape)) if o.shape else 0
        return float(self.per_op[k][flat])

    def lookup(self, v):
        """(operand, coords) whose code is v, or None."""
        if not (CODE_LO <= v < CODE_HI) or v != int(v):
            return None
        i = int(np.searchsorted(self.sorted, int(v)))
        if i >= self.sorted.size or self.sorted[i] != int(v):
            return None
        pos = int(self.owner[i])
        k = int(np.searchsorted(self.starts, pos, side="right")) - 1
        o = self.ops[k]
        return o, o.unravel(pos - int(self.starts[k]))

    def decode_all(self, va, vb):
        """_Decoded for one output (arrays of the two runs)."""
        return _Decoded(self, np.asarray(va, dtype=np.float64).ravel(), np.asarray(vb, dtype=np.float64).ravel())

    def _positions(self, v):
        """Position in the concatenation of each value's code, -1 where it is not a code."""
        ok = (v >= CODE_LO) & (v < CODE_HI) & (v == np.floor(v))
        iv = np.where(ok, v, CODE_LO).astype(np.int64)
        i = np.minimum(np.searchsorted(self.sorted, iv), self.sorted.size - 1)
        hit = ok & (self.sorted[i] == iv)
        return np.where(hit, self.owner[i], -1)

    def decode(self, va, vb):
        """('op', operand, coords) | ('value',) | ('const', 0) | None (several sources) for one cell,
        from its values in the run on the codes (va) and on the negated codes (vb)."""
        if va == SENTINEL and vb == SENTINEL:
            return ("value",)
        if va == 0 and vb == 0:
            return ("const", 0)
        a = self.lookup(va)
        if a is None:
            return None
        b = self.lookup(-vb)
        if b is None or b[0] is not a[0] or b[1] != a[1]:
            return None
        return ("op", a[0], a[1])


class _Decoded:
    """Lazy per-cell decodes of one output: classified with NumPy, tuples built on access."""

    def __init__(self, cm, va, vb):
        self.cm = cm
        pa, pb = cm._positions(va), cm._positions(-vb)
        self.pos = np.where((pa >= 0) & (pa == pb), pa, -1)
        self.value = (va == SENTINEL) & (vb == SENTINEL)
        self.const = (va == 0) & (vb == 0)
        self.mixed = (self.pos < 0) & ~self.value & ~self.const

    def __len__(self):
        return self.pos.size

    def __getitem__(self, flat):
        p = int(self.pos[flat])
        if p >= 0:
            k = int(np.searchsorted(self.cm.starts, p, side="right")) - 1
            o = self.cm.ops[k]
            return ("op", o, o.unravel(p - int(self.cm.starts[k])))
        if self.value[flat]:
            return ("value",)
        if self.const[flat]:
            return ("const", 0)
        return None

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def _probe_contributors(call, ops, out_codes, mixed, codes):
    """{(output#, flat): [(operand, coords)]} for mixed cells, by powers-of-two probe runs."""
    total = sum(o.n for o in ops)
    if total > MAX_PROBE_ELEMENTS:
        return {}, False
    contrib = {key: [] for key in mixed}
    zeros = [np.zeros(o.n) for o in ops]
    for k, o in enumerate(ops):
        for start in range(0, o.n, BATCH):
            stop = min(o.n, start + BATCH)
            fills = list(zeros)
            f = np.zeros(o.n)
            f[start:stop] = 2.0 ** np.arange(stop - start)
            fills[k] = f
            outs = _run_with(call, ops, fills, 0.0)
            for (oi, flat) in mixed:
                v = outs[oi].ravel()[flat]
                if v <= 0 or v != int(v):
                    continue
                bits = int(v)
                b = 0
                while bits:
                    if bits & 1 and b < stop - start:  # a bit beyond the batch: scaled (alpha), not a sum
                        contrib[(oi, flat)].append((o, o.unravel(start + b)))
                    bits >>= 1
                    b += 1
    # the coded run must equal the sum of the contributors' codes for a sum-like reduction
    ok = True
    for (oi, flat), lst in contrib.items():
        want = out_codes[oi].ravel()[flat]
        got = sum(codes.code(o, c) for o, c in lst)
        if not lst or got != want:
            ok = False
    if not ok and total <= MAX_ONEHOT_ELEMENTS:
        contrib = _onehot_contributors(call, ops, mixed)
    return contrib, ok


def _onehot_contributors(call, ops, mixed):
    """One element at a time, against two neutral fills (catches min/max/prod/mean reductions)."""
    contrib = {key: [] for key in mixed}
    for fill, hot in ((0.0, 1.0), (1.0, 0.0), (1.0, 2.0)):
        base_fills = [np.full(o.n, fill) for o in ops]
        base = _run_with(call, ops, base_fills, fill)
        for k, o in enumerate(ops):
            for e in range(o.n):
                fills = list(base_fills)
                f = np.full(o.n, fill)
                f[e] = hot
                fills[k] = f
                outs = _run_with(call, ops, fills, fill)
                for (oi, flat) in mixed:
                    if outs[oi].ravel()[flat] != base[oi].ravel()[flat]:
                        item = (o, o.unravel(e))
                        if all(x[0] is not o or x[1] != item[1] for x in contrib[(oi, flat)]):
                            contrib[(oi, flat)].append(item)
    return contrib


def _rule_for(call, ndim, dim):
    e = opspec.entry(call.info.name)
    rule = e.rule if e is not None else None
    if rule is None:
        return None
    try:
        params = inspect.signature(rule).parameters
        has_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        extra = {k: (list(v) if isinstance(v, tuple) else v) for k, v in call.values.items()
                 if k not in ("dim",) and not isinstance(v, Tensor)
                 and not (isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor))
                 and (has_kw or k in params)}
        r = rule(ndim, dim, **extra)
    except Exception:  # noqa: BLE001 - a rule that cannot describe this call: rows from the runs
        return None
    return r if isinstance(r, str) else None


def _wrap_dim(dim, in_ndim, out_ndim):
    if not isinstance(dim, int):
        return dim
    n = max(in_ndim, out_ndim, 1)
    return dim + n if dim < 0 else dim


def explain(call, result, *, at=None, max_rows=0) -> Explanation:
    """The explanation of one op call (see the module docstring)."""
    info = call.info
    ops, scalars = _data_operands(call)
    if not ops:
        raise CliError("--explain", f"{info.name} has no tensor operand to trace")
    total = sum(o.n for o in ops)
    if total > MAX_EXPLAIN_ELEMENTS:
        raise CliError("--explain", f"the operands have {total} elements; --explain traces at most "
                                    f"{MAX_EXPLAIN_ELEMENTS}")
    results = [result] if isinstance(result, Tensor) else list(result)
    real = [np.asarray(r._data) for r in results]
    multi = not isinstance(result, Tensor)

    cm = _Codes(ops)
    codes = _run_with(call, ops, cm.per_op, SENTINEL)
    negated = _run_with(call, ops, [-c for c in cm.per_op], SENTINEL)

    in_ndim = len(ops[0].shape)
    out_ndim = real[0].ndim if real else in_ndim
    dim = call.values.get("dim")
    wdim = _wrap_dim(dim, in_ndim, out_ndim)
    rule = _rule_for(call, in_ndim, wdim)
    parsed = parse_rule(rule) if rule else None

    if at is not None:
        shape = real[0].shape if not multi else None
        if multi:
            if not at or at[0] >= len(real) or at[0] < 0:
                raise CliError("--at", f"the op returns {len(real)} tensors; --at starts with the output number "
                                       f"(0..{len(real) - 1})")
            shape = real[at[0]].shape
            cell = at[1:]
        else:
            cell = at
        if len(cell) != len(shape) or any(not (-s <= c < s) for c, s in zip(cell, shape)):
            raise CliError("--at", f"{','.join(map(str, at))} is not an element of the output "
                                   f"(shape {list(shape)}{', output number first' if multi else ''})")
        cell = tuple(c % s for c, s in zip(cell, shape))
        at = ((at[0] if multi else 0), cell)

    args = ", ".join(f"{k}={v}" for k, v in call.scalars().items())
    dim_text = f" (dim={dim} is dim {wdim} of {max(in_ndim, out_ndim)})" if isinstance(dim, int) and wdim != dim else ""
    src_ops = [o for o in ops[1:] if o.name not in ("input", "self")] if info.kind == "scatter" else []
    by_src = bool(src_ops) and not multi
    what = "where each src element lands" if by_src else "where each output element comes from"
    header = f"{info.name}({args}){dim_text}: {what}"
    ex = Explanation(info.name, info.kind, header, rule, limit=max_rows or 0)

    # decode every output cell
    decoded = []          # per output: list of decodes (flat)
    mixed = []
    for oi, (c, n) in enumerate(zip(codes, negated)):
        d = cm.decode_all(c, n)
        decoded.append(d)
        mixed += [(oi, int(i)) for i in np.flatnonzero(d.mixed)]
    contrib, sumlike = ({}, True)
    if mixed:
        contrib, sumlike = _probe_contributors(call, ops, codes, mixed, cm)

    index_lookup = _lookup_fn(call)
    if by_src:
        _scatter_rows(ex, call, ops, src_ops, real[0], decoded[0], contrib, sumlike, parsed, index_lookup, at)
    else:
        _gather_rows(ex, ops, real, decoded, contrib, sumlike, parsed, index_lookup, at, multi, scalars)
    return ex


def _lookup_fn(call):

    data = data_names(call.info)

    def lookup(name, coords):
        v = call.values.get(name)
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor):
            v, coords = v[coords[0]], coords[1:]
        if not isinstance(v, Tensor):
            if name in data or name in OUT_NAMES:
                return Cell(name, coords)
            raise KeyError(name)
        a = v._data
        if len(coords) != a.ndim or any(not (0 <= c < s) for c, s in zip(coords, a.shape)):
            if name in data:
                return Cell(name, coords)
            raise IndexError(f"{name}{_cells(coords)} out of range")
        if name in data:
            return Cell(name, coords)
        return int(a[tuple(coords)])
    return lookup


def _source_text(src, scalars):
    if src[0] == "op":
        return src[1].label + _cells(src[2])
    if src[0] == "value":
        return next(iter(scalars), "value")
    return "constant"


def _source_json(src):
    if src[0] == "op":
        return {src[1].label: list(src[2])}
    if src[0] == "value":
        return {"value": None}
    return {"constant": src[1]}


def _gather_rows(ex, ops, real, decoded, contrib, sumlike, parsed, lookup, at, multi, scalars):
    pat = pattern(parsed[0]) if parsed is not None else None
    mismatches = 0
    for oi, (arr, dec) in enumerate(zip(real, decoded)):
        shape = arr.shape
        if at is not None and at[0] != oi:
            continue
        flats = [int(np.ravel_multi_index(at[1], shape)) if shape else 0] if at is not None else range(arr.size)
        for flat in flats:
            if ex.full():
                ex.total += len(flats) - flats.index(flat) if isinstance(flats, list) else flats.stop - flat
                break
            coords = tuple(int(c) for c in np.unravel_index(flat, shape)) if shape else ()
            val = _py(arr.ravel()[flat])
            outname = f"out{oi}" if multi else "out"
            row = {"out": list(coords)}
            if multi:
                row["output"] = oi
            src = dec[flat]
            parts = [outname + _cells(coords)]
            env = bind(pat, coords, oi if multi else None)
            if env is not None:
                ev = Eval(env, lookup)
                try:
                    cell = ev.value(parsed[1])
                except Exception:  # noqa: BLE001 - the formula does not cover this cell (e.g. a fill)
                    cell = None
                if isinstance(cell, Cell):
                    parts.append(ev.text(parsed[1]))
                    idx = index_lookups(parsed[1], ev, {})
                    if idx:
                        row["index_cells"] = idx
                    if src is not None and src[0] == "op":
                        want = tuple(([src[1].index] if src[1].index is not None else []) + list(src[2]))
                        if cell.name not in (src[1].label.split("[")[0], src[1].name) or cell.coords != want:
                            mismatches += 1
            if src is None:
                lst = contrib.get((oi, flat), [])
                names = [o.label + _cells(c) for o, c in lst]
                row["from"] = {"mix": [{o.label: list(c)} for o, c in lst]}
                joined = (" + " if sumlike else ", ").join(names) if names else "?"
                parts.append(joined if sumlike else f"reduce({joined})")
            else:
                row["from"] = _source_json(src)
                t = _source_text(src, scalars)
                if t not in parts:
                    parts.append(t)
            row["value"] = val
            if "index_cells" in row:
                idx = row.pop("index_cells")
                row["from"].update({k: v for k, v in idx.items() if k not in row["from"]})
            parts.append(_fmt(val))
            ex.add(row, [parts[0]] + [x for p in parts[1:] for x in ("=", p)])
    if mismatches:
        ex.notes.append(f"note: the registered formula disagrees with the run for {mismatches} element(s); "
                        "the run is what the op does")
        ex.extra["rule_mismatch"] = mismatches


def _fmt(v):
    return fmt_value(v)


@dataclass
class _Landing:
    """Where a scatter-like run put each src element (from the decoded output codes)."""

    landing: dict = field(default_factory=dict)    # (operand, coords) -> [out coords]
    writers: dict = field(default_factory=dict)    # out flat -> [(operand, coords)]
    winner: dict = field(default_factory=dict)     # out flat -> (operand, coords) shown by the coded run
    untouched: list = field(default_factory=list)  # out flats that kept input
    include_input: dict = field(default_factory=dict)   # out flat -> input also accumulated there
    lost: dict = field(default_factory=dict)       # (operand, coords) -> out coords the formula names


def _landings(ops, dec, contrib, shape) -> _Landing:
    r = _Landing()
    for flat, d in enumerate(dec):
        if d is None:
            lst = [x for x in contrib.get((0, flat), [])]
            r.include_input[flat] = any(o is ops[0] for o, _ in lst)
            srcs = [(o, c) for o, c in lst if o is not ops[0]]
        elif d[0] == "op" and d[1] is ops[0]:
            r.untouched.append(flat)
            continue
        elif d[0] == "op":
            srcs = [(d[1], d[2])]
            r.winner[flat] = srcs[0]
        else:
            srcs = []
            r.writers.setdefault(flat, [])
        for s in srcs:
            oc = tuple(int(c) for c in np.unravel_index(flat, shape)) if shape else ()
            r.landing.setdefault((s[0], s[1]), []).append(oc)
            r.writers.setdefault(flat, []).append(s)
    return r


def _find_lost(r: _Landing, src_ops, spat, parsed, lookup, shape):
    """src elements the run does not show anywhere: ask the formula where they were headed."""
    for o in src_ops:
        for e in range(o.n):
            c = o.unravel(e)
            env = bind(spat, c)
            if (o, c) in r.landing or env is None:
                continue
            ev = Eval(env, lookup)
            try:
                cell = ev.value(parsed[0])
            except Exception:  # noqa: BLE001 - e.g. outside index's shape: unused
                continue
            if isinstance(cell, Cell) and len(cell.coords) == len(shape) and all(
                    0 <= x < s for x, s in zip(cell.coords, shape)):
                r.lost[(o, c)] = cell.coords
                flat = int(np.ravel_multi_index(cell.coords, shape)) if shape else 0
                r.writers.setdefault(flat, []).append((o, c))


def _collisions(r: _Landing, ops, dec, sumlike, shape):
    """([collision JSON], {out coords: (writers, winner)}) for cells written by several src elements."""
    collisions, coll_ws = [], {}
    for flat, ws in sorted(r.writers.items()):
        if len(ws) < 2:
            continue
        ws = sorted(ws, key=lambda w: (ops.index(w[0]), w[1]))
        oc = [int(x) for x in np.unravel_index(flat, shape)] if shape else []
        accumulate = dec[flat] is None  # several sources in one value; else one wins (an overwrite race)
        entry = {"out": oc, "src": [[*c] for _, c in ws],
                 "mode": ("accumulate" if sumlike else "reduce") if accumulate else "nondeterministic"}
        if not accumulate and flat in r.winner:
            entry["core_winner"] = list(r.winner[flat][1])
        if any(o.label != "src" for o, _ in ws):
            entry["operands"] = [o.label for o, _ in ws]
        collisions.append(entry)
        coll_ws[tuple(oc)] = (ws, r.winner.get(flat))
    return collisions, coll_ws


def _row_formula(row, spat, c, parsed, lookup):
    """The formula text of src element c's destination (and its index lookups into row), or None."""
    env = bind(spat, c)
    if env is None:
        return None
    ev = Eval(env, lookup)
    try:
        ok = isinstance(ev.value(parsed[0]), Cell)
    except Exception:  # noqa: BLE001
        ok = False
    if not ok:
        return None
    idx = index_lookups(parsed[0], ev, {})
    if idx:
        row["from"] = idx
    return ev.text(parsed[0])


def _collision_text(row, line, coll, coll_ws, o, c, dc):
    ws, won = coll_ws[tuple(dc)]
    rest = [(oo, cc) for oo, cc in ws if not (oo is o and cc == c)]
    others = [oo.label + _cells(cc) for oo, cc in rest]
    if coll["mode"] == "nondeterministic":
        kept = won is not None and won[0] is o and won[1] == c
        row["collision"] = {"with": [list(cc) for _, cc in rest], "mode": "nondeterministic", "core_kept": kept}
        line.append(f"collides with {', '.join(others)}")
    else:
        row["collision"] = {"with": [list(cc) for _, cc in rest], "mode": coll["mode"]}
        line.append(f"{'added to' if coll['mode'] == 'accumulate' else 'combined with'} {', '.join(others)}")


def _src_rows(ex, r: _Landing, src_ops, spat, parsed, lookup, coll_by_cell, coll_ws, target):
    """One row per (src element, destination): 'src[i] = v -> out[index[i]] = out[j]' (+ collisions)."""
    for o in src_ops:
        srcvals = np.asarray(o.tensor._data).ravel()
        for e in range(o.n):
            c = o.unravel(e)
            dests = r.landing.get((o, c))
            lost_to = r.lost.get((o, c))
            cells = dests or ([lost_to] if lost_to is not None else [])
            if target is not None and tuple(target) not in [tuple(x) for x in cells]:
                continue
            sval = _py(srcvals[e])
            srctext = o.label + _cells(c)
            if not cells:
                row = {"src": list(c), "to": None, "value": sval}
                if o.label != "src":
                    row["operand"] = o.label
                ex.add(row, [f"{srctext} = {_fmt(sval)}", "->", "(not written: unused)"])
                continue
            for dc in cells:
                row = {"src": list(c), "to": list(dc), "value": sval}
                if o.label != "src":
                    row["operand"] = o.label
                sym = _row_formula(row, spat, c, parsed, lookup)
                dest = "out" + _cells(dc)
                line = [f"{srctext} = {_fmt(sval)}", "->"]
                line += [sym, "=", dest] if sym and sym != dest else [dest]
                coll = coll_by_cell.get(tuple(dc))
                if coll is not None:
                    _collision_text(row, line, coll, coll_ws, o, c, dc)
                ex.add(row, line)


def _collision_notes(ex, r: _Landing, collisions, coll_ws, outflat, shape, target):
    for coll in collisions:
        dc = tuple(coll["out"])
        if target is not None and dc != tuple(target):
            continue
        flat = int(np.ravel_multi_index(dc, shape)) if shape else 0
        if coll["mode"] == "nondeterministic":
            names = [oo.label + _cells(cc) for oo, cc in coll_ws[dc][0]]
            won = coll_ws[dc][1]
            kept = won[0].label + _cells(won[1]) if won else "?"
            ex.notes.append(f"out{_cells(dc)} = {' or '.join(names)} (PyTorch: undefined; core kept {kept}) "
                            f"= {_fmt(_py(outflat[flat]))}")
        else:
            terms = ([f"input{_cells(dc)}"] if r.include_input.get(flat) else []) + [
                oo.label + _cells(cc) for oo, cc in coll_ws[dc][0]]
            op = " + " if coll["mode"] == "accumulate" else ", "
            expr = op.join(terms) if coll["mode"] == "accumulate" else f"combine({op.join(terms)})"
            ex.notes.append(f"out{_cells(dc)} = {expr} = {_fmt(_py(outflat[flat]))}")


def _untouched_rows(ex, r: _Landing, outflat, shape, target):
    unt = [[int(x) for x in np.unravel_index(f, shape)] if shape else [] for f in r.untouched]
    if target is not None:
        unt = [u for u in unt if tuple(u) == tuple(target)]
        if unt:
            v = _py(outflat[int(np.ravel_multi_index(target, shape))])
            ex.add({"out": list(target), "from": {"input": list(target)}, "value": v},
                   [f"out{_cells(target)}", "=", f"input{_cells(target)}", "=", _fmt(v), "(not written)"])
    ex.extra["untouched"] = unt
    if unt and target is None:
        shown = ", ".join(f"out{_cells(u)}" for u in unt[:8]) + (f", ... ({len(unt)} cells)" if len(unt) > 8 else "")
        ex.notes.append(f"not written (keep input): {shown}")


def _scatter_rows(ex, call, ops, src_ops, out, dec, contrib, sumlike, parsed, lookup, at):
    """Rows per src element: where it lands; collisions and untouched cells after."""
    shape = out.shape
    r = _landings(ops, dec, contrib, shape)
    sref = find_ref(parsed[1], {o.name for o in src_ops}) if parsed is not None else None
    spat = pattern(sref) if sref is not None else None
    _find_lost(r, src_ops, spat, parsed, lookup, shape)
    collisions, coll_ws = _collisions(r, ops, dec, sumlike, shape)
    coll_by_cell = {tuple(e["out"]): e for e in collisions}
    target = at[1] if at is not None else None
    _src_rows(ex, r, src_ops, spat, parsed, lookup, coll_by_cell, coll_ws, target)
    outflat = out.ravel()
    _collision_notes(ex, r, collisions, coll_ws, outflat, shape, target)
    ex.extra["collisions"] = collisions
    _untouched_rows(ex, r, outflat, shape, target)
