"""torch.nn.utils.weight_norm (deprecated, hook-based): module.<name> is recomputed before every forward
from parameters <name>_g (magnitude, norm over all dims but `dim`) and <name>_v (direction)."""
from __future__ import annotations

import warnings

from ... import dtypes
from ...autograd.grad_mode import no_grad
from ...autograd.node import Op
from ...ops.registry import FUNCTIONS
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _sum_except(x, dim):
    dims = [d for d in range(x.dim()) if d != dim]
    return x.sum(dims, keepdim=True) if dims else x


class WeightNormInterfaceBackward0(Op):
    """ATen's fused _weight_norm_interface (dim 0 or the last dim): w = v * (g / ||v||), the norm over
    every dim but `dim`; backward grad_g = sum(grad * v) / norm, grad_v = g / norm * (grad - v * grad_g / norm),
    differentiable as ATen's _weight_norm_differentiable_backward (the norms held constant)."""

    @staticmethod
    def forward(ctx, v, g, dim):
        ctx.dim = dim
        ctx.save_for_backward(v, g)
        with no_grad():
            return (v * (g / FUNCTIONS["norm_except_dim"](v, 2, dim)))._data

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        # ATen saves the norms as the op's second output, whose gradient the formula ignores: in a double
        # backward they are constants
        norm = FUNCTIONS["norm_except_dim"](v.detach(), 2, ctx.dim)
        grad_g = _sum_except(grad * v, ctx.dim) / norm
        grad_v = (g / norm) * (grad - v * (grad_g / norm))
        return grad_v, grad_g


def _weight_norm(v, g, dim=0):
    """torch._weight_norm: v * (g / norm_except_dim(v, 2, dim)); fused (grad_fn WeightNormInterfaceBackward0)
    for dim 0 or the last dim of a float32/float64 v, a composite (MulBackward0) otherwise, as ATen."""
    if (dim == 0 or dim == v.dim() - 1) and v.dtype in (dtypes.float32, dtypes.float64) \
            and g.dtype in (dtypes.float32, dtypes.float64):
        return WeightNormInterfaceBackward0.apply(v, g, dim)
    return v * (g / FUNCTIONS["norm_except_dim"](v, 2, dim))


class WeightNorm:
    """The forward pre-hook that sets module.<name> = _weight_norm(<name>_v, <name>_g, dim)."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(FUNCTIONS["norm_except_dim"](weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace module.<name> by <name>_g * <name>_v / ||<name>_v|| (FutureWarning: use
    torch.nn.utils.parametrizations.weight_norm)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold the weight-norm hook back into a plain parameter <name>."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
