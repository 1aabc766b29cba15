"""More nn activations: hardswish, hardsigmoid, relu6, selu, celu, glu, mish, softsign, tanhshrink,
threshold, softshrink, hardshrink, softmin (PyTorch's kernels and grad_fn names; prelu and rrelu
live in activation_param.py)."""
from __future__ import annotations

import numpy as np

from ..._cpu import unroll_bytes
from ..._warn import warn_python
from ...autograd.function import Op
from ...tensor import _wrap_dim
from ...creation import zeros_like
from ..pointwise import where
from ..random import _empty_like, exponential_
from ..registry import export, register
from ..shape import cat
from ._util import _make, _short, _torch_name, _vector_lanes, _vector_nan
from .activation import _inplace_apply, hardtanh
from .softmax import _get_softmax_dim


def _float_only(input, kernel):
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")


def _mask(cond, dt):
    """A constant 0/1 tensor: piecewise-constant derivatives stay exact under double backward."""
    return _make(cond.astype(dt))


def _run(op, input, inplace, *args):
    return _inplace_apply(input, op, *args) if inplace else op.apply(input, *args)


# -- hardswish, hardsigmoid, relu6 ------------------------------------------------------------------

class HardswishBackward0(Op):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        x = input._data
        t = x.dtype.type
        with np.errstate(invalid="ignore"):   # -inf * 0 is NaN, as torch's (silently)
            return (x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d, dt = x._data, x._data.dtype
        # NaN takes the last branch (grad) in the scalar op, `x <= -3 ? 0 : x < 3 ? ... : grad`; NaN in the vector lanes
        rest = np.where(_vector_nan(d, unroll_bytes(avx512_kernel=True)), np.nan, ~(d < 3) & ~(d <= -3)).astype(dt)
        r = g * where(_mask((d > -3) & (d < 3), np.bool_), x / 3 + 0.5, _make(rest))
        return r.masked_fill(_make(d <= -3), 0)      # the `x <= -3 ? 0` branch: +0, whatever grad's sign


@register(category="nn", function=False)
def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6 (HardswishBackward0)."""
    _float_only(input, "hardswish_cpu")
    return _run(HardswishBackward0, input, inplace)


class HardsigmoidBackward0(Op):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        x = input._data
        t = x.dtype.type
        return (np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return HardsigmoidBackwardNotImplemented.apply(g, x)


class HardsigmoidBackwardNotImplemented(Op):
    """hardsigmoid_backward(grad, self): torch registers no derivative for it, so a gradient built with
    create_graph has this node, whose backward raises."""

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, g, x):
        d = x._data
        # ATen's one_sixth is the float literal 1.0f / 6.0f, widened (also for double inputs)
        six = np.asarray(np.float32(1.0) / np.float32(6.0), np.float64)
        zero = g._data.dtype.type(0)
        return np.where((d > -3) & (d < 3), (g._data * six).astype(g._data.dtype, copy=False), zero)

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


@register(category="nn", function=False)
def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 (HardsigmoidBackward0)."""
    _float_only(input, "hardsigmoid_cpu")
    return _run(HardsigmoidBackward0, input, inplace)


@register(category="nn", function=False)
def relu6(input, inplace=False):
    """min(max(x, 0), 6): hardtanh(x, 0, 6) (HardtanhBackward0)."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return hardtanh(input, 0.0, 6.0, inplace)


# -- elu family: selu, celu -------------------------------------------------------------------------

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class EluBackward0(Op):
    """ATen's elu(x, alpha, scale, input_scale): x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale."""

    @staticmethod
    def forward(ctx, input, alpha, scale, input_scale):
        ctx.save_for_backward(input)
        ctx.coef = (alpha, scale, input_scale)
        x = input._data
        t = x.dtype.type
        with np.errstate(over="ignore", invalid="ignore"):
            neg = np.expm1(np.minimum(t(0), x) * t(input_scale)) * t(alpha * scale)   # -0.0 stays -0.0
        return np.where(x <= 0, neg, x * t(scale)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.coef
        d, dt = x._data, x._data.dtype
        coef = input_scale * alpha * scale
        # x <= 0 takes the exponential branch; its own derivative is zero at x == 0 (as torch's double backward)
        # NaN takes the positive branch in the scalar op, `x <= 0 ? ... : grad * scale`; NaN in the vector lanes
        rest = np.where(d == 0, coef, np.where(d <= 0, 0.0, scale))
        rest = _make(np.where(_vector_nan(d, unroll_bytes(avx512_kernel=True)), np.nan, rest).astype(dt))
        return g * where(_mask(d < 0, np.bool_), (x.clamp_max(0) * input_scale).exp() * coef, rest)


class CeluBackward0(EluBackward0):
    """celu's backward takes input_scale as 1.0 / alpha.toFloat() (derivatives.yaml): alpha rounded to float."""

    @staticmethod
    def backward(ctx, g):
        alpha, scale, _ = ctx.coef
        ctx.coef = (alpha, scale, 1.0 / float(np.float32(alpha)))
        return EluBackward0.backward(ctx, g)


class CeluBackward1(CeluBackward0):
    """celu_ (in place) node."""


class EluBackward1(EluBackward0):
    """selu_ (in place) node."""


@register(category="nn", function=False)
def selu(input, inplace=False):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with PyTorch's SELU constants (EluBackward0)."""
    _float_only(input, "elu_cpu")
    op = EluBackward1 if inplace else EluBackward0
    return _run(op, input, inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


@register(category="nn", function=False)
def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (CeluBackward0)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _float_only(input, "elu_cpu")
    op = CeluBackward1 if inplace else CeluBackward0
    return _run(op, input, inplace, alpha, 1.0, 1.0 / alpha)


@export(name="selu")
@_torch_name
def torch_selu(input):
    """torch.selu(input)."""
    return selu(input)


@export(name="selu_")
@_torch_name
def torch_selu_(input):
    """torch.selu_(input): selu in place."""
    return selu(input, True)


@export(name="celu")
@_torch_name
def torch_celu(input, alpha=1.0):
    """torch.celu(input, alpha)."""
    return celu(input, alpha)


@export(name="celu_")
@_torch_name
def torch_celu_(input, alpha=1.0):
    """torch.celu_(input, alpha): celu in place."""
    return celu(input, alpha, True)


# -- glu, mish ----------------------------------------------------------------------------------------

class GluBackward0(Op):
    @staticmethod
    def forward(ctx, input, dim):
        ctx.save_for_backward(input)
        ctx.dim = dim
        a, b = np.split(input._data, 2, axis=dim)
        with np.errstate(over="ignore"):
            return (a * (1 / (1 + np.exp(-b)))).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = b.sigmoid()
        return cat((g * s, g * a * s * (1 - s)), ctx.dim)


@register(category="nn", function=False)
def glu(input, dim=-1):
    """a * sigmoid(b) where a, b are the halves of input along dim (GluBackward0)."""
    if input._data.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    _float_only(input, "glu_cpu")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return GluBackward0.apply(input, d)


class MishBackward0(Op):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        x = input._data
        with np.errstate(over="ignore", invalid="ignore"):
            return (x * np.tanh(np.log1p(np.exp(x)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t = (x.exp().log1p()).tanh()
        return g * (t + x * x.sigmoid() * (1 - t * t))


@register(category="nn", function=False)
def mish(input, inplace=False):
    """x * tanh(softplus(x)) (MishBackward0)."""
    _float_only(input, "mish_cpu")
    return _run(MishBackward0, input, inplace)


# -- composites: softsign, tanhshrink, softmin -------------------------------------------------------

@register(category="nn", function=False)
def softsign(input):
    """x / (1 + |x|) (a composite: DivBackward0)."""
    return input / (input.abs() + 1)


@register(category="nn", function=False)
def tanhshrink(input):
    """x - tanh(x) (a composite: SubBackward0)."""
    return input - input.tanh()


@register(category="nn", function=False)
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim (SoftmaxBackward0); dim None picks PyTorch's legacy implicit dim, with its warning."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


# -- threshold, softshrink, hardshrink --------------------------------------------------------------

class ThresholdBackward0(Op):
    @staticmethod
    def forward(ctx, input, threshold, value):
        ctx.save_for_backward(input)
        ctx.threshold = threshold
        x = input._data
        return np.where(x <= threshold, np.asarray(value).astype(x.dtype), x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g.masked_fill(_make(x._data <= ctx.threshold), 0)


class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place) node."""


@register(category="nn", function=False)
def threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value (ThresholdBackward0)."""
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    if inplace:
        return _inplace_apply(input, ThresholdBackward1, threshold, value)
    return ThresholdBackward0.apply(input, threshold, value)


@export(name="threshold")
@_torch_name
def torch_threshold(input, threshold, value):
    """torch.threshold(input, threshold, value)."""
    return globals()["threshold"](input, threshold, value)


@export(name="threshold_")
@_torch_name
def torch_threshold_(input, threshold, value):
    """torch.threshold_(input, threshold, value): threshold in place."""
    return globals()["threshold"](input, threshold, value, True)


def threshold_(input, threshold, value):
    """F.threshold_: threshold in place."""
    return globals()["threshold"](input, threshold, value, True)


class _ShrinkBase(Op):
    @staticmethod
    def backward(ctx, g):
        """grad where x < -lambd or x > lambd; NaN gets 0 in the vector lanes, grad in the scalar tail (ATen)."""
        (x,) = ctx.saved_tensors
        d = x._data
        lam = ctx.lambd
        keep = (d < -lam) | (d > lam) | (np.isnan(d) & ~_vector_nan(d, unroll_bytes(avx512_kernel=False)))
        return g.masked_fill(_make(~keep), 0)


class SoftshrinkBackward0(_ShrinkBase):
    @staticmethod
    def forward(ctx, input, lambd):
        ctx.save_for_backward(input)
        ctx.lambd = lambd
        x = input._data
        lam = x.dtype.type(lambd)
        # the middle branch: +0 in the vector lanes (a blend with a zero vector), x * 0 in the scalar tail (-0 for a
        # negative x; NaN stays NaN in both), as ATen's kernel
        with np.errstate(invalid="ignore"):
            mid = x * x.dtype.type(0)
        mid = np.where(_vector_lanes(x, unroll_bytes(avx512_kernel=False)) & ~np.isnan(x), x.dtype.type(0), mid)
        return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, mid)).astype(x.dtype, copy=False)


class HardshrinkBackward0(_ShrinkBase):
    @staticmethod
    def forward(ctx, input, lambd):
        ctx.save_for_backward(input)
        ctx.lambd = lambd
        x = input._data
        lam = x.dtype.type(lambd)
        return np.where((x >= -lam) & (x <= lam), x.dtype.type(0), x).astype(x.dtype, copy=False)


@register(category="nn", function=False)
def softshrink(input, lambd=0.5):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0 (SoftshrinkBackward0)."""
    _float_only(input, "softshrink_check")
    top = float(np.finfo(input._data.dtype).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_short(input.dtype)}, but found "
                           f"{lambd:g}")
    return SoftshrinkBackward0.apply(input, lambd)


@register(category="nn", methods=("hardshrink",))
def hardshrink(input, lambd=0.5):
    """x if |x| > lambd else 0 (HardshrinkBackward0)."""
    _float_only(input, "hardshrink_cpu")
    return HardshrinkBackward0.apply(input, lambd)


@register(category="nn", function=False)
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g = -log(Exponential(1)) drawn as torch draws it; `hard` returns the
    one-hot of the argmax with the soft sample's gradient (straight-through), as torch's composite."""
    if eps != 1e-10:
        warn_python("`eps` parameter is deprecated and has no effect.", UserWarning, 2)
    gumbels = -exponential_(_empty_like(logits, None)).log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
