"""torch.native_layer_norm / native_batch_norm / native_group_norm: the F kernels' outputs plus the saved
statistics torch returns with them (mean and rstd; batch norm's save_mean / save_invstd, empty in eval
mode). The statistics carry no gradient, as in torch. The kernels are reached through the registry at call
time: shape imports this module while the reduce package is still initialising (before ops/nn)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor
from ..registry import OPS, register
from . import _rowwise_moments as _moments
from .group_norm_kernel import NativeGroupNormBackward0


def _stats(x, axes, eps, keepdims):
    """(mean, 1 / sqrt(biased var + eps)) over axes, in float64, cast to x's dtype."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.mean(axis=axes, keepdims=keepdims, dtype=np.float64)
        xc = x - (mean if keepdims else np.expand_dims(mean, axes))
        var = np.square(xc).mean(axis=axes, keepdims=keepdims)
        rstd = 1.0 / np.sqrt(var + eps)
    return Tensor._make(mean.astype(x.dtype)), Tensor._make(rstd.astype(x.dtype))


@register(category="nn")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """layer_norm's (output, mean, rstd); mean and rstd keep the normalised dims as size 1."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for '{input.dtype.name.title()}'"
                                  .replace("Int64", "Long"))
    if not isinstance(normalized_shape, int) and len(normalized_shape) == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    out = OPS["layer_norm"].fn(input, normalized_shape, weight, bias, eps)
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    x = input._data
    exact = _moments.stats(x, int(np.prod(x.shape[:x.ndim - k], dtype=np.int64)), eps)
    if exact is not None:
        kshape = x.shape[:x.ndim - k] + (1,) * k
        return out, Tensor._make(exact[0].reshape(kshape)), Tensor._make(exact[1].reshape(kshape))
    mean, rstd = _stats(x, tuple(range(x.ndim - k, x.ndim)), eps, True)
    return out, mean, rstd


@register(category="nn")
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """batch_norm's (output, save_mean, save_invstd): the batch statistics per channel when training,
    empty tensors in eval mode; the running stats are updated in place when training."""
    x = input._data
    if training and x.dtype.kind == "f" and x.ndim >= 2:
        mean, invstd = _stats(x, (0,) + tuple(range(2, x.ndim)), eps, False)
    else:
        mean = invstd = Tensor._make(np.zeros(0, dtype=x.dtype if x.dtype.kind == "f" else np.float32))
    out = OPS["batch_norm"].fn(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return out, mean, invstd


@register(category="nn")
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """group_norm's (output, mean, rstd); mean and rstd have shape (N, group)."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, but got {input.numel()}")
    _group_norm_checks(input, weight, bias, C, group)
    return _GroupNormWithStats.apply(input, weight, bias, group, eps, kernel=NativeGroupNormBackward0)


def _group_norm_checks(input, weight, bias, C, group):
    """ATen's native_group_norm checks (F.group_norm's batch-size check is Python-level: not here)."""
    shp = tuple(input.shape)
    if C % group != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shp)} and num_groups={group}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.shape[0] != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(shp)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for "
                                  f"'{input.dtype.name.title().replace('Int64', 'Long')}'")


class _GroupNormWithStats(Op):
    """One node for the three outputs (as torch's NativeGroupNormBackward0): the kernel's forward and
    backward, plus the gradients through mean (1/M per element of the group) and rstd
    (-rstd^3 (x - mean) / M)."""
    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, group, eps, kernel=None):
        ctx.kernel, x = kernel, input._data
        n = x.shape[0]
        if x.size == 0:
            ctx.empty = True
            return x.copy(), np.zeros((n, group), x.dtype), np.zeros((n, group), x.dtype)
        ctx.empty = False
        out = kernel.forward(ctx, input, weight, bias, group, eps)
        if ctx.stats is not None:       # the kernel's own mean and rstd (either memory format)
            return out, ctx.stats[0], ctx.stats[1]
        x = x.reshape(n, group, x.size // (n * group))
        mean, rstd = _stats(x, (2,), eps, False)
        return out, mean._data, rstd._data

    @staticmethod
    def backward(ctx, g, g_mean=None, g_rstd=None):
        if ctx.empty:
            return g, None, None, None, None
        gi, gw, gb, _, _ = ctx.kernel.backward(ctx, g)
        if (g_mean is not None or g_rstd is not None) and gi is not None:
            x = ctx.saved_tensors[0]
            group, eps = ctx.meta[0], ctx.meta[1]
            xg = x.reshape(x.shape[0], group, -1)
            m = xg.shape[-1]
            mean = xg.mean(-1, keepdim=True)
            extra = xg * 0
            if g_mean is not None:
                extra = extra + g_mean.unsqueeze(-1) / m
            if g_rstd is not None:
                rstd = ((xg - mean) * (xg - mean)).mean(-1, keepdim=True).add(eps).rsqrt()
                extra = extra - rstd ** 3 * (xg - mean) / m * g_rstd.unsqueeze(-1)
            gi = gi + extra.reshape(x.shape)
        return gi, gw, gb, None, None


_GroupNormWithStats.__name__ = _GroupNormWithStats.__qualname__ = "NativeGroupNormBackward0"
