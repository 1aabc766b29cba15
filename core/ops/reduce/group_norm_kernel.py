"""group_norm's kernel node, NativeGroupNormBackward0: ATen's RowwiseMoments statistics per (sample, group), then
the per-channel scale and shift; its backward in core ops. It lives in reduce/ because both F.group_norm
(ops/nn/norm.py) and torch.native_group_norm (reduce/native_norms.py) run it, and reduce is imported first."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from . import _rowwise_moments as _moments


class NativeGroupNormBackward0(Op):
    """Normalise each (sample, group of C/G channels) over its channels and positions, then scale and
    shift per channel."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, groups, eps):
        x = input._data
        n, c = x.shape[:2]
        if x.size == 0:   # an empty batch: an empty result (and gradients), as PyTorch
            out = x.copy()
        elif (exact := _moments.group_norm(x, groups, eps, None if weight is None else weight._data,
                                           None if bias is None else bias._data)) is not None:
            ctx.save_for_backward(input, weight)
            ctx.meta = (groups, eps, (1, c) + (1,) * (x.ndim - 2))
            return exact
        else:
            xg = x.reshape(n, groups, -1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = xg.mean(-1, keepdims=True, dtype=np.float64)
                xc = xg - mean.astype(x.dtype)
                rstd = (1.0 / np.sqrt(np.square(xc, dtype=np.float64).mean(-1, keepdims=True) + eps)).astype(x.dtype)
            out = (xc * rstd).reshape(x.shape)
        cshape = (1, c) + (1,) * (x.ndim - 2)
        if weight is not None:
            out = out * weight._data.reshape(cshape)
        if bias is not None:
            out = out + bias._data.reshape(cshape)
        ctx.save_for_backward(input, weight)
        ctx.meta = (groups, eps, cshape)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        groups, eps, cshape = ctx.meta
        need = ctx.needs_input_grad
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
