"""Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_, get_total_norm), in place on .grad
with version-counter bumps. Norms are accumulated in float64 and rounded to the gradients' dtype, so they
agree with torch's reductions to rounding; the clip coefficient follows torch's float32 arithmetic."""
from __future__ import annotations

import functools
import types
import warnings

import numpy as np

from ... import creation
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _vector_norm(a, norm_type):
    """torch.linalg.vector_norm of an array as a 0-d array of a's dtype."""
    x = np.abs(np.asarray(a, dtype=np.float64)).reshape(-1)
    if norm_type == float("inf"):
        r = x.max() if x.size else 0.0
    elif norm_type == float("-inf"):
        r = x.min() if x.size else float("inf")
    elif norm_type == 0:
        r = float(np.count_nonzero(x))
    elif norm_type == 1:
        r = x.sum()
    elif norm_type == 2:
        r = np.sqrt(np.dot(x, x))
    else:
        r = np.sum(x ** norm_type) ** (1.0 / norm_type)
    return np.asarray(r, dtype=a.dtype)


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the per-tensor norms (= the norm of all elements together); tensor(0.) for no tensors."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)   # foreach: CPU supports both paths in torch; they give the same values
    if len(tensors) == 0:
        return creation.tensor(0.0)
    norms = [_vector_norm(t._data, norm_type) for t in tensors]
    dtype = np.result_type(*norms)
    total = _vector_norm(np.stack([n.astype(dtype) for n in norms]), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return Tensor._make(total)


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every .grad by min(1, max_norm / (total_norm + 1e-6)) (float32 arithmetic, as torch's)."""
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    tn = total_norm._data
    denom = tn + tn.dtype.type(1e-6)
    coef = (tn.dtype.type(1) / denom) * tn.dtype.type(max_norm)      # max_norm / t is t.reciprocal() * max_norm
    coef = np.minimum(coef, tn.dtype.type(1.0))
    for g in grads:
        with np.errstate(invalid="ignore", over="ignore"):     # inf/nan norms scale to nan, silently as torch
            np.multiply(g._data, coef, out=g._data, casting="unsafe")
        g._vc[0] += 1


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients' total norm to max_norm in place; returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p._grad for p in parameters if p._grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_ (FutureWarning, as torch)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every .grad to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        g = p._grad
        if g is None:
            continue
        lo, hi = g._data.dtype.type(-clip_value), g._data.dtype.type(clip_value)
        np.clip(g._data, lo, hi, out=g._data)
        g._vc[0] += 2      # clamp_min_ then clamp_max_ (foreach), as torch counts them
