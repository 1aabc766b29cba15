"""torch.distributions.utils on core: broadcast_all, probs/logits conversions, lazy_property, and
the random draws the distributions make, each through the public core function torch calls (with
an equivalent draw where this core lacks that function, so the distribution is right even before
the values are torch's)."""
from __future__ import annotations

import functools
import numbers

import numpy as np

import core

euler_constant = 0.5772156649015329
_NP = {"torch.float16": np.float16, "torch.float32": np.float32, "torch.float64": np.float64}


def finfo(dtype):
    """np.finfo of a core floating dtype (eps, tiny, min, max), for torch.finfo's uses here."""
    return np.finfo(_NP[str(dtype)])


def broadcast_all(*values):
    """Numbers become tensors of the first tensor's dtype (else the default dtype); then broadcast."""
    if not all(isinstance(v, core.Tensor) or isinstance(v, numbers.Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, core.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, core.Tensor)), core.get_default_dtype())
        values = [v if isinstance(v, core.Tensor) else core.tensor(v, dtype=dtype) for v in values]
    return core.broadcast_tensors(*values)


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    return core.sigmoid(logits) if is_binary else core.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return core.log(ps_clamped) - core.log1p(-ps_clamped)
    return core.log(ps_clamped)


def softplus(x):
    """log(1 + exp(x)), computed stably (torch.nn.functional.softplus with beta=1, threshold=20)."""
    return core.where(x > 20, x, core.log1p(core.exp(-x.abs())) + x.clamp(min=0))


def bce_with_logits(logits, target):
    """binary_cross_entropy_with_logits(reduction='none'): (1 - y) x - log_sigmoid(x)."""
    log_sigmoid = -softplus(-logits)
    return (1 - target) * logits - log_sigmoid


class lazy_property:
    """Computed on first access (with grad enabled), then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with core.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _method(t, name):
    """t.<name> if this core's Tensor has it (the random in-place methods come from the rng branch)."""
    return getattr(t, name, None)


def _standard_normal(shape, dtype, device=None):
    """torch: empty(shape).normal_()."""
    t = core.empty(shape, dtype=dtype)
    normal_ = _method(t, "normal_")
    return normal_() if normal_ is not None else core.randn(shape, dtype=dtype)


def _standard_exponential(shape, dtype):
    """torch: rate.new(shape).exponential_()."""
    t = core.empty(shape, dtype=dtype)
    exponential_ = _method(t, "exponential_")
    if exponential_ is not None:
        return exponential_()
    return -core.log1p(-core.rand(shape, dtype=dtype))


def _bernoulli(probs):
    """torch.bernoulli(probs)."""
    fn = getattr(core, "bernoulli", None)
    if fn is not None:
        return fn(probs)
    return (core.rand(tuple(probs.shape), dtype=probs.dtype) < probs).to(probs.dtype)


def _multinomial_replacement(probs_2d, n):
    """torch.multinomial(probs_2d, n, True): (rows, n) int64 category indices."""
    fn = getattr(core, "multinomial", None)
    if fn is not None:
        return fn(probs_2d, n, True)
    cdf = (probs_2d / probs_2d.sum(-1, keepdim=True)).cumsum(-1).contiguous()
    u = core.rand(probs_2d.shape[0], n, dtype=probs_2d.dtype).contiguous()
    return core.searchsorted(cdf, u, right=True).clamp(max=probs_2d.shape[-1] - 1)
