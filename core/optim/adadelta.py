"""Adadelta (torch.optim.Adadelta), following torch's single-tensor implementation (the CPU default)."""
from __future__ import annotations

import numpy as np

from .. import creation
from . import _kernels as K
from ._kernels import add_, added, addcmul_, bump, mul_, scal
from .optimizer import (Optimizer, _check_lr, _check_nonneg, _restore_group_defaults, _run_closure, _scalar_state,
                        _to_float, _use_grad_for_differentiable)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
    maximize=False, differentiable=False)."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonneg(**{"epsilon value": eps, "weight_decay value": weight_decay})
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["square_avg"] = creation.zeros_like(p)
                state["acc_delta"] = creation.zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [])
            self._init_group(group, *lists)
            adadelta(*lists, lr=group["lr"], rho=group["rho"], eps=group["eps"],
                     weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay, maximize,
             **_unused):
    """Functional Adadelta: v = rho v + (1-rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g;
    u = rho u + (1-rho) delta^2; param -= lr * delta."""
    lr = _to_float(lr)
    for param, grad_t, square_avg_t, acc_delta_t, step_t in zip(params, grads, square_avgs, acc_deltas,
                                                                   state_steps):
        pd, square_avg, acc_delta = param._data, square_avg_t._data, acc_delta_t._data
        e = scal(pd.dtype, eps)
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        grad = K.grad_array(grad_t, pd, maximize)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        mul_(square_avg, rho)
        addcmul_(square_avg, grad, grad, 1 - rho)
        std = K.sqrt(np.add(square_avg, e, casting="unsafe", dtype=pd.dtype))
        delta = K.sqrt(np.add(acc_delta, e, casting="unsafe", dtype=pd.dtype))
        np.divide(delta, std, out=delta)
        np.multiply(delta, grad, out=delta)
        mul_(acc_delta, rho)
        addcmul_(acc_delta, delta, delta, 1 - rho)
        bump(square_avg_t, square_avg_t, acc_delta_t, acc_delta_t)
        add_(pd, delta, -lr)
        bump(param)
