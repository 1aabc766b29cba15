"""torch.optim.swa_utils: stochastic weight averaging and EMA of a model's parameters (AveragedModel with its
long `n_averaged` buffer), the averaging functions, SWALR and update_bn, mirroring torch/optim/swa_utils.py on
CPU (where torch's foreach kernels are not used: the default average is avg + (p - avg) / (n + 1) per tensor)."""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import numpy as np

from .. import creation, dtypes
from ..autograd.grad_mode import no_grad
from ..nn.module import Module
from ..nn.modules.batchnorm import _BatchNorm
from ..tensor import Tensor
from ._kernels import bump, lerp_
from ._lr_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


def _lerp_(tensor, end, weight):
    """tensor.lerp_(end, weight) with ATen's rounding (the optimizers' FMA-exact kernel) for float32 / float64."""
    if tensor._data.dtype in (np.float32, np.float64) and end._data.dtype == tensor._data.dtype:
        lerp_(tensor._data, np.broadcast_to(end._data, tensor._data.shape), weight)
        bump(tensor)
    else:
        tensor.lerp_(end, weight)


def get_ema_multi_avg_fn(decay=0.999):
    """A multi_avg_fn for AveragedModel: ema.lerp_(p, 1 - decay) for floating tensors (torch's _foreach_lerp_),
    ema = ema * decay + p * (1 - decay) otherwise."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if _is_float(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    _lerp_(p_ema, p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """A multi_avg_fn for AveragedModel: the running mean avg.lerp_(p, 1 / (n + 1)) for floating tensors,
    avg += (p - avg) / (n + 1) otherwise."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if _is_float(averaged_param_list[0]):
                weight = 1 / (num_averaged + 1)
                weight = weight.item() if isinstance(weight, Tensor) else weight   # a Scalar argument in torch
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    _lerp_(p_avg, p_model, weight)
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, Tensor):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An avg_fn for AveragedModel: decay * ema + (1 - decay) * p."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """An avg_fn for AveragedModel: avg + (p - avg) / (n + 1)."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False): a deep copy of
    model whose parameters (and buffers, with use_buffers) update_parameters() averages; n_averaged counts the
    updates (a long buffer, in the state_dict). Without use_buffers the copy's buffers follow the model's."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", creation.tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged copy."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold model's current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        self_detached, model_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_averaged.device)
                self_detached.append(p_averaged.detach())
                model_detached.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)
            if self.n_averaged > 0:
                self._average(self_detached, model_detached)
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1

    def _average(self, self_detached, model_detached):
        """torch's branches: multi_avg_fn per (device, dtype) group, else the per-tensor CPU SWA average, else
        avg_fn per tensor."""
        if self.multi_avg_fn is not None or self.avg_fn is None:
            groups = {}
            for a, m in zip(self_detached, model_detached):
                pair = groups.setdefault((str(a.device), a.dtype), ([], []))
                pair[0].append(a)
                pair[1].append(m)
            for self_params, model_params in groups.values():
                if self.multi_avg_fn:
                    self.multi_avg_fn(self_params, model_params, self.n_averaged)
                else:
                    avg_fn = get_swa_avg_fn()
                    for p_averaged, p_model in zip(self_params, model_params, strict=True):
                        p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
        else:
            for p_averaged, p_model in zip(self_detached, model_detached, strict=True):
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))


def update_bn(loader, model, device=None):
    """Recompute the BatchNorm running statistics of model with one pass over loader (cumulative average:
    momentum None), restoring each module's momentum and the model's training mode."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos', last_epoch=-1): anneals each group's lr
    to its swa_lr over anneal_epochs (cosine or linear), then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The next learning rates: swa_lr * alpha + lr_0 * (1 - alpha), lr_0 recovered from the current lr."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """Every attribute except the optimizer and the anneal function."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
