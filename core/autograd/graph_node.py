"""The graph node base (PyTorch's torch.autograd.graph.Node): edges to the next nodes, input/output metas,
hook registration, saved tensors, and running a node's backward with the one broadcasting reduction
(`sum_to_shape`) and dtype cast applied to what it returns."""
from __future__ import annotations

import warnings

import numpy as np

from .._sum_order import _LEAD_PLANS, sum_leading, sum_planned, torch_sum
from .._warn import _ERRSTATE, _IGNORE
from .._grad_mode import STATE
from ..tensor import Tensor
from .hooks import RemovableHandle
from .saved import FREED_MSG, HOOKED_SAVE, INFERENCE_SAVE_MSG, SAVED_TENSORS_HOOKS, SavedTensor


def _intern(key):
    """One shared tuple per distinct (shape, dtype) meta (and tuple of metas): nodes keep no tuples of their
    own for it, so a recorded graph leaves fewer objects for the cyclic GC to walk."""
    m = _INTERNED.get(key)
    if m is None:
        if len(_INTERNED) > 16384:
            _INTERNED.clear()
        m = _INTERNED[key] = key
    return m


_INTERNED = {}
_ONE = {}
_NONES = {}     # n -> (None,) * n


def _meta1(d):
    """The interned ((shape, dtype),) meta of one array: one dict lookup instead of two _intern calls."""
    key = (d.shape, d.dtype)
    m = _ONE.get(key)
    if m is None:
        if len(_ONE) > 16384:
            _ONE.clear()
        m = _ONE[key] = _intern((_intern(key),))
    return m


class Node:
    """Base of every graph node (PyTorch's torch.autograd.graph.Node).

    The edges (torch's next_edges_: one (next node, its input number) per input) are stored flat in `_next` =
    (fn0, nr0, fn1, nr1, ...): one tuple per node instead of one per edge plus one, so a recorded graph leaves
    fewer objects for the cyclic GC to walk. `next_functions` is PyTorch's ((fn, nr), ...) view."""

    _next = ()
    _saved = None
    _freed = False
    _tensor_hooks = None      # {output_nr: {handle_id: fn}}
    _retain_hooks = None      # {output_nr: weakref to tensor}
    _post_hooks = None
    _pre_hooks = None
    _input_meta = ()
    _materialize = True
    _hooked = False           # set once any hook (tensor, pre, post, retain_grad) is registered on the node

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self):
        n = self._next
        return tuple(zip(n[::2], n[1::2]))

    @next_functions.setter
    def next_functions(self, edges):
        self._next = tuple(x for e in edges for x in e)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self):
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self._metadata = {}
        return d

    def register_hook(self, fn):
        """Post-hook fn(grad_inputs, grad_outputs), may return replacement grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        self._hooked = True
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """Pre-hook fn(grad_outputs), may return replacement grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._hooked = True
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _add_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._hooked = True
        store = self._tensor_hooks.setdefault(output_nr, {})
        h = RemovableHandle(store)
        store[h.id] = fn
        return h

    # -- saved tensors ----------------------------------------------------------
    def save_for_backward(self, *tensors):
        saved = []
        nothing = True
        for t in tensors:
            if t is None:
                saved.append(None)
                continue
            if not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{len(saved)} is of type {type(t).__name__}")
            if t._inference and not STATE.inference:
                raise RuntimeError(INFERENCE_SAVE_MSG)
            saved.append(HOOKED_SAVE[0](t) if SAVED_TENSORS_HOOKS else SavedTensor(t))
            nothing = False
        # nothing saved (e.g. x * 2.0 saves neither operand): one shared tuple of Nones, not one more per node
        self._saved = _NONES.setdefault(len(saved), tuple(saved)) if nothing else tuple(saved)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(FREED_MSG)
        saved = self._saved
        if saved is None:
            return ()
        if len(saved) == 2:     # the common binary op, without a generator
            a, b = saved
            return (None if a is None else a.unpack(self)), (None if b is None else b.unpack(self))
        return tuple(None if s is None else s.unpack(self) for s in saved)

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def _release(self):
        if self._saved is not None:
            self._saved = None
            self._freed = True

    def _saved_items(self):
        """(SavedTensor) records this node holds, for memory accounting."""
        return [s for s in (self._saved or ()) if s is not None]

    # -- backward ----------------------------------------------------------------
    # Optional NumPy version of backward for hot ops, used when no graph of the gradient is
    # wanted (create_graph=False); it must compute exactly what `backward` computes.
    backward_np = None

    def _run_backward(self, grads):
        """Gradients w.r.t. this node's inputs. Without create_graph the engine may pass (and, from
        backward_np, get back) bare NumPy arrays, sparing a Tensor per edge."""
        if self._materialize and (grads[0] is None if len(grads) == 1 else any(g is None for g in grads)):
            grads = [g if g is not None else _zeros_for(m) for g, m in zip(grads, self._output_meta)]
        if self.backward_np is not None and not STATE.grad_enabled:
            return self._run_backward_np(grads)
        grads = _as_tensors(grads)
        res = self.backward(self, *grads)
        if type(res) is not tuple:
            res = (res,)
        if self.grads_per_arg and self._positions is not None:
            res = tuple(res[i] if i < len(res) else None for i in self._positions)
        fns = self._next[::2]
        n = len(fns)
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
        out = []
        for g, meta, fn in zip(res, self._input_meta, fns):
            if g is None or fn is None:
                out.append(None)
            elif type(g) is Tensor and g._data.shape == meta[0] and g._data.dtype == meta[1]:
                out.append(g)
            else:
                out.append(_conform(g, meta, self))
        return out

    def _run_backward_np(self, grads):
        tok = _ERRSTATE.set(_IGNORE)    # quietly(), inlined: one backward formula per node of every step
        try:
            if len(grads) == 1:
                g = grads[0]
                res = self.backward_np(self, g if type(g) is np.ndarray else _array_of(g))
            else:
                res = self.backward_np(self, *[g if type(g) is np.ndarray else _array_of(g) for g in grads])
        finally:
            _ERRSTATE.reset(tok)
        nxt = self._next
        if len(nxt) == 2:    # one input: no lists to zip
            if type(res) is not tuple:
                res = (res,)
            if self.grads_per_arg and self._positions is not None:
                i = self._positions[0] if self._positions else len(res)
                g = res[i] if i < len(res) else None
            else:
                g = res[0] if res else None
            if g is None or nxt[0] is None:
                return [None]
            shape, dt = self._input_meta[0]
            if type(g) is not np.ndarray:
                g = np.asarray(g)
            if g.shape != shape:
                g = np_sum_to_shape(g, shape)
            if g.dtype != dt:
                g = g.astype(dt)
            return [g]
        if type(res) is not tuple:
            res = (res,)
        if self.grads_per_arg and self._positions is not None:
            pos = self._positions
            if pos == (0, 1) and len(res) >= 2:     # add(a, b, alpha)...: the first two, no generator
                res = res[:2]
            else:
                res = tuple(res[i] if i < len(res) else None for i in pos)
        out = []
        for g, (shape, dt), fn in zip(res, self._input_meta, nxt[::2]):
            if g is None or fn is None:
                out.append(None)
                continue
            if type(g) is not np.ndarray:
                g = np.asarray(g)
            if g.shape != shape:
                g = np_sum_to_shape(g, shape)
            if g.dtype != dt:
                g = g.astype(dt)
            out.append(g)
        return out


def _array_of(g):
    return g._data if isinstance(g, Tensor) else np.asarray(g)


def _as_tensors(grads):
    """Wrap bare NumPy gradients (from backward_np) as Tensors for code that needs Tensors."""
    return [Tensor._make(g) if type(g) is np.ndarray else g for g in grads]


def _zeros_for(meta):
    shape, dt = meta
    return Tensor._make(np.zeros(shape, dtype=dt))


def _conform(g, meta, node):
    """Reduce a broadcast gradient to the input's shape and cast it to the input's dtype."""
    shape, dt = meta
    if not isinstance(g, Tensor):
        if isinstance(g, (int, float)):
            g = Tensor._make(np.full(shape, g, dtype=dt))
        else:
            raise TypeError(f"function {node.name()} returned a gradient of type {type(g).__name__}")
    if g._data.shape != shape:
        g = sum_to_shape(g, shape, node)
    if g._data.dtype != dt:
        g = g.to(dt)
    return g


def np_sum_to_shape(g, shape):
    """NumPy twin of sum_to_shape for backward_np."""
    plan = _LEAD_PLANS.get((g.shape, g.dtype, 1))   # a bias gradient of a shape seen before: its planned sum
    if plan is not None and plan[2] == shape and g.strides == plan[3]:
        return sum_planned(g, plan)
    lead = g.ndim - len(shape)
    if lead < 0:
        return g.reshape(shape)
    if lead == 1 and g.ndim == 2 and g.shape[1:] == shape and g.dtype.kind == "f":   # a bias gradient, first
        r = sum_leading(g, 1)
        if r is not None:
            return r if r.shape == shape else r.reshape(shape)     # (one row: torch_sum keeps it)
    if lead and g.shape[lead:] == shape and g.dtype.kind == "f":    # a bias gradient: leading dims to sum
        r = sum_leading(g, lead)
        if r is not None:
            return r.reshape(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    if dims:   # at::sum_to: torch's sum kernel, so its order where _sum_order models it
        r = torch_sum(g, dims) if g.dtype.kind == "f" else None
        g = g.sum(axis=dims, keepdims=True) if r is None else r.reshape(shape if not lead else r.shape)
    return g.reshape(shape) if g.shape != shape else g


def sum_to_shape(g, shape, node=None):
    """The single broadcasting reduction: sum the leading and expanded dims of g down to shape."""
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        if g.numel() == int(np.prod(shape)):
            return g.reshape(shape)
        raise RuntimeError(_shape_err(node, gshape, shape))
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != gshape[lead + i]:
            if g.numel() == int(np.prod(shape)):
                return g.reshape(shape)
            raise RuntimeError(_shape_err(node, gshape, shape))
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


def _shape_err(node, got, want):
    name = node.name() if node is not None else "backward"
    return (f"Function {name} returned an invalid gradient at index 0 - got "
            f"[{', '.join(map(str, got))}] but expected shape compatible with [{', '.join(map(str, want))}]")

