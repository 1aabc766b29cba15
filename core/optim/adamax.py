"""Adamax (torch.optim.Adamax), following torch's single-tensor implementation (the CPU default)."""
from __future__ import annotations

import numpy as np

from .. import creation
from ._kernels import added, addcdiv_, bump, grad_array, lerp_, mul_, scal
from .optimizer import (Optimizer, _check_betas, _check_lr, _check_nonneg, _run_closure, _scalar_state,
                        _restore_group_defaults, _to_float, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    """Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *, maximize=False,
    differentiable=False, capturable=False): Adam with the infinity norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(**{"epsilon value": eps})
        _check_betas(betas)
        _check_nonneg(**{"weight_decay value": weight_decay})
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    def _init_group(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_inf"] = creation.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [])
            beta1, beta2 = group["betas"]
            self._init_group(group, *lists)
            adamax(*lists, eps=group["eps"], beta1=beta1, beta2=beta2, lr=group["lr"],
                   weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay, maximize,
           **_unused):
    """Functional Adamax: m = lerp(m, g, 1 - beta1); u = max(beta2 * u, |g| + eps);
    param -= lr / (1 - beta1^t) * m / u."""
    lr, beta1, beta2 = _to_scalar(lr), _to_float(beta1), _to_float(beta2)
    for param, grad_t, exp_avg_t, exp_inf_t, step_t in zip(params, grads, exp_avgs, exp_infs, state_steps):
        pd, exp_avg, exp_inf = param._data, exp_avg_t._data, exp_inf_t._data
        grad = grad_array(grad_t, pd, maximize)
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        lerp_(exp_avg, grad, 1 - beta1)
        mul_(exp_inf, beta2)
        norm = np.abs(grad, out=np.empty_like(grad))      # an array also for 0-dim params
        np.add(norm, scal(pd.dtype, eps), out=norm, casting="unsafe")
        np.maximum(exp_inf, norm, out=exp_inf)
        bump(exp_avg_t, exp_inf_t, exp_inf_t)  # lerp_; mul_ and maximum(out=)
        clr = lr / (1 - beta1 ** step_t.item())
        addcdiv_(pd, exp_avg, exp_inf, -clr)
        bump(param)
