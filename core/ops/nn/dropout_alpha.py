"""alpha_dropout, feature_alpha_dropout, feature_dropout and F.dropout3d: ATen's _dropout_impl
(noise.bernoulli_(1 - p) from core's generator, then the alpha affine step or the 1/(1 - p) scale)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..random import _empty_like
from ..registry import export, register
from ._util import _make
from .dropout import _bernoulli_noise
from ..random import bernoulli_

_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, feature):
    if not feature:
        return _empty_like(input, None)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    return _make(np.empty(shape, dtype=input._data.dtype))


def _dropout_impl(input, p, train, feature, alpha, inplace):
    """ATen's _dropout_impl<feature_dropout, alpha_dropout, inplace>."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input._data.size == 0:
        return input
    if p == 1:
        zero = _make(np.zeros((), dtype=input._data.dtype))
        return input.mul_(zero) if inplace else input * zero
    noise = _noise(input, feature)
    if not alpha:
        noise = _bernoulli_noise(noise, p)
        return input.mul_(noise) if inplace else input * noise
    bernoulli_(noise, 1 - p)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
    noise = noise * a
    return input.mul_(noise).add_(b) if inplace else input * noise + b


@register(category="nn", function=False)
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance: dropped elements become
    -alpha * scale, then an affine correction (AddBackward0)."""
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


@register(category="nn", function=False)
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1) (AddBackward0)."""
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)


@register(category="nn", function=False)
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, D, H, W] (or unbatched [C, D, H, W]) input with probability p,
    scaling the rest by 1/(1-p), with torch's warning for other ranks."""
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
                      stacklevel=2)
    return _feature_dropout_nd(input, p, training, inplace, batched=nd == 5)


@register(category="nn", function=False)
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, L] (or unbatched [C, L]) input with probability p, scaling the rest
    by 1/(1-p); other ranks raise torch's RuntimeError."""
    _check_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout_nd(input, p, training, inplace, batched=nd == 3)


def _feature_dropout_nd(input, p, training, inplace, batched):
    """torch's channel dropout of a batched input; an unbatched one gets a batch dim of 1 around it."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, True, False, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def _torch_variant(name, feature, alpha, inplace):
    def fn(input, p, train):
        return _dropout_impl(input, p, train, feature, alpha, inplace)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, p, train): ATen's {'feature ' if feature else ''}" \
                 f"{'alpha ' if alpha else ''}dropout{' in place' if inplace else ''}."
    return export(fn, name=name)


for _name, _feature, _alpha in (("alpha_dropout", False, True), ("feature_alpha_dropout", True, True),
                                ("feature_dropout", True, False)):
    _torch_variant(_name, _feature, _alpha, False)
    _torch_variant(_name + "_", _feature, _alpha, True)
