"""var, std, var_mean, std_mean: PyTorch's variance reductions (correction / unbiased, dim, keepdim),
with VarBackward0 / StdBackward0."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...autograd.function import Op
from ..pointwise import quietly, where, zeros_like_t
from ..registry import register
from .reductions import _axis, _dims, _expand_back, mean

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


def _np_std(x, ax, correction, keepdim):
    return np.sqrt(_np_var(x, ax, correction, keepdim))


class VarBackward0(Op):
    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ax = _axis(dims, a._data.ndim)
        n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        ctx.n = n
        return np.asarray(quietly(_np_var, a._data, ax, correction, keepdim)).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        m = a.mean(dim=list(ctx.dims) if ctx.dims is not None else None, keepdim=True)
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * 2 * (a - m) / (ctx.n - ctx.correction)


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


@register(category="reduction", methods=("var",),
          cli=True, cli_example="tensorcli var '[[1.0,2.0,3.0,4.0],[1.0,1.0,1.0,5.0]]' --dim 1 --explain")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (correction=1)."""
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction, "var")
    return VarBackward0.apply(input, dims, c, keepdim)


class StdBackward0(Op):
    """std = sqrt(var); gradient grad / (2 std) * d var, zero where std == 0 (PyTorch's std_backward)."""
    save_output = True

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ax = _axis(dims, a._data.ndim)
        ctx.n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        return np.asarray(quietly(_np_std, a._data, ax, correction, keepdim)).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        gv = where(out == 0, zeros_like_t(g), g / (out * 2))
        m = a.mean(dim=list(ctx.dims) if ctx.dims is not None else None, keepdim=True)
        return _expand_back(gv, ctx.shape, ctx.dims, ctx.keepdim) * 2 * (a - m) / (ctx.n - ctx.correction)


@register(category="reduction", methods=("std",),
          cli=True, cli_example="tensorcli std '[[1.0,2.0,3.0,4.0],[1.0,1.0,1.0,5.0]]' --dim 1 --explain")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation, sqrt(var), with Bessel's correction by default."""
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction, "std")
    return StdBackward0.apply(input, dims, c, keepdim)


@register(category="reduction",
          cli=True, cli_example="tensorcli var-mean '[[1.0,2.0,3.0,4.0],[1.0,1.0,1.0,5.0]]' --dim 1 --explain")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim."""
    dims, c, kd = _var_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return VarBackward0.apply(input, dims, c, kd), mean(input, dim if not isinstance(dim, bool) else None, keepdim)


@register(category="reduction",
          cli=True, cli_example="tensorcli std-mean '[[1.0,2.0,3.0,4.0],[1.0,1.0,1.0,5.0]]' --dim 1 --explain")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim."""
    dims, c, kd = _var_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return StdBackward0.apply(input, dims, c, kd), mean(input, dim if not isinstance(dim, bool) else None, keepdim)
