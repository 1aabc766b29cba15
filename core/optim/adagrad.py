"""Adagrad (torch.optim.Adagrad), following torch's single-tensor implementation (the CPU default); state is
created for every parameter at construction, as torch does."""
from __future__ import annotations

import numpy as np

from .. import creation
from . import _kernels as K
from ._kernels import added, addcdiv_, addcmul_, bump, scal
from .optimizer import (Optimizer, _check_lr, _check_nonneg, _restore_group_defaults, _run_closure, _scalar_state,
                        _to_float, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, foreach=None,
    *, maximize=False, differentiable=False, fused=None)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check_nonneg(**{"lr_decay value": lr_decay, "weight_decay value": weight_decay,
                         "initial_accumulator_value value": initial_accumulator_value, "epsilon value": eps})
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p):
        state = self.state[p]
        state["step"] = _scalar_state()
        state["sum"] = creation.full_like(p, self.defaults["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False, fused=None)

    def share_memory(self):
        """Calls tensor.share_memory_() on the state sum tensors (a no-op for NumPy-backed tensors)."""

    def _init_group(self, group, params, grads, state_sums, state_steps):
        for p in group["params"]:
            if p._grad is not None:
                params.append(p)
                grads.append(p._grad)
                if len(self.state[p]) == 0:
                    self._init_state(p)
                state_sums.append(self.state[p]["sum"])
                state_steps.append(self.state[p]["step"])
        return False, False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [])
            self._init_group(group, *lists)
            adagrad(*lists, lr=group["lr"], weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize, **_unused):
    """Functional Adagrad: sum += g^2; param -= clr * g / (sqrt(sum) + eps), clr = lr / (1 + (step-1) * lr_decay)."""
    lr = _to_scalar(lr)
    for param, grad_t, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        pd = param._data
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        step = step_t.item()
        grad = K.grad_array(grad_t, pd, maximize)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        addcmul_(state_sum._data, grad, grad, 1)
        bump(state_sum)
        std = K.sqrt(state_sum._data)
        np.add(std, scal(std.dtype, eps), out=std, casting="unsafe")
        addcdiv_(pd, grad, std, -clr)
        bump(param)
