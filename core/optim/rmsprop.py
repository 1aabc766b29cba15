"""RMSprop (torch.optim.RMSprop), following torch's single-tensor implementation (the CPU default)."""
from __future__ import annotations

import numpy as np

from .. import creation
from . import _kernels as K
from ._kernels import add_, added, addcdiv_, addcmul_, bump, fma_, lerp_, mul_, scal
from .optimizer import (Optimizer, _check_lr, _check_nonneg, _run_closure, _scalar_state, _tensorize_steps, _to_float,
                        _use_grad_for_differentiable)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
    capturable=False, foreach=None, maximize=False, differentiable=False)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        _check_nonneg(**{"epsilon value": eps, "momentum value": momentum, "weight_decay value": weight_decay,
                         "alpha value": alpha})
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                               ("differentiable", False), ("capturable", False)):
                group.setdefault(key, value)
        _tensorize_steps(self)

    def _init_group(self, group, params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["square_avg"] = creation.zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = creation.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = creation.zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [], [])
            self._init_group(group, *lists)
            rmsprop(*lists, lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=group["momentum"], centered=group["centered"],
                    maximize=group["maximize"])
        return loss


def rmsprop(params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps, *, lr, alpha, eps,
            weight_decay, momentum, centered, maximize, **_unused):
    """Functional RMSprop: v = alpha * v + (1 - alpha) * g^2; avg = sqrt(v - gavg^2 if centered else v) + eps;
    buf = m * buf + g / avg, param -= lr * buf (momentum) or param -= lr * g / avg."""
    lr = _to_float(lr)
    for i, param in enumerate(params):
        pd, step_t = param._data, state_steps[i]
        grad = K.grad_array(grads[i], pd, maximize)
        square_avg = square_avgs[i]._data
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        mul_(square_avg, alpha)
        addcmul_(square_avg, grad, grad, 1 - alpha)
        bump(square_avgs[i], square_avgs[i])
        if centered:
            grad_avg = grad_avgs[i]._data
            lerp_(grad_avg, grad, 1 - alpha)
            bump(grad_avgs[i])
            avg = fma_(np.empty_like(square_avg), np.negative(grad_avg), grad_avg, square_avg)  # addcmul(value=-1)
            K.sqrt(avg, out=avg)
        else:
            avg = K.sqrt(square_avg)
        np.add(avg, scal(avg.dtype, eps), out=avg, casting="unsafe")
        if momentum > 0:
            buf = momentum_buffer_list[i]
            mul_(buf._data, momentum)
            addcdiv_(buf._data, grad, avg, 1)
            bump(buf, buf)
            add_(pd, buf._data, -lr)
        else:
            addcdiv_(pd, grad, avg, -lr)
        bump(param)
