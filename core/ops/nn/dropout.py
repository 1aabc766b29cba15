"""F.dropout: input * noise (MulBackward0), the mask drawn from core's default generator."""
from __future__ import annotations

import warnings

import numpy as np

from ..random import _empty_like, bernoulli_
from ..registry import export, register
from ._util import _make, _torch_name


@register(category="nn", function=False)
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (input * noise: MulBackward0);
    returns input itself when not training or p == 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input._data.size == 0:
        return input
    if p == 1:
        noise = _make(np.zeros((), dtype=input._data.dtype))
    else:
        noise = _bernoulli_noise(_empty_like(input, None), p)
    return input.mul_(noise) if inplace else input * noise


def _bernoulli_noise(noise, p):
    """ATen's _dropout_impl: `noise.bernoulli_(1 - p); noise.div_(1 - p)` (the divisor in noise's dtype)."""
    bernoulli_(noise, 1 - p)
    dt = noise._data.dtype
    noise._data = (noise._data / dt.type(1 - p)).astype(dt, copy=False)
    return noise


@export(name="dropout")
@_torch_name
def torch_dropout(input, p, train):
    """torch.dropout(input, p, train): F.dropout's kernel under torch's positional signature."""
    return dropout(input, p, train)


def _feature_noise(input, p):
    """[N, C, 1, ...] keep mask / (1 - p): whole channels are dropped (torch's feature_dropout)."""
    dt = input._data.dtype
    shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    if p == 1:
        return _make(np.zeros(shape, dtype=dt))
    return _bernoulli_noise(_make(np.empty(shape, dtype=dt)), p)


@register(category="nn", function=False)
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, H, W] input with probability p, scaling the rest by 1/(1-p)
    (input * noise: MulBackward0); 3-D input is taken as [N, C, L], with torch's warnings."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
                      stacklevel=2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    if p == 0 or not training or input._data.size == 0:
        return input
    noise = _feature_noise(input, p)
    return input.mul_(noise) if inplace else input * noise


@export(name="dropout_")
def torch_dropout_(input, p, train):
    """torch.dropout_(input, p, train): in-place dropout (F.dropout(..., inplace=True)); returns input."""
    return dropout(input, p, train, inplace=True)
