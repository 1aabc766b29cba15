"""Memory reports: what the autograd graph keeps alive under grad, no_grad, inference_mode.

PyTorch has no single API for this; its figure is what ``torch.autograd.graph.saved_tensors_hooks``
sees (every tensor an op saves for backward, deduplicated by storage). This module computes the
same figure for core by walking the graph, and measures whole runs with ``tracemalloc`` (NumPy
reports its data buffers to it):

* ``graph_inventory(result)`` walks from ``grad_fn`` through ``next_functions`` and counts nodes and
  saved tensors. Saved tensors are deduplicated by the NumPy buffer that owns their data (a view's
  ``.base`` chain is followed to the owner; each owner's ``nbytes`` counts once). Each buffer is
  classified as ``parameter`` (data of a leaf that requires grad), ``held`` (a tensor the caller still
  references: inputs, module buffers, the results themselves) or ``graph`` (alive *only* because the
  graph saved it: intermediates, saved outputs, index tensors, inputs nobody else holds). Nodes whose
  saved tensors were released (``backward`` without ``retain_graph``) count no saved tensors.
* ``measure(fn, mode=...)`` runs ``fn`` for some batches under one mode and reports graph, results,
  retained and peak traced bytes, wall time and, under grad, saved bytes per ``nn`` module.
* ``compare(fn, modes=...)`` runs several modes and gives grad / no_grad ratios.
"""
from __future__ import annotations

import contextlib
import gc
import sys
import time
import tracemalloc
import weakref
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from .autograd import grad_mode
from .autograd import backward as autograd_backward
from .autograd import node as _node
from .autograd.node import AccumulateGrad
from .nn import Module
from .tensor import Tensor

MODES = ("grad", "no_grad", "inference_mode", "detach")
NO_MODULE = "(no module)"

__all__ = ["MODES", "SavedBuffer", "NodeInfo", "GraphInventory", "ModeReport", "MemoryReport",
           "graph_inventory", "measure", "compare", "buffer_owner", "format_bytes"]


# -- data classes -----------------------------------------------------------------------------

class _Dict:
    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SavedBuffer(_Dict):
    """One distinct buffer saved for backward (all saved views of it counted once)."""

    node: str            # first node (in creation order) that saved it
    shape: list          # shape of the first saved tensor using the buffer
    dtype: str
    nbytes: int          # bytes of the owning buffer
    kind: str            # 'graph' | 'parameter' | 'held'
    is_output: bool      # saved as the node's own output
    layer: str | None = None


@dataclass
class NodeInfo(_Dict):
    """One graph node: saved records, and bytes of the buffers first saved by it."""

    name: str
    saved_tensors: int
    saved_bytes: int
    freed: bool = False
    layer: str | None = None


@dataclass
class GraphInventory(_Dict):
    """What a result's graph holds. ``saved_bytes = graph_bytes + parameter_bytes + held_bytes``."""

    nodes: int = 0               # op nodes reachable from the results (AccumulateGrad excluded)
    leaves: int = 0              # AccumulateGrad nodes (leaves that require grad)
    freed_nodes: int = 0         # nodes whose saved tensors were released by backward
    saved_records: int = 0       # saved-tensor slots before deduplication
    saved_tensors: int = 0       # distinct buffers saved
    saved_bytes: int = 0
    graph_bytes: int = 0         # alive only because of the graph
    parameter_bytes: int = 0     # leaves that require grad (parameters)
    held_bytes: int = 0          # tensors the caller still references (inputs, buffers, results)
    ctx_attr_tensors: int = 0    # tensors kept as node attributes outside save_for_backward
    ctx_attr_bytes: int = 0      # their buffers, when not also saved
    per_node: list = field(default_factory=list)
    buffers: list = field(default_factory=list)

    def per_layer(self) -> dict:
        """Saved bytes grouped by the layer recorded on each node (``measure`` fills ``layer``)."""
        out: dict = {}
        for n in self.per_node:
            d = out.setdefault(n.layer or NO_MODULE, {"nodes": 0, "saved_tensors": 0, "saved_bytes": 0})
            d["nodes"] += 1
            d["saved_bytes"] += n.saved_bytes
        for b in self.buffers:
            out.setdefault(b.layer or NO_MODULE, {"nodes": 0, "saved_tensors": 0, "saved_bytes": 0})
            out[b.layer or NO_MODULE]["saved_tensors"] += 1
        return out


@dataclass
class ModeReport(_Dict):
    """One mode's run. Bytes are exact buffer sizes except the ``*traced*``/peak figures, which
    come from tracemalloc and include Python objects."""

    mode: str
    batches: int
    keep_outputs: bool
    backward: bool               # backward actually ran (skipped when outputs need no grad)
    graph_nodes: int
    freed_nodes: int
    saved_tensors: int
    saved_bytes: int
    graph_bytes: int
    parameter_bytes: int
    held_bytes: int
    result_bytes: int            # distinct buffers of the kept results
    retained_bytes: int          # traced bytes still allocated at the end (graph + results + grads)
    peak_bytes: int              # traced peak above the start of the run
    transient_bytes: int         # peak_bytes - retained_bytes
    wall_s: float
    per_layer: dict = field(default_factory=dict)
    per_batch_bytes: list = field(default_factory=list)   # traced bytes after each batch
    note: str = ""


@dataclass
class MemoryReport(_Dict):
    modes: dict
    ratios: dict

    def to_dict(self) -> dict:
        return {"modes": {k: v.to_dict() for k, v in self.modes.items()}, "ratios": dict(self.ratios)}


# -- buffers ----------------------------------------------------------------------------------

def buffer_owner(a: np.ndarray) -> np.ndarray:
    """The ndarray owning ``a``'s memory: follow ``.base`` (also through as_strided's wrapper)."""
    while True:
        b = a.base
        if isinstance(b, np.ndarray):
            a = b
        elif b is not None and isinstance(getattr(b, "base", None), np.ndarray):
            a = b.base
        else:
            return a


def _nbytes(owner: np.ndarray) -> int:
    return int(owner.nbytes)


def format_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def _tensors_in(obj, depth=0) -> list:
    if isinstance(obj, Tensor):
        return [obj]
    if depth < 3 and isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors_in(o, depth + 1)]
    if depth < 3 and isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors_in(o, depth + 1)]
    return []


# node attributes that are graph plumbing, not tensors kept by the op
_PLUMBING = frozenset({"_saved", "next_functions", "_next", "_input_meta", "_output_meta", "_metadata",
                       "_tensor_hooks", "_retain_hooks", "_post_hooks", "_pre_hooks", "variable",
                       "needs_input_grad", "_positions", "_tensor_positions", "_seq", "_freed"})


def _walk(roots):
    """Op nodes (creation order) and AccumulateGrad nodes reachable from the roots' grad_fn."""
    seen = set()
    stack = []
    for t in roots:
        if t.grad_fn is not None and id(t.grad_fn) not in seen:
            seen.add(id(t.grad_fn))
            stack.append(t.grad_fn)
    ops, leaves = [], []
    while stack:
        n = stack.pop()
        if isinstance(n, AccumulateGrad):
            leaves.append(n)
        else:
            ops.append(n)
        for fn, _ in n.next_functions:
            if fn is not None and id(fn) not in seen:
                seen.add(id(fn))
                stack.append(fn)
    ops.sort(key=lambda n: getattr(n, "_seq", 0))
    return ops, leaves


def graph_inventory(tensors, *, held: Iterable = (), params: Iterable = (), layers=None) -> GraphInventory:
    """Inventory of the graph behind ``tensors`` (a Tensor or a list/tuple/dict of Tensors).

    ``held``: extra tensors/arrays the caller keeps (their buffers count as ``held``); the results
    themselves always do. ``params``: extra tensors to count as parameters (e.g. a module's).
    ``layers``: optional mapping node -> layer name (``measure`` records it while modules run).
    """
    # One piece: sys.getrefcount below counts references held by this frame's locals, so the
    # bookkeeping of which tensors the caller still holds must stay in one frame we control.
    roots = _tensors_in(tensors)
    ops, leaves = _walk(roots)
    inv = GraphInventory(nodes=len(ops), leaves=len(leaves))

    owners: dict = {}                    # id(owner) -> owner (kept alive so ids stay unique)

    def key(arr):
        o = buffer_owner(arr)
        owners.setdefault(id(o), o)
        return id(o)

    param_keys = {key(a.variable._data) for a in leaves}
    param_keys.update(key(t._data if isinstance(t, Tensor) else np.asarray(t)) for t in params)
    held_keys = {key(t._data) for t in roots}
    held_keys.update(key(t._data if isinstance(t, Tensor) else np.asarray(t)) for t in held)

    # References from graph objects to each tensor object, to tell tensors the caller still holds
    # from tensors only the graph keeps. No local name may hold one of these tensors while
    # sys.getrefcount runs (entries are reached through `internal`).
    internal: dict = {}                  # id(T) -> [T, refs from graph objects]

    def note(t, n):
        e = internal.get(id(t))
        if e is None:
            internal[id(t)] = [t, n]
        else:
            e[1] += n

    records = []                         # (node, SavedTensor)
    attr_ids = set()                     # ids of tensors kept on node attributes, not saved
    for node in ops:
        freed = bool(node._freed)
        inv.freed_nodes += freed
        items = [] if freed else node._saved_items()
        for s in items:
            records.append((node, s))
            if s.tensor is not None:
                note(s.tensor, 1)
        for name, v in vars(node).items():
            if name in _PLUMBING:
                continue
            # each appearance is one reference, held by the node or by a container it owns
            # (e.g. a custom Function node's _all_inputs)
            for t in _tensors_in(v):
                note(t, 1)
                attr_ids.add(id(t))
            t = None
        v = None
    for a in leaves:
        note(a.variable, 1)
    for k in list(internal):
        b = internal[k][0]._base
        if b is not None:
            note(b, 1)
        b = None

    def external_refs(k):
        e = internal[k]
        # getrefcount: +1 its argument, +1 the entry list `e`
        return sys.getrefcount(e[0]) - 2 - e[1]

    ext_keys = set()
    for k in list(internal):
        e = internal[k]
        dk = key(e[0]._data)
        if e[0].grad_fn is None and e[0]._requires_grad:
            param_keys.add(dk)
        elif external_refs(k) > 0:
            ext_keys.add(dk)
            if e[0]._base is not None:
                ext_keys.add(key(e[0]._base._data))
    attr_keys = {key(internal[i][0]._data) for i in attr_ids}
    e = None

    def kind(k):
        if k in param_keys:
            return "parameter"
        if k in held_keys or k in ext_keys:
            return "held"
        return "graph"

    seen_keys = _tally(inv, ops, records, layers if layers is not None else {}, key, owners, kind)
    inv.ctx_attr_tensors = len(attr_ids)
    inv.ctx_attr_bytes = sum(_nbytes(owners[k]) for k in attr_keys if k not in seen_keys and kind(k) == "graph")
    return inv


def _tally(inv, ops, records, layer_of, key, owners, kind):
    """Per-node and per-kind byte counts of the saved records, each buffer counted once; returns the
    buffers seen ({key: SavedBuffer})."""
    seen_keys = {}
    per_node = {}
    for node in ops:
        per_node[id(node)] = NodeInfo(node.name(), 0, 0, bool(node._freed), _layer(layer_of, node))
    for node, s in records:
        info = per_node[id(node)]
        info.saved_tensors += 1
        inv.saved_records += 1
        k = key(s.data)
        if k in seen_keys:
            continue
        nb = _nbytes(owners[k])
        kd = kind(k)
        seen_keys[k] = SavedBuffer(node.name(), list(s.data.shape), str(s.data.dtype), nb, kd,
                                   bool(s.is_output), info.layer)
        info.saved_bytes += nb
        inv.saved_bytes += nb
        if kd == "graph":
            inv.graph_bytes += nb
        elif kd == "parameter":
            inv.parameter_bytes += nb
        else:
            inv.held_bytes += nb
    inv.saved_tensors = len(seen_keys)
    inv.buffers = list(seen_keys.values())
    inv.per_node = [per_node[id(n)] for n in ops]
    return seen_keys


def _layer(layer_of, node):
    try:
        return layer_of.get(node)
    except TypeError:
        return None


def result_bytes(tensors) -> int:
    """Bytes of the distinct buffers behind ``tensors``."""
    seen = {}
    for t in _tensors_in(tensors):
        o = buffer_owner(t._data)
        seen[id(o)] = o
    return sum(_nbytes(o) for o in seen.values())


# -- module attribution -----------------------------------------------------------------------

class _ModuleTracker:
    """While active, attributes every node created inside an nn.Module call to the innermost
    module (by wrapping ``Module.__call__``; restored on exit)."""

    def __init__(self, root=None):
        self.root = root
        self.layer_of = weakref.WeakKeyDictionary()
        self.names: dict = {}
        self.types: dict = {}
        self._counts: dict = {}
        self._orig = None

    def _name(self, module):
        n = self.names.get(id(module))
        if n is None:
            t = type(module).__name__
            k = self._counts.get(t, 0)
            self._counts[t] = k + 1
            n = self.names[id(module)] = t if k == 0 else f"{t}#{k}"
            self.types[n] = t
        return n

    def __enter__(self):
        if self.root is not None and hasattr(self.root, "named_modules"):
            for name, m in self.root.named_modules():
                label = name or type(m).__name__
                self.names[id(m)] = label
                self.types[label] = type(m).__name__
        orig = Module.__call__
        tracker = self

        def __call__(module, *args, **kwargs):
            start = next(_node._seq)
            out = orig(module, *args, **kwargs)
            if grad_mode.STATE.grad_enabled:
                tracker._attribute(out, start, tracker._name(module))
            return out

        self._module, self._orig = Module, orig
        Module.__call__ = __call__
        return self

    def _attribute(self, out, start, name):
        stack = [t.grad_fn for t in _tensors_in(out) if t.grad_fn is not None]
        seen = set()
        while stack:
            n = stack.pop()
            if id(n) in seen or isinstance(n, AccumulateGrad) or getattr(n, "_seq", -1) <= start:
                continue
            seen.add(id(n))
            if n not in self.layer_of:
                self.layer_of[n] = name
            stack.extend(fn for fn, _ in n.next_functions if fn is not None)

    def __exit__(self, *exc):
        if self._orig is not None:
            self._module.__call__ = self._orig
            self._orig = None


# -- runs ------------------------------------------------------------------------------------

def _mode_context(mode):
    if mode in ("grad", "detach"):
        return grad_mode.enable_grad()
    if mode == "no_grad":
        return grad_mode.no_grad()
    if mode == "inference_mode":
        return grad_mode.inference_mode()
    raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")


def _batch_args(inputs, i):
    if inputs is None:
        return ()
    return (inputs(i) if callable(inputs) else inputs[i],)


def _backward(out) -> bool:
    ts = [t for t in _tensors_in(out) if t._requires_grad]
    if not ts:
        return False
    autograd_backward([t.sum() for t in ts])
    return True


@contextlib.contextmanager
def _traced():
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        yield
    finally:
        if started:
            tracemalloc.stop()


def _accounted(module, inputs, held):
    """(parameters, held tensors): the module's parameters; its buffers, the inputs and `held`."""
    held = list(held)
    params = []
    if module is not None:
        if hasattr(module, "parameters"):
            params.extend(module.parameters())
        if hasattr(module, "buffers"):
            held.extend(module.buffers())
    if inputs is not None and not callable(inputs):
        held.extend(_tensors_in(list(inputs)))
    return params, held


def _warm(fn, inputs):
    args = _batch_args(inputs, 0)
    with grad_mode.no_grad():
        fn(*args)


def measure(fn: Callable, *, mode: str = "grad", batches: int | None = None, inputs=None,
            keep_outputs: bool = False, backward: bool = False, module=None, held: Iterable = (),
            progress: Callable[[int], Any] | None = None, warmup: int = 0,
            max_retained: int | None = None) -> ModeReport:
    """Run ``fn`` for ``batches`` batches under ``mode`` and report what stays alive.

    ``fn()`` is called per batch, or ``fn(inputs[i])`` / ``fn(inputs(i))`` when ``inputs`` (a
    sequence or a function of the batch index) is given; ``batches`` defaults to ``len(inputs)``
    or 1. Modes: ``grad``, ``no_grad``, ``inference_mode``, and ``detach`` (grad mode, each result
    detached before it is kept: the feature-bank fix). ``keep_outputs`` keeps every batch's result
    (a feature bank); otherwise only the last one stays, as ``_ = model(x)`` in a loop does.
    ``backward`` runs ``out.sum().backward()`` on each result that requires grad.
    ``module`` (the model called by ``fn``) names the layers in ``per_layer``; its parameters count
    as parameters, its buffers as held. ``held``: other tensors the caller keeps (inputs).
    ``warmup`` untimed, untraced calls run first under no_grad (with batch 0's input), so that
    one-time costs (BLAS threads, page faults, lazy imports) stay out of the figures.
    ``max_retained``: stop with RuntimeError when more traced bytes than this stay allocated after
    a batch (a feature bank that outgrows the machine).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if batches is None:
        batches = len(inputs) if inputs is not None and not callable(inputs) else 1
    if batches < 1:
        raise ValueError(f"batches must be >= 1, got {batches}")
    params, held = _accounted(module, inputs, held)
    for _ in range(warmup):
        _warm(fn, inputs)
    kept, per_batch, ran_backward = [], [], False
    tracker = _ModuleTracker(module) if mode == "grad" else contextlib.nullcontext()
    gc.collect(1)   # young garbage only: a full collection costs ~0.25 s with torch imported
    with _traced():
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        t0 = time.perf_counter()
        with tracker:
            for i in range(batches):
                args = _batch_args(inputs, i)     # made outside the mode: ordinary tensors
                with _mode_context(mode):
                    out = fn(*args)
                del args
                if backward:
                    ran_backward |= _backward(out)
                if mode == "detach":
                    out = _detach(out)
                if keep_outputs:
                    kept.append(out)
                else:
                    kept = [out]
                del out
                per_batch.append(tracemalloc.get_traced_memory()[0] - base)
                if max_retained is not None and per_batch[-1] > max_retained:
                    kept.clear()
                    raise RuntimeError(f"memory: stopped after batch {i + 1} of {batches}: "
                                       f"{per_batch[-1]} bytes stay allocated, more than the limit of "
                                       f"{max_retained} bytes")
                if progress is not None:
                    progress(i + 1)
        wall = time.perf_counter() - t0
        gc.collect(1)
        current, peak = tracemalloc.get_traced_memory()
    layers = tracker.layer_of if isinstance(tracker, _ModuleTracker) else None
    inv = graph_inventory(kept, held=held, params=params, layers=layers)
    retained = max(0, current - base)
    peak_b = max(0, peak - base)
    note = ""
    if backward and not ran_backward:
        note = "backward skipped: results do not require grad"
    per_layer = {}
    if mode == "grad" and isinstance(tracker, _ModuleTracker):
        per_layer = _per_layer(inv, tracker)
    rep = ModeReport(mode=mode, batches=batches, keep_outputs=keep_outputs, backward=ran_backward,
                     graph_nodes=inv.nodes, freed_nodes=inv.freed_nodes, saved_tensors=inv.saved_tensors,
                     saved_bytes=inv.saved_bytes, graph_bytes=inv.graph_bytes,
                     parameter_bytes=inv.parameter_bytes, held_bytes=inv.held_bytes,
                     result_bytes=result_bytes(kept), retained_bytes=retained, peak_bytes=peak_b,
                     transient_bytes=max(0, peak_b - retained), wall_s=wall, per_layer=per_layer,
                     per_batch_bytes=per_batch, note=note)
    return rep


def _per_layer(inv: GraphInventory, tracker: _ModuleTracker) -> dict:
    out = {}
    for label, d in inv.per_layer().items():
        d = dict(d)
        d["type"] = tracker.types.get(label, "")
        out[label] = d
    # keep the model's order (named_modules order), then anything else
    order = {n: i for i, n in enumerate(tracker.names.values())}
    return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], len(order))))


def _detach(out):
    if isinstance(out, Tensor):
        return out.detach()
    if isinstance(out, (list, tuple)):
        return type(out)(_detach(o) for o in out) if type(out) in (list, tuple) else [_detach(o) for o in out]
    if isinstance(out, dict):
        return {k: _detach(v) for k, v in out.items()}
    return out


def _ratio(a, b):
    if not b:
        return None
    return a / b


def compare(fn: Callable, *, modes: Iterable[str] = ("grad", "no_grad", "inference_mode"),
            **kwargs) -> MemoryReport:
    """``measure`` under each mode (same arguments); ``ratios`` are grad / no_grad for
    ``retained_bytes``, ``peak_bytes``, ``saved_bytes`` and ``wall_s`` (None when a figure
    is missing or its denominator is 0)."""
    reports = {}
    for m in modes:
        reports[m] = measure(fn, mode=m, **kwargs)
    ratios = {}
    g, n = reports.get("grad"), reports.get("no_grad")
    for k in ("retained_bytes", "peak_bytes", "saved_bytes", "wall_s"):
        ratios[k] = _ratio(getattr(g, k), getattr(n, k)) if g is not None and n is not None else None
    return MemoryReport(reports, ratios)
