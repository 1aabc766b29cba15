"""group_norm's kernel node, NativeGroupNormBackward0: ATen's CPU kernels, picked as torch picks them by
input.suggest_memory_format(). Contiguous: RowwiseMoments statistics per (sample, group), then the per-channel
scale and shift (_rowwise_moments.group_norm), backward GroupNormBackwardKernelImplInternal
(_group_norm_backward); channels last (channels_last / channels_last_3d strides): both directions in
_group_norm_channels_last, output and input gradient channels last. float32 / float64 bit for bit with torch's
AVX2 build; other dtypes (and the DEFAULT build) in core ops. It lives in reduce/ because both F.group_norm
(ops/nn/norm.py) and torch.native_group_norm (reduce/native_norms.py) run it, and reduce is imported first."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from . import _group_norm_backward as _backward
from . import _group_norm_channels_last as _channels_last
from . import _rowwise_moments as _moments


def _kernel_forward(x, groups, eps, weight, bias):
    """(out, mean (N, G), rstd (N, G)) as ATen's kernel for x's memory format, or None when not modelled."""
    if not _moments._modelled(x.dtype):
        return None
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if _channels_last.is_channels_last(x):
            return _channels_last.forward(x, groups, eps, weight, bias)
        return _moments.group_norm(x, groups, eps, weight, bias)


class NativeGroupNormBackward0(Op):
    """Normalise each (sample, group of C/G channels) over its channels and positions, then scale and
    shift per channel."""

    grads_per_arg = True
    contiguous_output = False   # a channels-last input gives a channels-last output, as in torch

    @staticmethod
    def forward(ctx, input, weight, bias, groups, eps):
        x = input._data
        n, c = x.shape[:2]
        cshape = (1, c) + (1,) * (x.ndim - 2)
        ctx.save_for_backward(input, weight)
        ctx.meta = (groups, eps, cshape)
        ctx.stats = None
        if x.size == 0:   # an empty batch: an empty result (and gradients), as PyTorch
            return x.copy()
        exact = _kernel_forward(x, groups, eps, None if weight is None else weight._data,
                                None if bias is None else bias._data)
        if exact is not None:
            out, mean, rstd = exact
            ctx.stats = (mean.reshape(n, groups), rstd.reshape(n, groups))
            return out
        xg = x.reshape(n, groups, -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = xg.mean(-1, keepdims=True, dtype=np.float64)
            xc = xg - mean.astype(x.dtype)
            rstd = (1.0 / np.sqrt(np.square(xc, dtype=np.float64).mean(-1, keepdims=True) + eps)).astype(x.dtype)
        out = (xc * rstd).reshape(x.shape)
        if weight is not None:
            out = out * weight._data.reshape(cshape)
        if bias is not None:
            out = out + bias._data.reshape(cshape)
        return np.ascontiguousarray(out, dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        groups, eps, cshape = ctx.meta
        need = ctx.needs_input_grad
        if ctx.stats is not None and not STATE.grad_enabled:     # create_graph: the differentiable formula below,
            mean, rstd = ctx.stats                               # as torch's infinitely_differentiable backward
            xd, wd = x._data, None if w is None else w._data
            kernel = _channels_last if _channels_last.is_channels_last(xd) else _backward
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                gi, gw, gb = kernel.backward(g._data, xd, mean, rstd, wd, groups, need)
            return (*(None if a is None else Tensor._make(a) for a in (gi, gw, gb)), None, None)
        n = x.shape[0]
        xg = x.reshape(n, groups, x.numel() // max(n * groups, 1))   # -1 cannot be inferred for n == 0
        mean = xg.mean(-1, keepdim=True)
        rstd = ((xg - mean) * (xg - mean)).mean(-1, keepdim=True).add(eps).rsqrt()
        xhat = (xg - mean) * rstd
        axes = (0,) + tuple(range(2, x.dim()))
        gi = gw = gb = None
        if need[0]:
            gxhat = (g * w.reshape(cshape) if w is not None else g).reshape(xg.shape)
            gi = ((gxhat - gxhat.mean(-1, keepdim=True) - xhat * (gxhat * xhat).mean(-1, keepdim=True)) * rstd)
            gi = gi.reshape(x.shape)
        if len(need) > 1 and need[1]:
            gw = (g * xhat.reshape(x.shape)).sum(axes)
        if len(need) > 2 and need[2]:
            gb = g.sum(axes)
        return gi, gw, gb, None, None
