"""torch.autograd.Function: custom ops with a static forward(ctx, ...) and backward(ctx, ...),
called with `.apply(...)`; their graph node is `<Name>Backward`."""
from __future__ import annotations

from .._grad_mode import STATE, no_grad
from ..tensor import Tensor
from .node import (  # noqa: F401  (Node, Op, ... re-exported: torch.autograd.function exposes them)
    FREED_MSG, AccumulateGrad, Node, Op, RemovableHandle, SavedTensor, _as_tensors, _conform, _edge, _seq,
    _ForwardCtx, _mark_view, _zeros_for, np_sum_to_shape, sum_to_shape)


class FunctionCtx:
    """Attributes a custom Function's forward/backward see on ctx."""

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool):
        self._materialize = bool(value)


class BackwardCFunction(FunctionCtx, Op):
    """Node of a custom Function; named '<ClassName>Backward'."""

    def __repr__(self):   # a Python class in torch: its repr carries the module torch creates it in
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def _run_backward(self, grads):
        grads = _as_tensors(grads)
        if self._materialize:
            grads = [g if g is not None else _zeros_for(m) for g, m in zip(grads, self._output_meta)]
        res = self._forward_cls.backward(self, *grads)
        if type(res) is not tuple:
            res = (res,)
        n = self._n_args
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
        out = []
        for pos, (fn, _), meta in zip(self._tensor_positions, self.next_functions, self._input_meta):
            g = res[pos]
            out.append(None if g is None or fn is None else _conform(g, meta, self))
        return out


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """torch.autograd.Function: subclass with static forward(ctx, *args) and backward(ctx, *grads);
    call with `.apply(*args)`. backward returns one gradient (or None) per forward argument."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError("apply() takes no keyword arguments")
        node = cls._backward_cls.__new__(cls._backward_cls)
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in positions]
        node._n_args = len(args)
        node._tensor_positions = positions
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        record = STATE.grad_enabled and any(t._requires_grad for t in inputs)
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                out = cls.forward(*args)
                cls.setup_context(node, args, out)
            else:
                out = cls.forward(node, *args)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not record:
            return out
        node._seq = next(_seq)
        node.next_functions = tuple(_edge(t) for t in inputs)
        node._input_meta = tuple((t._data.shape, t._data.dtype) for t in inputs)
        nondiff = getattr(node, "_non_differentiable", set())
        dirty = {id(t) for t in getattr(node, "_dirty", ())}
        res = []
        metas = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                res.append(o)
                continue
            metas.append((o._data.shape, o._data.dtype))
            if id(o) in nondiff or o._data.dtype.kind != "f":
                res.append(o)
                continue
            if id(o) in dirty or any(o is t for t in inputs):
                if id(o) in dirty:
                    t = o
                else:
                    t = Tensor._make(o._data)   # returning an input makes a view of it
                    t._vc = o._vc
            else:
                t = o
            t._requires_grad = True
            t.grad_fn = node
            t._output_nr = i
            res.append(t)
        node._output_meta = tuple(metas)
        return res[0] if single else tuple(res)


class InplaceFunction(Function):
    pass


class NestedIOFunction(Function):
    pass


def once_differentiable(fn):
    return fn
