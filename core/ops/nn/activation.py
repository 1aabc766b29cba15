"""nn activations: leaky_relu, gelu (Ops) and F.relu / sigmoid / tanh (wrappers of the pointwise ops)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ..inplace import check_inplace, rebase, snapshot, write_result
from ..registry import register
from ._util import _make, _short

_X = "'[[-1.5,0,2]]'"

def relu(input, inplace=False):
    """max(input, 0) elementwise (ReluBackward0)."""
    return input.relu_() if inplace else input.relu()


def relu_(input):
    """In-place relu (F.relu_)."""
    return input.relu_()


def sigmoid(input):
    """1 / (1 + exp(-input)) (SigmoidBackward0)."""
    return input.sigmoid()


def tanh(input):
    """tanh(input) (TanhBackward0)."""
    return input.tanh()


class LeakyReluBackward0(Op):
    @staticmethod
    def forward(ctx, input, negative_slope):
        x = input._data
        ctx.save_for_backward(input)
        ctx.slope = negative_slope
        return np.where(x > 0, x, x * np.asarray(negative_slope, dtype=x.dtype)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d = x._data
        # the derivative is piecewise constant, so a constant mask keeps double backward exact
        return g * _make(np.where(d > 0, 1, ctx.slope).astype(d.dtype))


class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu_ (in place) node."""


@register(category="nn", function=False, cli=True, cli_params={"inplace": "skip"},
          cli_example=f"tensorcli leaky-relu {_X} --negative-slope 0.1")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x (LeakyReluBackward0)."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{_short(input.dtype)}'")
    if not inplace:
        return LeakyReluBackward0.apply(input, negative_slope)
    check_inplace(input)
    recorded = STATE.grad_enabled and input._requires_grad
    r = LeakyReluBackward1.apply(snapshot(input) if recorded else input, negative_slope)
    write_result(input, r, "leaky_relu_")
    if recorded:
        rebase(input, r)
    return input


def _erf(a):
    return np.vectorize(math.erf, otypes=[np.float64])(a) if a.size else a.astype(np.float64)


class GeluBackward0(Op):
    @staticmethod
    def forward(ctx, input, approximate):
        ctx.save_for_backward(input)
        ctx.approximate = approximate
        x = input._data.astype(np.float64)
        if approximate == "tanh":
            y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        else:
            y = 0.5 * x * (1 + _erf(x / math.sqrt(2)))
        return y.astype(input._data.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            inner = (x + x * x * x * 0.044715) * k
            t = inner.tanh()
            dinner = (x * x * (3 * 0.044715) + 1) * k
            return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner)
        cdf = 0.5 * (1 + (x * (1 / math.sqrt(2))).erf())
        pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
        return g * (cdf + x * pdf)


@register(category="nn", function=False, cli=True, cli_example=f"tensorcli gelu {_X} --approximate tanh")
def gelu(input, approximate="none"):
    """x * Phi(x) (exact, or the tanh approximation) (GeluBackward0)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"GeluKernelImpl\" not implemented for '{_short(input.dtype)}'")
    return GeluBackward0.apply(input, approximate)
