"""Graph nodes: the built-in op base class `Op`, `AccumulateGrad`, saved tensors, hook handles
and the one broadcasting reduction (`sum_to_shape`).

A built-in op is one `Op` subclass: `forward(ctx, *args)` computes on NumPy arrays
(`t._data`) and returns an array; `backward(ctx, *grads)` is written with core ops so
that `create_graph=True` gives differentiable gradients. The subclass *is* the graph
node class, so `y.grad_fn.name()` is the class name (`MulBackward0`...). Reduction of
broadcast gradients and dtype casting happen once, in `Node._run_backward`.
"""
from __future__ import annotations

import itertools
import sys
import warnings
import weakref

import numpy as np

from .. import _methods
from .. import dtypes as _dt
from .._sum_order import torch_sum
from .._warn import quietly
from .._grad_mode import STATE
from ..tensor import Tensor
from .anomaly_mode import modified_inplace_message

_seq = itertools.count()
SAVED_TENSORS_HOOKS: list = []   # saved_tensors_hooks in force; HOOKED_SAVE: graph.py's HookedSavedTensor
HOOKED_SAVE = None

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


class RemovableHandle:
    """Returned by register_hook; `.remove()` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, store):
        self._store = store
        self.id = next(self._ids)

    def remove(self):
        self._store.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Outputs are stored as data + version counter (not the Tensor) so the graph holds no
    reference cycle; on unpack they are re-wrapped with this node as grad_fn, as PyTorch does.
    """

    __slots__ = ("tensor", "data", "vc", "version", "output_nr", "is_output", "dtype_name")

    def __init__(self, t, is_output=False, output_nr=0):
        self.is_output = is_output
        self.data = t._data
        self.vc = t._vc
        self.version = t._vc[0]
        self.output_nr = output_nr
        self.tensor = None if is_output else t

    def unpack(self, node):
        if self.vc[0] != self.version:
            t = self.tensor if self.tensor is not None else Tensor._make(self.data)
            producer = node if self.is_output else t.grad_fn   # an input: whatever made it last (None: a leaf)
            raise RuntimeError(modified_inplace_message(t.type(), self.data.shape, producer and producer.name(),
                                                        self.output_nr if self.is_output else t._output_nr,
                                                        self.vc[0], self.version))
        if self.is_output:
            t = Tensor._make(self.data, True, node, self.output_nr)
            t._vc = self.vc
            return t
        return self.tensor


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
_new = object.__new__
_FROM_NP = _dt._FROM_NP


def _meta1(d):
    """The interned ((shape, dtype),) meta of one array: one dict lookup instead of two _intern calls."""
    key = (d.shape, d.dtype)
    m = _ONE.get(key)
    if m is None:
        if len(_ONE) > 16384:
            _ONE.clear()
        m = _ONE[key] = _intern((_intern(key),))
    return m


# interned flags of the one-tensor-first node (x * 2, x.pow(3)...): needs_input_grad per argument, positions
_NEED_ONE = _intern((True,))
_NEED_FIRST = [None] + [_intern((True,) + (False,) * (n - 1)) for n in range(1, 8)]
_FIRST = _intern((0,))
_PAIRS = {}     # (id(meta0), id(meta1)) -> (meta0, meta1): a two-input node's metas without hashing shapes
_TWO = {}       # (requires_grad0, requires_grad1, n args, grads_per_arg) -> (positions, needs_input_grad)


class Node:
    """Base of every graph node (PyTorch's torch.autograd.graph.Node).

    Edges are stored flat in `_next` = (fn0, nr0, fn1, nr1, ...): one tuple per node instead of one per edge
    plus one (fewer GC-tracked objects per node); a one-input op node keeps its edge in `_fn0` / `_nr0` with
    `_next = None`, so it is the only object the cyclic GC tracks for it (a 100,000-node chain is walked by
    every full collection). `_edges()` gives the flat form, `next_functions` PyTorch's ((fn, nr), ...) view."""

    _next = ()
    _fn0 = None
    _nr0 = 0
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
        n = self._edges()
        return tuple(zip(n[::2], n[1::2]))

    @next_functions.setter
    def next_functions(self, edges):
        self._next = tuple(x for e in edges for x in e)

    def _edges(self):
        n = self._next
        return n if n is not None else (self._fn0, self._nr0)

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
            saved.append(HOOKED_SAVE(t) if SAVED_TENSORS_HOOKS else SavedTensor(t))
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
        fns = self._edges()[::2]
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
        if len(grads) == 1:
            g = grads[0]
            res = quietly(self.backward_np, self, g if type(g) is np.ndarray else _array_of(g))
        else:
            res = quietly(self.backward_np, self, *[g if type(g) is np.ndarray else _array_of(g) for g in grads])
        if self._next is None:    # one input: no lists to zip
            if type(res) is not tuple:
                res = (res,)
            if self.grads_per_arg and self._positions is not None:
                i = self._positions[0] if self._positions else len(res)
                g = res[i] if i < len(res) else None
            else:
                g = res[0] if res else None
            if g is None or self._fn0 is None:
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
        for g, (shape, dt), fn in zip(res, self._input_meta, self._next[::2]):
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
    lead = g.ndim - len(shape)
    if lead < 0:
        return g.reshape(shape)
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


class _ForwardCtx:
    """ctx used when no graph is recorded: saving is a no-op."""

    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        pass

    def mark_dirty(self, *a):
        pass

    def mark_non_differentiable(self, *a):
        pass

    def set_materialize_grads(self, v):
        pass


def _differentiable_inputs(args):
    out = []
    for a in args:
        ta = type(a)
        if ta is Tensor:
            out.append(a)
        elif ta is int or ta is float or a is None:
            continue
        elif isinstance(a, Tensor):
            out.append(a)
        elif (ta is list or ta is tuple) and a and isinstance(a[0], Tensor):
            out.extend(x for x in a if isinstance(x, Tensor))
    return out


def _edge(t):
    if not t._requires_grad:
        return (None, 0)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (get_accumulator(t), 0)


class Op(Node):
    """Base class of built-in differentiable ops; see module docstring."""

    save_output = False   # save the forward result for backward (e.g. exp, sigmoid, relu)
    grads_per_arg = False  # backward returns one grad per positional arg (Python numbers get None)
    is_view = False        # output 0 is a view of input 0: shares its version counter, records _base
    # PyTorch returns contiguous results from non-elementwise ops; NumPy often keeps the input's
    # layout. Elementwise ops set this False (both libraries preserve a dense input's strides).
    contiguous_output = True

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError

    def _init_node(self, inputs, args):
        """Sequence number, edges, input metas and needs_input_grad, in one pass over the inputs."""
        self._seq = next(_seq)
        n = len(inputs)
        if n == 2 and self._init_two(inputs, args):
            return
        if n == 1:
            t = inputs[0]
            self._input_meta = _meta1(t._data)
            rg = t._requires_grad
            self._next = None
            if not rg:
                pass
            elif t.grad_fn is not None:
                self._fn0 = t.grad_fn
                self._nr0 = t._output_nr
            else:
                self._fn0 = get_accumulator(t)
            need = (rg,)
        else:
            edges, meta, need = [], [], []
            for t in inputs:
                meta.append(_meta1(t._data)[0])
                rg = t._requires_grad
                need.append(rg)
                if not rg:
                    edges += (None, 0)
                elif t.grad_fn is not None:
                    edges += (t.grad_fn, t._output_nr)
                else:
                    edges += (get_accumulator(t), 0)
            self._next = tuple(edges)
            self._input_meta = _intern(tuple(meta))
            need = tuple(need)
        # needs_input_grad tuples are interned too: a node keeps no tuple of its own
        if not self.grads_per_arg:
            self.needs_input_grad = _intern(need)
        elif len(args) == n and (args[0] is inputs[0] if n == 1 else all(a is t for a, t in zip(args, inputs))):
            # every argument is a tensor: grads map one to one
            self._positions = None
            self.needs_input_grad = _intern(need)
        elif n == 1 and args[0] is inputs[0]:
            # one tensor first, then numbers and options (x * 2, x.pow(3)...)
            self._positions = (0,)
            self.needs_input_grad = _intern(need + (False,) * (len(args) - 1))
        else:
            pos, need = [], []
            for i, a in enumerate(args):
                if isinstance(a, Tensor):
                    pos.append(i)
                    need.append(a._requires_grad)
                else:
                    need.append(False)
            self._positions = tuple(pos)
            self.needs_input_grad = tuple(need)

    def _init_two(self, inputs, args):
        """_init_node for two tensors that are the first two arguments (a + b, a @ b, add(a, b, alpha)):
        metas, edges and flags from interned tables; False (nothing set) when the arguments differ."""
        t0, t1 = inputs
        na = len(args)
        if na < 2 or args[0] is not t0 or args[1] is not t1 or na > 7:
            return False
        d0, d1 = t0._data, t1._data
        m0 = _ONE.get((d0.shape, d0.dtype))
        m0 = (m0 if m0 is not None else _meta1(d0))[0]
        m1 = _ONE.get((d1.shape, d1.dtype))
        m1 = (m1 if m1 is not None else _meta1(d1))[0]
        key = (id(m0), id(m1))
        meta = _PAIRS.get(key)
        if meta is None:
            if len(_PAIRS) > 16384:
                _PAIRS.clear()
            meta = _PAIRS[key] = (m0, m1)   # the value holds m0 and m1: their ids stay theirs
        self._input_meta = meta
        r0, r1 = t0._requires_grad, t1._requires_grad
        f0, n0, f1, n1 = None, 0, None, 0
        if r0:
            f0 = t0.grad_fn
            if f0 is None:
                f0 = get_accumulator(t0)
            else:
                n0 = t0._output_nr
        if r1:
            f1 = t1.grad_fn
            if f1 is None:
                f1 = get_accumulator(t1)
            else:
                n1 = t1._output_nr
        self._next = (f0, n0, f1, n1)
        flags = _TWO.get((r0, r1, na, self.grads_per_arg))
        if flags is None:
            need = (r0, r1)
            if not self.grads_per_arg:
                flags = (None, _intern(need))
            else:
                flags = (None if na == 2 else _intern((0, 1)), _intern(need + (False,) * (na - 2)))
            _TWO[(r0, r1, na, self.grads_per_arg)] = flags
        if self.grads_per_arg:
            self._positions = flags[0]
        self.needs_input_grad = flags[1]
        return True

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward; record a node when grad mode is on and an input requires grad."""
        if STATE.grad_enabled:
            for a in args:      # the common case (plain Tensors and numbers) without building a list
                ta = type(a)
                if ta is Tensor:
                    if a._requires_grad:
                        return cls._record(args if len(args) == 1 else _differentiable_inputs(args), args, kwargs)
                elif ta is list or ta is tuple or (ta is not int and ta is not float and isinstance(a, Tensor)):
                    inputs = _differentiable_inputs(args)
                    for t in inputs:
                        if t._requires_grad:
                            return cls._record(inputs, args, kwargs)
                    break
        out = quietly(cls.forward, _ForwardCtx(), *args, **kwargs)    # torch never warns on inf/nan
        if type(out) is np.ndarray:
            if not out.flags.c_contiguous and cls.contiguous_output and not cls.is_view:
                out = out.copy(order="C")
            if out.dtype in _FROM_NP:
                r = _new(Tensor)        # Tensor._make inlined: the no-grad result of every op
                r._data = out
                r._requires_grad = False
                r.grad_fn = None
                r._output_nr = 0
                r._vc = [0]
                if STATE.inference:
                    r._inference = True
            else:
                r = Tensor._make(out)
            if cls.is_view:
                _mark_view(r, args[0])
            return r
        if cls.contiguous_output and not cls.is_view:
            out = _contiguous(out)
        if type(out) is tuple:
            return tuple(Tensor._make(o) for o in out)
        r = Tensor._make(out)
        if cls.is_view:
            _mark_view(r, args[0])
        return r

    @classmethod
    def _record(cls, inputs, args, kwargs):
        node = _new(cls)
        if len(inputs) == 1 and inputs[0] is args[0]:
            # one tensor, first (x * 2, relu(x), x.sum(), x.t()): _init_node's work without its loops
            t = inputs[0]
            node._seq = next(_seq)
            d = t._data
            m = _ONE.get((d.shape, d.dtype))
            node._input_meta = m if m is not None else _meta1(d)
            node._next = None
            fn = t.grad_fn
            if fn is not None:
                node._fn0 = fn
                nr = t._output_nr
                if nr:
                    node._nr0 = nr
            else:
                node._fn0 = get_accumulator(t)
            if cls.grads_per_arg:
                na = len(args)
                node._positions = None if na == 1 else _FIRST
                node.needs_input_grad = _NEED_FIRST[na] if na < 8 else _intern((True,) + (False,) * (na - 1))
            else:
                node.needs_input_grad = _NEED_ONE
        else:
            node._init_node(inputs, args)
        out = quietly(cls.forward, node, *args, **kwargs)
        if type(out) is np.ndarray:
            if not out.flags.c_contiguous and cls.contiguous_output and not cls.is_view:
                out = out.copy(order="C")
            dt = out.dtype
            if dt.kind != "f":
                return Tensor._make(out)
            if dt in _FROM_NP:
                r = _new(Tensor)        # Tensor._make(out, True, node, 0) inlined
                r._data = out
                r._requires_grad = True
                r.grad_fn = node
                r._output_nr = 0
                r._vc = [0]
                if STATE.inference:
                    r._inference = True
            else:
                r = Tensor._make(out, True, node, 0)
                out = r._data
            if cls.is_view:
                _mark_view(r, args[0])
            m = _ONE.get((out.shape, out.dtype))
            node._output_meta = m if m is not None else _meta1(out)
            if cls.save_output:
                node._saved = (node._saved or ()) + ((HOOKED_SAVE if SAVED_TENSORS_HOOKS else SavedTensor)(r, True, 0),)
            return r
        if cls.contiguous_output and not cls.is_view:
            out = _contiguous(out)
        if type(out) is tuple:
            res = tuple(Tensor._make(o, o.dtype.kind == "f", node if o.dtype.kind == "f" else None, i)
                        for i, o in enumerate(out))
            node._output_meta = _intern(tuple(_intern((o._data.shape, o._data.dtype)) for o in res))
            if cls.save_output:
                node._saved = (node._saved or ()) + ((HOOKED_SAVE if SAVED_TENSORS_HOOKS else SavedTensor)(res[0], True, 0),)
            return res
        if out.dtype.kind != "f":
            return Tensor._make(out)
        r = Tensor._make(out, True, node, 0)
        if cls.is_view:
            _mark_view(r, args[0])
        node._output_meta = _meta1(r._data)
        if cls.save_output:
            node._saved = (node._saved or ()) + ((HOOKED_SAVE if SAVED_TENSORS_HOOKS else SavedTensor)(r, True, 0),)
        return r


def _contiguous(out):
    # tuple results (unbind, split, max(dim)...) are left alone: some are views by design
    if type(out) is np.ndarray and not out.flags.c_contiguous:
        return out.copy(order="C")
    return out


def _mark_view(r, base):
    r._base = base if base._base is None else base._base
    r._vc = base._vc
    if base._requires_grad and not STATE.grad_enabled:
        r._view_meta = "nograd"   # PyTorch's CreationMeta::NO_GRAD_MODE (see ops/shape.py)


class AccumulateGrad(Node):
    """Leaf node: runs the leaf's hooks, then accumulates into `variable.grad`."""

    def name(self):
        return "torch::autograd::AccumulateGrad"

    _materialize = False

    def __init__(self, variable):
        self.variable = variable
        self._seq = 2 ** 62  # run leaves after everything else that is ready
        self._output_meta = _meta1(variable._data)

    def _accumulate(self, g, create_graph):
        v = self.variable
        if g is None:
            return
        if type(g) is np.ndarray and v._grad is None and not create_graph:
            vd = v._data
            if g.shape == vd.shape and g.dtype == vd.dtype:
                # the first gradient of a step, as the engine passes it: taken over or copied, nothing else
                v._grad = Tensor._make(g if _unshared(g, vd) else _clone_obey_contract(g, vd))
                return
        stolen = None
        if type(g) is np.ndarray:
            if _unshared(g, v._data):
                stolen = g
            g = Tensor._make(g)
        if g._data.shape != v._data.shape:
            g = sum_to_shape(g, v._data.shape, self)
            stolen = None
        if g._data.dtype != v._data.dtype:
            g = g.to(v.dtype)
            stolen = None
        if v._grad is None:
            if create_graph:
                v._grad = g
            elif stolen is not None:
                v._grad = Tensor._make(stolen)
            else:
                v._grad = Tensor._make(_clone_obey_contract(g._data, v._data))
        elif create_graph or v._grad._requires_grad:
            v._grad = v._grad + g
        else:
            v._grad._data += g._data
            v._grad._vc[0] += 1


# References to a gradient array that only the engine holds when it reaches AccumulateGrad: the
# ready list, the `g` parameter, and getrefcount's own argument.
_ENGINE_REFS = 3


def _unshared(g, like):
    """PyTorch's AccumulateGrad steals a gradient nobody else references (use_count check) when its
    layout matches the variable's; otherwise it copies. Same rule here, by reference count."""
    if not (g.flags.writeable and g.strides == like.strides and g.dtype == like.dtype
            and sys.getrefcount(g) <= _ENGINE_REFS + 1):
        return False
    b = g.base      # a reshape of a fresh result is as good as the result, if nothing else holds it
    return b is None or (type(b) is np.ndarray and b.base is None and b.nbytes == g.nbytes
                         and sys.getrefcount(b) <= 3)   # g.base, `b`, the argument


def _clone_obey_contract(g, like):
    """PyTorch's clone_obey_contract: a copied gradient gets the variable's strides when the variable is
    non-overlapping and dense (e.g. a column-major weight keeps column-major .grad), else C order."""
    if like.flags.c_contiguous:
        return np.array(g, order="C")
    out = np.empty_like(like, order="K") if _dense(like) else np.empty(like.shape, like.dtype)
    np.copyto(out, g)
    return out


def _dense(a):
    """Non-overlapping and dense: sorted by stride, each stride is the product of the smaller sizes."""
    expected = a.itemsize
    for st, sz in sorted((st, sz) for st, sz in zip(a.strides, a.shape) if sz != 1):
        if st != expected:
            return False
        expected *= sz
    return True


@_methods.method("_get_accumulator")
def get_accumulator(t):
    """The leaf's AccumulateGrad node, shared while anything holds it (PyTorch's grad accumulator)."""
    acc = t._accum() if t._accum is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accum = weakref.ref(acc)
    return acc


@_methods.method("register_hook")
def register_hook(self, hook):
    """Tensor.register_hook: call hook(grad) when the gradient w.r.t. this tensor is computed; a
    returned tensor replaces the gradient. Returns a handle with .remove()."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = {}
    h = RemovableHandle(self._hooks)
    self._hooks[h.id] = hook
    return h
