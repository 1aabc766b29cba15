"""Activations with a weight or noise: prelu (PreluKernelBackward0) and rrelu (RreluWithNoiseBackward0,
its slopes drawn from core's generator exactly as ATen's rrelu_with_noise draws them)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...random import gen_or_default
from .. import random_kernels as K
from ... import dtypes as _dt
from ..pointwise import where
from ..registry import export, register
from ._util import _make, _short, _torch_name
from .activation import _inplace_apply


class PreluKernelBackward0(Op):
    """where(x > 0, x, w * x) with w already shaped to broadcast over x."""

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        x, w = input._data, weight._data
        return np.where(x > 0, x, w * x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        d, dt = x._data, x._data.dtype
        pos = _make((d > 0).astype(dt))
        # x <= 0 (and NaN) takes the slope; at x == 0 neither gradient depends on x or w (torch's double backward)
        neg = _make(d < 0)
        gx = g * where(neg, w, pos + (1 - pos) * w.detach())
        return gx, g * where(neg, x, x.detach() * (1 - pos))


@register(category="nn", methods=("prelu",))
def prelu(input, weight):
    """x if x > 0 else weight * x, weight per channel (dim 1) or a single one (PreluKernelBackward0)."""
    nd, wn = input._data.ndim, weight._data.size
    if wn != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        c = input._data.shape[1] if nd > 1 else 1
        if c != wn:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {wn} "
                               f"and channel size = {c}.")
    if weight._data.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight._data.ndim}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_short(input.dtype)} and "
                           f"{_short(weight.dtype)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_short(input.dtype)}'")
    w = weight
    if nd != weight._data.ndim:
        shape = [1] * nd
        if nd > 1:
            shape[1] = wn
        w = weight.reshape(shape)
    return PreluKernelBackward0.apply(input, w)


class RreluWithNoiseBackward0(Op):
    """x * noise, noise = 1 where x > 0 and a slope (drawn, or (lower + upper) / 2 in eval) elsewhere."""

    @staticmethod
    def forward(ctx, input, lower, upper, training, generator):
        x = input._data
        neg = x <= 0
        if training:   # draws even when lower == upper (torch's stream advances)
            flat = neg.ravel()
            # at::uniform_real_distribution<double>(lower, upper), the bounds first rounded to the op's math type
            # (float for float32): 53 random bits * 2**-53 * (upper - lower) + lower, unfused
            lo, hi = (float(x.dtype.type(lower)), float(x.dtype.type(upper))) if x.dtype != np.float16 else \
                (float(np.float32(lower)), float(np.float32(upper)))
            u = K.unit(gen_or_default(generator), int(flat.sum()), _dt.float64) * (hi - lo) + lo
            noise = np.ones(x.size, dtype=x.dtype)
            noise[flat] = u.astype(x.dtype)
            noise = noise.reshape(x.shape)
        else:
            slope = x.dtype.type((lower + upper) / 2)
            noise = np.where(x > 0, x.dtype.type(1), slope).astype(x.dtype)
        ctx.noise = noise
        return (np.where(neg, x * noise, x)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        return g * _make(ctx.noise)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """rrelu_ (in place) node."""


def _rrelu(input, lower, upper, training, inplace, generator=None):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if input._data.dtype.kind != "f":
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")
    if inplace:
        return _inplace_apply(input, RreluWithNoiseBackward1, lower, upper, training, generator)
    return RreluWithNoiseBackward0.apply(input, lower, upper, training, generator)


@register(category="nn", function=False)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x if x >= 0 else a * x, a ~ U(lower, upper) per element in training, (lower + upper) / 2 otherwise
    (RreluWithNoiseBackward0; the draws follow torch's CPU generator)."""
    return _rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """F.rrelu_: rrelu in place."""
    return _rrelu(input, lower, upper, training, True)


@export(name="rrelu")
@_torch_name
def torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu(input, lower, upper, training, generator)."""
    return _rrelu(input, lower, upper, training, False, generator)


@export(name="rrelu_")
@_torch_name
def torch_rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu_(...): rrelu in place."""
    return _rrelu(input, lower, upper, training, True, generator)
