"""nn activations: leaky_relu, gelu (Ops) and F.relu / sigmoid / tanh (wrappers of the pointwise ops)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ..inplace import check_inplace, rebase, snapshot, write_result
from ..registry import register
from . import _sigmoid_kernels
from ..._cpu import unroll_bytes
from ._util import _make, _short, _vector_lanes

_SLEEF_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


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


@register(category="nn", function=False)
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


@register(category="nn", function=False)
def gelu(input, approximate="none"):
    """x * Phi(x) (exact, or the tanh approximation) (GeluBackward0)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"GeluKernelImpl\" not implemented for '{_short(input.dtype)}'")
    return GeluBackward0.apply(input, approximate)


# -- silu, elu, softplus, hardtanh, logsigmoid ----------------------------------------------------------

def _float_only(input, kernel):
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")


def _inplace_apply(input, op, *args):
    """Run an activation's Op in place on input (leaf/view checks and rebasing as torch's act_)."""
    check_inplace(input)
    recorded = STATE.grad_enabled and input._requires_grad
    r = op.apply(snapshot(input) if recorded else input, *args)
    write_result(input, r, op.__name__)
    if recorded:
        rebase(input, r)
    return input


class SiluBackward0(Op):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        x = input._data
        with np.errstate(over="ignore"):
            return (x / (1 + np.exp(-x))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return g * s * (1 + x * (1 - s))


@register(category="nn", function=False)
def silu(input, inplace=False):
    """x * sigmoid(x) (SiluBackward0)."""
    _float_only(input, "silu_cpu")
    return _inplace_apply(input, SiluBackward0) if inplace else SiluBackward0.apply(input)


class EluBackward0(Op):
    @staticmethod
    def forward(ctx, input, alpha):
        ctx.save_for_backward(input)
        ctx.alpha = alpha
        x = input._data
        with np.errstate(over="ignore"):
            return np.where(x > 0, x, alpha * np.expm1(np.minimum(x.dtype.type(0), x))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        pos = _make((x._data > 0).astype(x._data.dtype))
        return g * (pos + (1 - pos) * ctx.alpha * x.clamp_max(0).exp())


@register(category="nn", function=False)
def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1) (EluBackward0)."""
    _float_only(input, "elu_cpu")
    return _inplace_apply(input, EluBackward0, alpha) if inplace else EluBackward0.apply(input, alpha)


class SoftplusBackward0(Op):
    @staticmethod
    def forward(ctx, input, beta, threshold):
        ctx.save_for_backward(input)
        ctx.beta, ctx.threshold = beta, threshold
        x = input._data
        bx = x * x.dtype.type(beta)
        with np.errstate(over="ignore"):
            soft = np.log1p(np.exp(np.minimum(bx, threshold))) / x.dtype.type(beta)
        return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        big = _make((x._data * ctx.beta > ctx.threshold).astype(x._data.dtype))
        return g * (big + (1 - big) * (x * ctx.beta).sigmoid())


@register(category="nn", function=False)
def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, linear above threshold (SoftplusBackward0)."""
    _float_only(input, "softplus_cpu")
    return SoftplusBackward0.apply(input, beta, threshold)


class HardtanhBackward0(Op):
    @staticmethod
    def forward(ctx, input, min_val, max_val):
        ctx.save_for_backward(input)
        ctx.bounds = (min_val, max_val)
        x = input._data
        return np.minimum(x.dtype.type(max_val), np.maximum(x.dtype.type(min_val), x))   # ties keep x, as clamp

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        d = x._data
        # `(x <= lo || x >= hi) ? 0 : grad` in the scalar tail (NaN keeps grad), `(x > lo) & (x < hi) & grad` in the
        # vector lanes (NaN gives 0); +0 where masked, whatever grad's sign
        keep = (d > lo) & (d < hi)
        nan = np.isnan(d)
        if nan.any():
            keep |= nan & ~_vector_lanes(d, unroll_bytes(avx512_kernel=True))
        return g.masked_fill(_make(~keep), 0)


@register(category="nn", function=False)
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val) (HardtanhBackward0)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace_apply(input, HardtanhBackward0, min_val, max_val)
    return HardtanhBackward0.apply(input, min_val, max_val)


class LogSigmoidBackward0(Op):
    """ATen's log_sigmoid_cpu_kernel (min(x, 0) - log1p(exp(-|x|)) through SLEEF on every element) and its
    backward from the saved buffer exp(-|x|), bit for bit (nn/_sigmoid_kernels.py)."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        x = input._data
        if x.dtype in _SLEEF_DTYPES:
            out, ctx.buffer = _sigmoid_kernels.log_sigmoid(x)
            return out
        ctx.buffer = None
        return (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (-x).sigmoid()

    @staticmethod
    def backward_np(ctx, g):
        (x,) = ctx.saved_tensors
        if ctx.buffer is None:      # float16 / bfloat16: the composite formula of backward
            return g * (1 / (1 + np.exp(x._data)))
        return _sigmoid_kernels.log_sigmoid_backward(x._data, ctx.buffer, g)


@register(category="nn", function=False)
def logsigmoid(input):
    """log(sigmoid(x)), computed stably (LogSigmoidBackward0)."""
    _float_only(input, "log_sigmoid_cpu")
    return LogSigmoidBackward0.apply(input)
