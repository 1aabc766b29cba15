"""NAdam (torch.optim.NAdam), following torch's single-tensor implementation (the CPU default): Adam with
Nesterov momentum whose coefficient decays as beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))."""
from __future__ import annotations

import numpy as np

from .. import creation
from . import _kernels as K
from ._kernels import added, addcdiv_, addcmul_, bump, lerp_, mul_, scal
from .optimizer import (Optimizer, _check_betas, _check_lr, _check_nonneg, _run_closure, _scalar_state,
                        _tensorize_steps, _to_float, _to_scalar, _use_grad_for_differentiable)

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_lr(lr)
        _check_nonneg(**{"epsilon value": eps})
        _check_betas(betas)
        _check_nonneg(**{"weight_decay value": weight_decay, "momentum_decay value": momentum_decay})
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("maximize", False), ("foreach", None), ("capturable", False),
                               ("differentiable", False), ("decoupled_weight_decay", False)):
                group.setdefault(key, value)
        _tensorize_steps(self, ("step", "mu_product"))

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["mu_product"] = _scalar_state(1.0)
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_avg_sq"] = creation.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [], [])
            beta1, beta2 = group["betas"]
            self._init_group(group, *lists)
            nadam(*lists, beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                  momentum_decay=group["momentum_decay"], eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"], foreach=group["foreach"])
        return loss


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr, weight_decay,
          momentum_decay, eps, maximize, decoupled_weight_decay=False, foreach=None, **_unused):
    """Functional NAdam: mu_product *= mu (a float32 0-dim tensor); m, v as Adam; denom = sqrt(v / bc2) + eps;
    param += -lr (1 - mu) / (1 - mu_product) * g / denom, then -lr mu_next / (1 - mu_product mu_next) * m / denom.
    foreach=True (torch's multi-tensor path) rounds denom as sqrt(v) / sqrt(bc2) + eps instead."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        pd, exp_avg, exp_avg_sq = param._data, exp_avgs[i]._data, exp_avg_sqs[i]._data
        mu_product, step_t = mu_products[i], state_steps[i]
        grad = K.grad_array(grads[i], pd, maximize)
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                mul_(pd, 1 - lr * weight_decay)
                bump(param)
            else:
                grad = added(grad, pd, weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mul_(mu_product._data, mu)
        bump(mu_product)
        lerp_(exp_avg, grad, 1 - beta1)
        mul_(exp_avg_sq, beta2)
        addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
        bump(exp_avgs[i], exp_avg_sqs[i], exp_avg_sqs[i])
        if foreach:
            denom = K.sqrt(exp_avg_sq)
            np.divide(denom, scal(pd.dtype, bias_correction2 ** 0.5), out=denom, casting="unsafe")
        else:
            denom = np.asarray(np.divide(exp_avg_sq, scal(pd.dtype, bias_correction2), casting="unsafe",
                                         dtype=pd.dtype))        # np.asarray: an array also for 0-dim params
            K.sqrt(denom, out=denom)
        mu_product_next = mu_product.item() * mu_next
        np.add(denom, scal(pd.dtype, eps), out=denom, casting="unsafe")
        addcdiv_(pd, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product.item()))
        addcdiv_(pd, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        bump(param, param)
