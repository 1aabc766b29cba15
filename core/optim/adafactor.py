"""Adafactor (torch.optim.Adafactor), following torch's single-tensor implementation (the CPU default):
factored second moments (row_var / col_var) for matrices, a full `variance` for vectors, relative step sizes.

Its L2 norms are added in the order of ATen's CPU norm kernel (ReduceOpsKernel.cpp, p=2 over a contiguous last
dim): 8 float32 (4 float64) lanes of squares accumulated without FMA, the lanes folded left to right, then the
tail: groups of 4 squared and added in order (the compiler's in-order vectorisation), the last 1-3 elements by
one FMA each; one correctly rounded sqrt. A norm over dim -2 is a plain row-by-row sum of squares."""
from __future__ import annotations

import numpy as np

from .. import creation
from ..autograd.grad_mode import no_grad
from .._sum_order import torch_sum
from ._exact import fma64_, narrow_
from ._kernels import add_, bump, grad_array, lerp_, mul_, scal
from .optimizer import Optimizer, _restore_group_defaults, _run_closure, _scalar_state, _to_scalar

__all__ = ["Adafactor", "adafactor"]

_F64 = np.float64


class Adafactor(Optimizer):
    """Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *, foreach=None,
    maximize=False)."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        checks = ((0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                  (0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
                  (eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}"),
                  (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
                  (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
                  (0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}"))
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _restore_group_defaults(self, foreach=None)

    def _init_group(self, group, params, grads, row_vars, col_vars, variances, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            params.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state()
                g = p._grad
                if g.dim() > 1:
                    state["row_var"] = g.new_zeros(list(g.shape[:-1]) + [1])
                    state["col_var"] = g.new_zeros(list(g.shape[:-2]) + [1, g.shape[-1]])
                else:
                    state["variance"] = creation.zeros_like(g)
            row_vars.append(state.get("row_var", None))
            col_vars.append(state.get("col_var", None))
            variances.append(state.get("variance", None))
            state_steps.append(state["step"])
        return False

    def step(self, closure=None):
        """Perform a single optimization step (under no_grad); returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                lists = ([], [], [], [], [], [])
                self._init_group(group, *lists)
                eps1, eps2 = group["eps"]
                adafactor(*lists, d=group["d"], lr=group["lr"], beta2_decay=group["beta2_decay"],
                          weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2, maximize=group["maximize"],
                          foreach=group["foreach"])
        return loss


def _sq_norm_lastdim(x):
    """Sum of squares of x over its last axis in ATen's lastdim norm order (module docstring)."""
    dt = x.dtype
    lanes = 32 // x.itemsize
    n = x.shape[-1]
    nb = n // lanes
    if nb:
        sq = np.square(x[..., :nb * lanes]).reshape(x.shape[:-1] + (nb, lanes))
        acc = np.add.reduce(sq, axis=-2) if nb > 1 else sq[..., 0, :]     # a left fold over a non-inner axis
        buf = np.add.accumulate(acc, axis=-1)[..., -1]
    else:
        buf = np.zeros(x.shape[:-1], dt)
    d = nb * lanes
    while n - d >= 4:
        for k in range(d, d + 4):
            buf = buf + np.square(x[..., k])
        d += 4
    for k in range(d, n):                   # fma(v, v, buf), rounded once
        v = np.array(x[..., k])          # (ascontiguousarray would make a 0-d array 1-d)
        if dt == np.float32:
            c = np.array(buf, np.float32).reshape(-1)
            vf = v.reshape(-1)
            s = np.square(vf.astype(_F64)) + c
            buf = narrow_(np.empty_like(c), s, vf, vf, c, np.empty(s.size, np.uint64), np.empty(s.size, np.bool_))
            buf = buf.reshape(v.shape)
        else:
            buf = fma64_(np.empty(v.shape), v, v, buf)
    return np.asarray(buf, dt)


def _norm_lastdim(x):
    """torch.norm(x, dim=-1, keepdim=True) for a C-contiguous x."""
    return np.sqrt(_sq_norm_lastdim(x))[..., None]


def _norm_all(x):
    """x.norm(2) as a Python float (x's elements in memory order, as TensorIterator coalesces a dense tensor)."""
    return float(np.sqrt(_sq_norm_lastdim(x.ravel(order="K"))))


def _norm_dim_m2(x):
    """torch.norm(x, dim=-2, keepdim=True): squares added row by row, then one sqrt."""
    acc = np.square(x[..., 0:1, :])
    for i in range(1, x.shape[-2]):
        acc = acc + np.square(x[..., i:i + 1, :])
    return np.sqrt(acc)


def _mean_dim_m2(x):
    """x.mean(dim=-2, keepdim=True): torch's sum order (core._sum_order), then a division by the count."""
    s = torch_sum(x, (x.ndim - 2,))
    if s is None:
        s = np.add.reduce(x, axis=-2)
    s = np.asarray(s, x.dtype).reshape(x.shape[:-2] + (1,) + x.shape[-1:])
    return np.divide(s, scal(x.dtype, x.shape[-2]))


def _var_estimate(grad, row_var, col_var, one_minus_beta2_t, eps1):
    """Factored second moment: lerp row / column mean squares into row_var / col_var, then
    (row_var @ col_var) / clamp(row_var.mean(-2), min=eps1)."""
    dt = grad.dtype
    g = np.ascontiguousarray(grad)
    row_mean = np.divide(np.square(_norm_lastdim(g)), scal(dt, g.shape[-1]))
    lerp_(row_var._data, row_mean, one_minus_beta2_t)
    col_mean = np.divide(np.square(_norm_dim_m2(g)), scal(dt, g.shape[-2]))
    lerp_(col_var._data, col_mean, one_minus_beta2_t)
    bump(row_var, col_var)
    var_estimate = np.multiply(row_var._data, col_var._data)      # an outer product: one rounding each
    denom = np.maximum(_mean_dim_m2(row_var._data), scal(dt, eps1))
    return np.divide(var_estimate, denom, out=var_estimate)


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, *, d, lr, beta2_decay, weight_decay, eps1,
              eps2, maximize, foreach=None, **_unused):
    """Functional Adafactor (torch.optim._adafactor, single-tensor path; foreach=True rounds the last update as
    torch's multi-tensor path does, which otherwise computes the same)."""
    lr = _to_scalar(lr)     # a Tensor lr makes rho_t, alpha and the decay factor 0-dim float32 values, as in torch
    for i, param in enumerate(params):
        pd = param._data
        grad = grad_array(grads[i], pd, maximize)
        step_t = state_steps[i]
        e1 = float(np.finfo(pd.dtype).eps) if eps1 is None else eps1
        step_t._data[...] = step_t._data + 1
        bump(step_t)
        step_float = step_t.item()
        one_minus_beta2_t = step_float ** beta2_decay
        rho_t = min(lr, 1 / (step_float ** 0.5))
        alpha = max(eps2, _norm_all(pd) / (pd.size ** 0.5)) * rho_t
        if weight_decay != 0:
            mul_(pd, 1 - lr * weight_decay)
            bump(param)
        if grad.ndim > 1:
            var_estimate = _var_estimate(grad, row_vars[i], col_vars[i], one_minus_beta2_t, e1)
        else:
            variance = variances[i]
            lerp_(variance._data, np.multiply(grad, grad), one_minus_beta2_t)
            bump(variance)
            var_estimate = variance._data.copy()
        dt = var_estimate.dtype
        update = np.maximum(var_estimate, scal(dt, e1 * e1), out=var_estimate)
        np.divide(scal(dt, 1), np.sqrt(update, out=update), out=update)          # rsqrt: 1 / sqrt, rounded twice
        np.multiply(update, grad, out=update)
        denom = max(1.0, _norm_all(update) / ((update.size ** 0.5) * d))
        if foreach:                         # torch's multi-tensor tail: updates *= -alpha / denom; params += updates
            np.multiply(update, scal(dt, -alpha / denom), out=update)
            np.add(pd, update, out=pd, casting="unsafe")
        else:
            add_(pd, update, -alpha / denom)
        bump(param)
