"""var, std, var_mean, std_mean: PyTorch's variance reductions (correction / unbiased, dim, keepdim), computed
as ATen's CPU kernels do (std_var_all_cpu for one output, WelfordOps in double otherwise), with VarBackward0,
StdBackward0, VarMeanBackward0 and StdMeanBackward0 (FunctionsManual's var_backward / std_backward)."""
from __future__ import annotations

import math

import numpy as np

from ... import _sum_order
from ..._warn import warn_aten
from ...autograd.function import Op
from ...tensor import Tensor
from ..pointwise import quietly, where, zeros_like_t
from ..registry import register
from . import _moments as _kernels
from .reductions import _axis, _dims, _expand_back

def _np_var(x, ax, correction, keepdim):
    """np.var(x, ddof=correction), called under quietly. Degrees of freedom <= 0 (ATen's warning is _var_args'):
    sum of squares / 0 (inf, or nan for no deviation or no element) without np.var's own Python warnings, whose
    catch_warnings would reset every module's once-per-location registry."""
    n = x.size if ax is None else int(np.prod([x.shape[d] for d in ax]))
    if n - correction > 0 and n:
        return np.var(x, axis=ax, ddof=correction, keepdims=keepdim)
    if not n:
        return np.abs(np.sum(x, axis=ax, keepdims=keepdim)) * np.nan
    return np.var(x, axis=ax, ddof=0, keepdims=keepdim) / 0


def _moments(d, dims, correction, keepdim, take_sqrt, with_mean):
    """ATen's var/std (and var_mean/std_mean with with_mean) on ndarray d: (result, mean or None), in d's
    dtype. var/std with one output element take std_var_all_cpu (float/double), everything else Welford
    (_moments.py)."""
    ax = tuple(range(d.ndim)) if dims is None or d.ndim == 0 else tuple(dims)   # a 0-d tensor takes dim 0 / -1
    n = int(np.prod([d.shape[k] for k in ax]))
    out_shape = tuple(1 if k in ax else m for k, m in enumerate(d.shape)) if keepdim else \
        tuple(m for k, m in enumerate(d.shape) if k not in ax)
    if not n or not _sum_order.MODELLED or d.dtype.kind != "f":
        v = np.asarray(_np_var(d, _axis(dims, d.ndim), correction, keepdim))
        v = np.sqrt(v) if take_sqrt else v
        m = np.asarray(np.mean(d, axis=_axis(dims, d.ndim), keepdims=keepdim)) if with_mean else None
        return v.astype(d.dtype), None if m is None else m.astype(d.dtype)
    if not with_mean and d.size == n and d.dtype in (np.float32, np.float64):
        return np.full(out_shape, _kernels.var_all(d, correction, take_sqrt), d.dtype), None
    v, m = _kernels.welford(d, ax, correction, take_sqrt, with_mean)
    return v.reshape(out_shape), (m.reshape(out_shape) if with_mean else None)


def _var_backward(g, a, ctx):
    """FunctionsManual var_backward: (2 / (n - correction)) * grad * (self - self.mean(dim, keepdim=True));
    with dim=None and n - correction <= 0, grad * where(self == self.mean(), nan, inf)."""
    dims = ctx.dims
    dof = ctx.n - ctx.correction
    if dims is None or a.dim() == 0:
        if dof <= 0:
            return g * where(a == a.mean(), math.nan, math.inf)
        return (2.0 / dof) * g * (a - a.mean())
    if not ctx.keepdim and a.dim() > 1:
        for k in dims:
            g = g.unsqueeze(k)
    scale = 2.0 / dof if dof else math.copysign(math.inf, 2.0)
    return scale * g * (a - a.mean(dim=list(dims), keepdim=True))


def _std_grad(g, out):
    """std_backward's first step: (grad / (result * 2)).masked_fill_(result == 0, 0)."""
    return where(out == 0, zeros_like_t(g), g / (out * 2))


class VarBackward0(Op):
    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ax = _axis(dims, a._data.ndim)
        ctx.n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        return quietly(_moments, a._data, dims, correction, keepdim, False, False)[0]

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return _var_backward(g, a, ctx)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _var_args(input, dim, unbiased, keepdim, correction, name):
    """(dims, correction, keepdim); warns as ATen does when the degrees of freedom are <= 0."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims, c = _dims(dim, input._data.ndim), _correction(unbiased, correction)
    shape = input._data.shape
    ax = _axis(dims, len(shape))
    n = int(np.prod(shape if ax is None else [shape[d] for d in ax]))
    if n - c <= 0:
        warn_aten(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                  "factor (input numel divided by output numel).", "aten/src/ATen/native/ReduceOps.cpp:1861")
    return dims, c, keepdim


@register(category="reduction", methods=("var",))
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (correction=1)."""
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction, "var")
    return VarBackward0.apply(input, dims, c, keepdim)


class StdBackward0(Op):
    """std = sqrt(var); gradient: var_backward of (grad / (2 std)), zero where std == 0 (PyTorch's std_backward)."""
    save_output = True

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ax = _axis(dims, a._data.ndim)
        ctx.n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        return quietly(_moments, a._data, dims, correction, keepdim, True, False)[0]

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        return _var_backward(_std_grad(g, out), a, ctx)


class VarMeanBackward0(Op):
    """var_mean: both from one Welford pass (ATen's std_var_mean_out); backward var_mean_backward: var_backward
    of the var gradient plus mean_backward (grad expanded / n) of the mean gradient, each when defined."""
    _materialize = False

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, take_sqrt=False):
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ctx.take_sqrt = take_sqrt
        ax = _axis(dims, a._data.ndim)
        ctx.n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        v, m = quietly(_moments, a._data, dims, correction, keepdim, ctx.take_sqrt, True)
        if ctx.take_sqrt:
            ctx.save_for_backward(a, Tensor._make(v))
        else:
            ctx.save_for_backward(a)
        return v, m

    @staticmethod
    def backward(ctx, gv, gm):
        saved = ctx.saved_tensors
        a = saved[0]
        out = None
        if gv is not None:
            out = _var_backward(_std_grad(gv, saved[1]) if ctx.take_sqrt else gv, a, ctx)
        if gm is not None:
            aux = _expand_back(gm, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n
            out = aux if out is None else out + aux
        return out


class StdMeanBackward0(VarMeanBackward0):
    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        return VarMeanBackward0.forward(ctx, a, dims, correction, keepdim, True)


@register(category="reduction", methods=("std",))
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation, sqrt(var), with Bessel's correction by default."""
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction, "std")
    return StdBackward0.apply(input, dims, c, keepdim)


@register(category="reduction")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim."""
    dims, c, kd = _var_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return VarMeanBackward0.apply(input, dims, c, kd)


@register(category="reduction")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim."""
    dims, c, kd = _var_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return StdMeanBackward0.apply(input, dims, c, kd)
