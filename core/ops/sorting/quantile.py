"""quantile, nanquantile: composed from core ops as PyTorch's quantile_impl, so gradients follow."""
from __future__ import annotations

import numpy as np

from ...creation import full_like
from ...tensor import Tensor, _wrap_dim
from ..registry import register
from ._select import _out1
from .sort import sort


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _broadcast_pair(x, y):
    """torch.broadcast_tensors of two tensors (expanded views)."""
    shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    return x.expand(shape), y.expand(shape)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    if not isinstance(q, Tensor):
        q = float(q)
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if not isinstance(q, Tensor):
        q = Tensor._make(np.asarray(q, dtype=input._data.dtype if input._data.dtype.kind == "f" else np.float32))
    nd = input._data.ndim
    d = _wrap_dim(0 if dim is None else dim, nd)
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q._data.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if dim is not None and nd > 0:
        out_shape = list(input._data.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    elif keepdim:
        out_shape = [1] * nd
    else:
        out_shape = []
    if q._data.ndim > 0:
        out_shape.insert(0, q._data.size)
    if not ((q._data >= 0) & (q._data <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        srt = sort(input.flatten()).values
    elif d == nd - 1:
        srt = sort(input).values
    else:
        srt = sort(input.unsqueeze(-1).transpose(d, -1)).values
    if q._data.ndim == 0:
        out_shape.insert(0, 1)
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = srt.shape[-1]
    srt = srt.view(in_shape)
    if srt.shape[-1] > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        ranks = q * (srt.isnan().logical_not().sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last = srt.shape[-1] - 1
        a, b = _broadcast_pair(q * last, srt.isnan().any(-1, True))
        ranks = a.masked_fill(b, last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = ranks.ceil().long()
        values = values.lerp(srt.gather(-1, above), weights)
    if q._data.ndim == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


@register(category="sorting", methods=("quantile",))
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """q-th quantiles along dim (all elements if None) with linear/lower/higher/midpoint/nearest interpolation."""
    return _out1(_quantile(input, q, dim, keepdim, interpolation, False), out)


@register(category="sorting", methods=("nanquantile",))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaN (NaN where a slice is all NaN)."""
    return _out1(_quantile(input, q, dim, keepdim, interpolation, True), out)
