"""torch.autograd: backward, grad, Function, Variable and the grad-mode switches."""
from __future__ import annotations

import importlib

import numpy as np

from .. import _methods
from ..tensor import Tensor
from .engine import run_backward
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from . import graph  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .gradcheck import gradcheck, gradgradcheck
from .node import Node


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of `tensors` into the leaves (or only into `inputs`)."""
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors if grad_tensors is not None else grad_variables)
    if grads is None:
        grads = [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} tensors and {len(tensors)} gradients")
    inputs = _as_list(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) as a tuple, without touching .grad."""
    outputs = _as_list(outputs)
    single = not isinstance(inputs, (list, tuple))
    inputs = _as_list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _as_list(grad_outputs)
    if grads is None:
        grads = [None] * len(outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                       allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        res = tuple(Tensor._make(np.zeros_like(i._data)) if g is None else g for g, i in zip(res, inputs))
    return res


def Variable(data, requires_grad=False, volatile=False):
    """Legacy torch.autograd.Variable: returns the tensor itself (optionally marked requires_grad)."""
    if requires_grad:
        data.requires_grad_(True)
    return data


__all__ = ["Function", "FunctionCtx", "Variable", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "graph",
           "detect_anomaly", "set_detect_anomaly", "gradcheck", "gradgradcheck"]


@_methods.method("backward")
def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: accumulate d(self)/d(leaf) into each leaf's .grad."""
    if inputs is None:
        run_backward([self], [gradient], retain_graph, create_graph)
        return
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def __getattr__(name):
    # functional and profiler import the top of core (ops, creation): loaded on first use, like core.nn
    if name in ("functional", "profiler"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'core.autograd' has no attribute '{name}'")
