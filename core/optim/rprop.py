"""Rprop (torch.optim.Rprop), following torch's single-tensor implementation (the CPU default): per-element
step sizes grown by etaplus / shrunk by etaminus as the gradient keeps / flips its sign."""
from __future__ import annotations

import numpy as np

from .. import creation
from ._kernels import addcmul_, bump, grad_array, scal
from .optimizer import (Optimizer, _check_lr, _restore_group_defaults, _run_closure, _scalar_state, _to_float,
                        _use_grad_for_differentiable)

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
    maximize=False, differentiable=False): resilient backpropagation."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["prev"] = creation.zeros_like(p)
                state["step_size"] = creation.full_like(p._grad, _to_float(group["lr"]))
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [])
            self._init_group(group, *lists)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            rprop(*lists, step_size_min=step_size_min, step_size_max=step_size_max, etaminus=etaminus,
                  etaplus=etaplus, maximize=group["maximize"], foreach=group["foreach"])
        return loss


def rprop(params, grads, prevs, step_sizes, state_steps, *, step_size_min, step_size_max, etaminus, etaplus,
          maximize, foreach=None, **_unused):
    """Functional Rprop: s = sign(grad * prev) mapped to etaplus / etaminus / 1; step_size = clamp(step_size * s,
    min, max); grad zeroed where s is etaminus; param -= sign(grad) * step_size; prev = grad. torch's multi-tensor
    path (foreach=True) computes the same values and writes prev 2 times a step (3 with maximize)."""
    for i, param in enumerate(params):
        pd = param._data
        grad = grad_array(grads[i], pd, maximize)
        prev, step_size, step_t = prevs[i], step_sizes[i], state_steps[i]
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        dt = pd.dtype
        sign = np.asarray(np.sign(np.multiply(grad, prev._data)))    # an array also for 0-dim params
        up, down, zero = sign > 0, sign < 0, sign == 0
        sign[up], sign[down], sign[zero] = scal(dt, etaplus), scal(dt, etaminus), 1
        ss = step_size._data
        np.multiply(ss, sign, out=ss)
        np.minimum(np.maximum(ss, scal(dt, step_size_min), out=ss), scal(dt, step_size_max), out=ss)
        bump(step_size, step_size)
        grad = np.array(grad, copy=True)
        grad[sign == scal(dt, etaminus)] = 0
        addcmul_(pd, np.sign(grad), ss, -1)
        bump(param)
        np.copyto(prev._data, grad)
        bump(prev)
        if foreach:
            bump(*[prev] * (2 if maximize else 1))
