"""RAdam (torch.optim.RAdam), following torch's single-tensor implementation (the CPU default): Adam whose
adaptive term is switched on, rectified, once the variance estimate is tractable (rho_t > 5)."""
from __future__ import annotations

import numpy as np

from .. import creation
from . import _kernels as K
from ._kernels import add_, added, addcmul_, bump, lerp_, mul_, scal
from .optimizer import (Optimizer, _check_betas, _check_lr, _check_nonneg, _run_closure, _scalar_state,
                        _restore_group_defaults, _to_float, _use_grad_for_differentiable)

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *,
    foreach=None, maximize=False, capturable=False, differentiable=False)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        _check_nonneg(**{"epsilon value": eps})
        _check_betas(betas)
        _check_nonneg(**{"weight_decay value": weight_decay})
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False,
                                decoupled_weight_decay=False, capturable=False)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_avg_sq"] = creation.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
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
            radam(*lists, beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                  eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"], foreach=group["foreach"])
        return loss


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps, maximize,
          decoupled_weight_decay=False, foreach=None, **_unused):
    """Functional RAdam: m, v as Adam; update = m / bc1 * lr, times sqrt(bc2) / (sqrt(v) + eps) * rect when
    rho_t > 5; param -= update. Products are rounded left to right, as torch evaluates them; foreach=True
    follows torch's multi-tensor rounding (_update_foreach)."""
    lr = _to_float(lr)
    for i, param in enumerate(params):
        pd, exp_avg, exp_avg_sq, step_t = param._data, exp_avgs[i]._data, exp_avg_sqs[i]._data, state_steps[i]
        dt = pd.dtype
        grad = K.grad_array(grads[i], pd, maximize)
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        step = step_t.item()
        if weight_decay != 0:
            if decoupled_weight_decay:
                mul_(pd, 1 - lr * weight_decay)
                bump(param)
            else:
                grad = added(grad, pd, weight_decay)
        lerp_(exp_avg, grad, 1 - beta1)
        mul_(exp_avg_sq, beta2)
        addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
        bump(exp_avgs[i], exp_avg_sqs[i], exp_avg_sqs[i])
        if foreach:
            _update_foreach(pd, exp_avg, exp_avg_sq, step, beta1, beta2, lr, eps)
            bump(param)
            continue
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = np.asarray(np.divide(exp_avg, scal(dt, bias_correction1), casting="unsafe", dtype=dt))  # 0-dim too
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        mul_(update, lr)
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = K.sqrt(exp_avg_sq)
            np.add(adaptive, scal(dt, eps), out=adaptive, casting="unsafe")
            np.divide(scal(dt, 1), adaptive, out=adaptive, casting="unsafe")   # scalar / tensor = reciprocal * scalar
            mul_(adaptive, bias_correction2 ** 0.5)
            np.multiply(update, adaptive, out=update)
            mul_(update, rect)
        add_(pd, update, -1.0)
        bump(param)


def _update_foreach(pd, exp_avg, exp_avg_sq, step, beta1, beta2, lr, eps):
    """torch's _multi_tensor_radam update: buf = 1 / ((sqrt(v) + eps) / (sqrt(bc2) * lr * rect / bc1 * -1))
    + lr * unrectified / bc1 * -1; param += exp_avg * buf."""
    dt = pd.dtype
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)
    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rho_t > 5 else 0
    unrectified = 0 if rect > 0 else 1.0
    bias_correction1 = 1 - beta1 ** step
    unrect_step_size = (lr * unrectified / bias_correction1) * -1
    bias_correction2 = ((1 - beta2 ** step) ** 0.5) * (lr * rect / bias_correction1) * -1
    buf = K.sqrt(exp_avg_sq)
    with np.errstate(divide="ignore"):
        np.add(buf, scal(dt, eps), out=buf, casting="unsafe")
        np.divide(buf, scal(dt, bias_correction2), out=buf, casting="unsafe")
        np.divide(scal(dt, 1), buf, out=buf, casting="unsafe")
    np.add(buf, scal(dt, unrect_step_size), out=buf, casting="unsafe")
    addcmul_(pd, exp_avg, buf, 1)
