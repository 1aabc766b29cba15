"""Stochastic gradient descent (torch.optim.SGD), following torch's single-tensor implementation."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._kernels import add_, added, bump, grad_array, mul_
from .optimizer import Optimizer, _run_closure, _to_float, _use_grad_for_differentiable

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
    foreach=None, differentiable=False, fused=None): gradient descent, optionally with (Nesterov) momentum."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group, params, grads, momentum_buffer_list):
        for p in group["params"]:
            if p._grad is not None:
                params.append(p)
                grads.append(p._grad)
                if group["momentum"] != 0:
                    momentum_buffer_list.append(self.state[p].get("momentum_buffer"))
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, momentum_buffer_list = [], [], []
            self._init_group(group, params, grads, momentum_buffer_list)
            sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            if group["momentum"] != 0:
                for p, momentum_buffer in zip(params, momentum_buffer_list):
                    self.state[p]["momentum_buffer"] = momentum_buffer
        return loss


def sgd(params, d_p_list, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov, maximize,
        **_unused):
    """Functional SGD update (torch.optim.sgd.sgd, single-tensor path, the CPU default); momentum_buffer_list
    is filled in. Per parameter: grad = -grad if maximize; grad += wd * param; buf = buf * m + (1 - d) * grad;
    grad = grad + m * buf (nesterov) or buf; param += -lr * grad."""
    lr = _to_float(lr)
    weight_decay = _to_float(weight_decay)
    for i, param in enumerate(params):
        pd = param._data
        grad = grad_array(d_p_list[i], pd, maximize)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)

        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = Tensor._make(np.array(grad, order="K", copy=True))
                momentum_buffer_list[i] = buf
            else:
                bd = buf._data
                mul_(bd, momentum)
                add_(bd, grad, 1 - dampening)
                bump(buf, buf)  # mul_ and add_
            grad = added(grad, buf._data, momentum) if nesterov else buf._data

        add_(pd, grad, -lr)
        bump(param)
