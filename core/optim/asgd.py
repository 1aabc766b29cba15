"""ASGD (torch.optim.ASGD), following torch's single-tensor implementation (the CPU default): 0-dim state
tensors step / eta / mu and the running average ax."""
from __future__ import annotations

import numpy as np

from .. import creation
from ._kernels import add_, added, bump, fma_, grad_array, mul_
from .optimizer import (Optimizer, _check_lr, _check_nonneg, _restore_group_defaults, _run_closure, _scalar_dtype,
                        _scalar_state, _to_float, _to_scalar, _use_grad_for_differentiable)

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
    differentiable=False, capturable=False): averaged SGD (Polyak and Juditsky)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(**{"weight_decay value": weight_decay})
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, [])
                for key in ("eta", "mu"):
                    if len(p_state) != 0 and not hasattr(p_state[key], "_data"):
                        p_state[key] = creation.tensor(p_state[key], dtype=_scalar_dtype())

    def _init_group(self, group, params, grads, mus, axs, etas, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                state["eta"] = creation.tensor(_to_float(group["lr"]), dtype=_scalar_dtype())
                state["mu"] = _scalar_state(1.0)
                state["ax"] = creation.zeros_like(p)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            lists = ([], [], [], [], [], [])
            self._init_group(group, *lists)
            params, grads, mus, axs, etas, steps = lists
            asgd(params, grads, axs, mus, etas, steps, lambd=group["lambd"], lr=group["lr"], t0=group["t0"],
                 alpha=group["alpha"], weight_decay=group["weight_decay"], maximize=group["maximize"],
                 foreach=group["foreach"])
        return loss


def _as_dtype(t, dtype):
    """A 0-dim state tensor's value in dtype (a 0-dim operand is cast to the tensor's dtype, as ATen does)."""
    return t._data.astype(dtype)[()]


def asgd(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize, foreach=None,
         **_unused):
    """Functional ASGD: param *= 1 - lambd * eta; param -= eta * grad; ax += (param - ax) * mu (or ax = param
    while mu is 1); then eta = lr / (1 + lambd * lr * step) ** alpha and mu = 1 / max(1, step - t0).
    foreach=True is torch's multi-tensor formulation (rounded differently): param -= eta * (grad + lambd * param),
    ax += (param - ax) * mu always (foreach=None picks the single-tensor path on CPU, as torch does)."""
    lr = _to_scalar(lr)
    if foreach:
        return _asgd_multi_tensor(params, grads, axs, mus, etas, state_steps, lambd=lambd, lr=lr, t0=t0,
                                  alpha=alpha, weight_decay=weight_decay, maximize=maximize)
    for i, param in enumerate(params):
        pd = param._data
        grad = grad_array(grads[i], pd, maximize)
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        eta_value = eta.item()
        mul_(pd, 1 - lambd * eta_value)
        add_(pd, grad, -eta_value)
        bump(param, param)
        if mu.item() != 1:
            diff = np.subtract(pd, ax._data, out=np.empty_like(pd))
            np.multiply(diff, _as_dtype(mu, diff.dtype), out=diff)
            np.add(ax._data, diff, out=ax._data)
        else:
            np.copyto(ax._data, pd)
        bump(ax)
        step = step_t.item()
        if isinstance(lr, np.generic):      # a Tensor lr: torch computes eta with 0-dim tensor operations
            eta._data[...] = lr / _pow(1 + lambd * lr * step, alpha)
        else:
            eta._data[...] = creation.tensor(lr / ((1 + lambd * lr * step) ** alpha))._data
        mu._data[...] = creation.tensor(1 / max(1, step - t0))._data
        bump(eta, mu)


def _asgd_multi_tensor(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize):
    """torch's _multi_tensor_asgd (non-capturable), one tensor at a time as its CPU foreach kernels run."""
    for i, param in enumerate(params):
        pd = param._data
        grad = grad_array(grads[i], pd, maximize)
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        if weight_decay != 0:
            grad = added(grad, pd, weight_decay)
        intermediate = added(grad, pd, lambd)
        fma_(pd, np.negative(intermediate), _as_dtype(eta, pd.dtype), pd)     # addcmul_(., eta, value=-1)
        bump(param)
        diff = np.subtract(pd, ax._data)
        fma_(ax._data, diff, _as_dtype(mu, pd.dtype), ax._data)               # addcmul_(diff, mu)
        bump(ax)
        eta._data[...] = _tensor_eta(step_t._data, lambd, lr, alpha)
        mu._data[...] = creation.tensor(1 / max(1, step_t.item() - t0))._data
        bump(eta, mu)


def _tensor_eta(step, lambd, lr, alpha):
    """lr / ((1 + lambd * lr * step) ** alpha) with step a 0-dim tensor, as torch evaluates it: each operation
    rounded in step's dtype, pow correctly rounded (torch's pow agrees with float64 pow rounded, measured), and
    the division as Tensor.__rtruediv__ does it: reciprocal, then times lr."""
    if isinstance(lr, np.generic):          # a Tensor lr: tensor / tensor is a plain division
        return lr / _pow(1 + lambd * lr * step[()], alpha)
    dt = step.dtype.type
    x = dt(1) + dt(lambd * lr) * step[()]
    p = _pow(x, alpha)
    return (dt(1) / p) * dt(lr)


def _pow(x, alpha):
    """A 0-dim tensor ** alpha: torch's float32 pow agrees with float64 pow rounded (measured), not with powf."""
    return type(x)(np.float64(x) ** alpha)
