"""The built-in op node `Op`: `Op.apply` runs an op's forward and, when grad mode is on and an input requires
grad, records its node (`_record`: sequence number, edges, metas, saved tensors). The node base class lives in
graph_node.py, AccumulateGrad in accumulate.py, SavedTensor in saved.py, hooks in hooks.py; they are re-exported
here for the modules that import them from `core.autograd.node`.

A built-in op is one `Op` subclass: `forward(ctx, *args)` computes on NumPy arrays
(`t._data`) and returns an array; `backward(ctx, *grads)` is written with core ops so
that `create_graph=True` gives differentiable gradients. The subclass *is* the graph
node class, so `y.grad_fn.name()` is the class name (`MulBackward0`...). Reduction of
broadcast gradients and dtype casting happen once, in `Node._run_backward`.
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes as _dt
from .._warn import _ERRSTATE, _IGNORE, quietly
from .._grad_mode import STATE
from ..tensor import Tensor
from .accumulate import AccumulateGrad, get_accumulator  # noqa: F401  (re-exported)
from .graph_node import (  # noqa: F401  (re-exported: the autograd package imports them from here)
    _NONES, _ONE, Node, _as_tensors, _conform, _intern, _meta1, _zeros_for, np_sum_to_shape, sum_to_shape)
from .hooks import RemovableHandle  # noqa: F401
from .saved import FREED_MSG, HOOKED_SAVE, INFERENCE_SAVE_MSG, SAVED_TENSORS_HOOKS, SavedTensor  # noqa: F401

_seq = itertools.count()
_NUMBER = frozenset((int, float))
_new = object.__new__
_FROM_NP = _dt._FROM_NP


# interned flags of the one-tensor-first node (x * 2, x.pow(3)...): needs_input_grad per argument, positions
_NEED_ONE = _intern((True,))
_NEED_FIRST = [None] + [_intern((True,) + (False,) * (n - 1)) for n in range(1, 8)]
_FIRST = _intern((0,))
_PAIRS = {}     # (id(meta0), id(meta1)) -> (meta0, meta1): a two-input node's metas without hashing shapes
_TWO = {}       # (requires_grad0, requires_grad1, n args, grads_per_arg) -> (positions, needs_input_grad)



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
            if not rg:
                self._next = (None, 0)
            elif t.grad_fn is not None:
                self._next = (t.grad_fn, t._output_nr)
            else:
                self._next = (get_accumulator(t), 0)
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
                        n = len(args)
                        if n == 1:
                            return cls._record(args, args, kwargs)
                        if n == 2 and a is args[0]:
                            t1 = type(args[1])
                            if t1 in _NUMBER:           # x * 2, x.pow(3)
                                return cls._record((a,), args, kwargs)
                            if t1 is Tensor:            # x * y: both tensors are the inputs, as listed
                                return cls._record(args, args, kwargs)
                        return cls._record(_differentiable_inputs(args), args, kwargs)
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
    def _record(cls, inputs, args, kwargs, forward=None):
        """Record a node of cls for inputs and run its forward (`forward` in place of cls.forward: a caller's
        fused computation of the same result, e.g. cross_entropy's nll_loss; the node is cls's all the same)."""
        node = _new(cls)
        if len(inputs) == 1 and inputs[0] is args[0]:
            # one tensor, first (x * 2, relu(x), x.sum(), x.t()): _init_node's work without its loops
            t = inputs[0]
            node._seq = next(_seq)
            d = t._data
            m = _ONE.get((d.shape, d.dtype))
            node._input_meta = m if m is not None else _meta1(d)
            fn = t.grad_fn
            node._next = (fn, t._output_nr) if fn is not None else (get_accumulator(t), 0)
            if cls.grads_per_arg:
                na = len(args)
                node._positions = None if na == 1 else _FIRST
                node.needs_input_grad = _NEED_FIRST[na] if na < 8 else _intern((True,) + (False,) * (na - 1))
            else:
                node.needs_input_grad = _NEED_ONE
        else:
            node._init_node(inputs, args)
        tok = _ERRSTATE.set(_IGNORE)    # quietly(), inlined: torch never warns on inf/nan results
        try:
            out = (cls.forward if forward is None else forward)(node, *args, **kwargs)
        finally:
            _ERRSTATE.reset(tok)
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
                node._saved = (node._saved or ()) + ((HOOKED_SAVE[0] if SAVED_TENSORS_HOOKS else SavedTensor)(r, True, 0),)
            return r
        if cls.contiguous_output and not cls.is_view:
            out = _contiguous(out)
        if type(out) is tuple:
            res = tuple(Tensor._make(o, o.dtype.kind == "f", node if o.dtype.kind == "f" else None, i)
                        for i, o in enumerate(out))
            node._output_meta = _intern(tuple(_intern((o._data.shape, o._data.dtype)) for o in res))
            if cls.save_output:
                node._saved = (node._saved or ()) + ((HOOKED_SAVE[0] if SAVED_TENSORS_HOOKS else SavedTensor)(res[0], True, 0),)
            return res
        if out.dtype.kind != "f":
            return Tensor._make(out)
        r = Tensor._make(out, True, node, 0)
        if cls.is_view:
            _mark_view(r, args[0])
        node._output_meta = _meta1(r._data)
        if cls.save_output:
            node._saved = (node._saved or ()) + ((HOOKED_SAVE[0] if SAVED_TENSORS_HOOKS else SavedTensor)(r, True, 0),)
        return r


def _contiguous(out):
    # tuple results (unbind, split, max(dim)...) are left alone: some are views by design
    if type(out) is np.ndarray and not out.flags.c_contiguous:
        return out.copy(order="C")
    return out


def _mark_view(r, base):
    """Share version counter and inference-ness; grad mode off: torch's NO_GRAD_MODE / INFERENCE_MODE view."""
    r._base, r._vc, r._inference = (base if base._base is None else base._base), base._vc, base._inference
    if base._requires_grad and not STATE.grad_enabled:
        r._view_meta, r._requires_grad = ("inference" if STATE.inference else "nograd"), r._data.dtype.kind in "fc"
