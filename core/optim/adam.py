"""Adam and AdamW (torch.optim.Adam / AdamW), following torch's single-tensor (foreach=False) implementation:
bias corrections in Python floats, state tensors exp_avg / exp_avg_sq / max_exp_avg_sq and a 0-dim step."""
from __future__ import annotations

import numpy as np

from .. import creation
from ..tensor import Tensor
from . import _kernels as K
from ._kernels import added, addcmul_, bump, lerp_, mul_
from .optimizer import Optimizer, _run_closure, _scalar_dtype, _to_float, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adam", "AdamW", "adam"]

_F32 = np.dtype(np.float32)


class Adam(Optimizer):
    """Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
    maximize=False, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=False)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = creation.tensor(float(p_state["step"]), dtype=_scalar_dtype())

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
        for p in group["params"]:
            if p._grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p._grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0, dtype=_scalar_dtype())
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_avg_sq"] = creation.zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = creation.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps)
            adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, ...):
    Adam with decoupled weight decay (param *= 1 - lr * weight_decay before the Adam update)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1, beta2, lr,
         weight_decay, eps, maximize, decoupled_weight_decay=False, **_unused):
    """Functional Adam update (torch.optim.adam.adam, single-tensor path, the CPU default): exp_avg.lerp_(grad,
    1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2); denom = sqrt(v) / sqrt(bc2) + eps;
    param.addcdiv_(exp_avg, denom, -lr / bc1)."""
    lr, beta1, beta2 = _to_scalar(lr), _to_float(beta1), _to_float(beta2)
    weight_decay = _to_float(weight_decay)
    for i, param in enumerate(params):
        pd = param._data
        grad = K.grad_array(grads[i], pd, maximize)
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]

        step_t._data[...] = step_t._data + 1
        bump(step_t)

        if weight_decay != 0:
            if decoupled_weight_decay:
                mul_(pd, 1 - lr * weight_decay)
                bump(param)
            else:
                grad = added(grad, pd, weight_decay)

        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5

        ma, va = exp_avg._data, exp_avg_sq._data
        if (not amsgrad and pd.dtype == _F32 and grad.dtype == _F32 and ma.dtype == _F32 and va.dtype == _F32
                and 0 < pd.size <= K.CHUNK and pd.flags.c_contiguous and grad.flags.c_contiguous
                and ma.flags.c_contiguous and va.flags.c_contiguous and grad.shape == ma.shape == va.shape == pd.shape):
            # the common float32 parameter: the same kernels' arithmetic in one call
            K.adam_step32_(pd, grad, ma, va, 1 - beta1, beta2, 1 - beta2, bias_correction2_sqrt, eps, step_size)
            bump(exp_avg, exp_avg_sq, exp_avg_sq, param)  # lerp_; mul_ and addcmul_; addcdiv_
            continue
        lerp_(ma, grad, 1 - beta1)
        mul_(va, beta2)
        addcmul_(va, grad, grad, 1 - beta2)
        bump(exp_avg, exp_avg_sq, exp_avg_sq)  # lerp_; mul_ and addcmul_

        if amsgrad:
            mx = max_exp_avg_sqs[i]
            np.maximum(mx._data, exp_avg_sq._data, out=mx._data)
            bump(mx)
            v = mx._data
        else:
            v = exp_avg_sq._data
        K.adam_update_(pd, exp_avg._data, v, bias_correction2_sqrt, eps, step_size)
        bump(param)
