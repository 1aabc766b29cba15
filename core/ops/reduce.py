"""Reductions (sum, mean, prod, max/min, argmax, var/std, ...) with dim/keepdim like PyTorch."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dt
from .. import return_types
from ..autograd.function import Op
from ..tensor import Tensor, _wrap_dim
from .registry import register


def _dims(dim, ndim):
    """Normalise dim (None, int or sequence) to a sorted tuple of wrapped dims, or None for 'all'."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        out = []
        for d in dim:
            w = _wrap_dim(d, ndim)
            if w in out:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            out.append(w)
        return tuple(sorted(out))
    return (_wrap_dim(dim, ndim),)


def _axis(dims, ndim):
    if dims is None:
        return None
    if ndim == 0:
        return None
    return dims


def _expand_back(g, shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input shape."""
    if not keepdim and dims is not None and len(shape):
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape) if tuple(g.shape) != tuple(shape) else g


def _np_expand_back(g, shape, dims, keepdim):
    if not keepdim and dims is not None and len(shape):
        g = np.expand_dims(g, dims)
    return np.broadcast_to(g, shape)


class SumBackward1(Op):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        return np.asarray(np.sum(a._data, axis=_axis(dims, a._data.ndim), keepdims=keepdim, dtype=dt.np))

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim)

    @staticmethod
    def backward_np(ctx, g):
        return _np_expand_back(g, ctx.shape, ctx.dims, ctx.keepdim)


class SumBackward0(SumBackward1):
    pass


def _sum_dtype(t, dtype):
    if dtype is not None:
        return _dt.as_dtype(dtype)
    return t.dtype if t.dtype.is_floating_point else _dt.int64


@register(category="reduction", methods=("sum",))
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over dim (all dims if None); bool/int inputs sum to int64."""
    dims = _dims(dim, input._data.ndim)
    cls = SumBackward0 if dims is None else SumBackward1
    return cls.apply(input, dims, keepdim, _sum_dtype(input, dtype))


@register(category="reduction", methods=("nansum",))
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero."""
    mask = Tensor._make(np.isnan(input._data))
    from .pointwise import where
    return sum(where(mask, Tensor._make(np.zeros((), input._data.dtype)), input), dim, keepdim, dtype=dtype)


class MeanBackward1(Op):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        ax = _axis(dims, a._data.ndim)
        n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        ctx.n = n
        with np.errstate(all="ignore"):
            return np.asarray(np.mean(a._data, axis=ax, keepdims=keepdim, dtype=dt.np) if n else
                              np.full(np.sum(a._data, axis=ax, keepdims=keepdim).shape, np.nan, dtype=dt.np))

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n

    @staticmethod
    def backward_np(ctx, g):
        return _np_expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) / np.asarray(ctx.n, g.dtype)


class MeanBackward0(MeanBackward1):
    pass


def _dtname(d):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}[d.name]


@register(category="reduction", methods=("mean",))
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean; integer inputs need an explicit floating dtype, as in PyTorch."""
    dt = _dt.as_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_dtname(dt)}")
    dims = _dims(dim, input._data.ndim)
    return (MeanBackward0 if dims is None else MeanBackward1).apply(input, dims, keepdim, dt)


@register(category="reduction", methods=("nanmean",))
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean ignoring NaN."""
    notnan = Tensor._make(~np.isnan(input._data))
    return nansum(input, dim, keepdim, dtype=dtype) / notnan.sum(dim, keepdim).to(input.dtype)


class ProdBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        return np.asarray(np.prod(a._data, axis=_axis(dims, a._data.ndim), keepdims=keepdim, dtype=dt.np))

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        gx = _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim)
        if not (a._data == 0).any():
            return gx * _expand_back(out, ctx.shape, ctx.dims, ctx.keepdim) / a
        # product of all other elements, exact in the presence of zeros
        ax = ctx.dims[0] if ctx.dims is not None else None
        d = a._data if ax is not None else a._data.reshape(-1)
        ax = ax if ax is not None else 0
        left = np.cumprod(np.concatenate([np.ones_like(np.take(d, [0], ax)), d], ax), ax)
        left = np.take(left, range(d.shape[ax]), ax)
        rev = np.flip(d, ax)
        right = np.cumprod(np.concatenate([np.ones_like(np.take(rev, [0], ax)), rev], ax), ax)
        right = np.flip(np.take(right, range(d.shape[ax]), ax), ax)
        others = Tensor._make((left * right).reshape(a._data.shape))
        return gx * others


class ProdBackward1(ProdBackward0):
    pass


@register(category="reduction", methods=("prod",))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over one dim (or all elements); bool/int inputs give int64."""
    if isinstance(dim, (list, tuple)):
        raise TypeError("prod(): argument 'dim' must be int, not " + type(dim).__name__)
    dims = _dims(dim, input._data.ndim)
    return (ProdBackward0 if dims is None else ProdBackward1).apply(input, dims, keepdim, _sum_dtype(input, dtype))


def _empty_check(input, dims, name):
    if input._data.size == 0:
        if dims is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        for d in dims:
            if input._data.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


class _MaxDim(Op):
    """max(dim) / min(dim): gradient goes to the selected index."""

    @staticmethod
    def forward(ctx, a, dim, keepdim, is_max):
        d = a._data
        if d.ndim == 0:
            idx = np.zeros((), np.int64)
            ctx.shape, ctx.dim, ctx.keepdim = d.shape, dim, keepdim
            ctx.save_for_backward(Tensor._make(idx))
            return d.copy(), idx
        idx = _nan_arg(d, dim, is_max)
        vals = np.take_along_axis(d, np.expand_dims(idx, dim), dim)
        if not keepdim:
            vals = np.squeeze(vals, dim)
        else:
            idx = np.expand_dims(idx, dim)
        ctx.shape, ctx.dim, ctx.keepdim = d.shape, dim, keepdim
        ctx.save_for_backward(Tensor._make(idx))
        return vals, idx

    @staticmethod
    def backward(ctx, g, gi=None):
        (idx,) = ctx.saved_tensors
        if len(ctx.shape) == 0:
            return g
        from .indexing import _scatter_into_zeros
        if not ctx.keepdim:
            g = g.unsqueeze(ctx.dim)
            idx = idx.unsqueeze(ctx.dim)
        return _scatter_into_zeros(g, ctx.dim, idx, ctx.shape)


class _MinDim(_MaxDim):
    pass


def _nan_arg(d, dim, is_max):
    """argmax/argmin that, like PyTorch, returns the first NaN when there is one, else the first extremum."""
    if d.dtype.kind == "f":
        nan = np.isnan(d)
        if nan.any():
            base = np.argmax(d, axis=dim) if is_max else np.argmin(d, axis=dim)
            has = nan.any(axis=dim)
            return np.where(has, np.argmax(nan, axis=dim), base).astype(np.int64)
    return (np.argmax(d, axis=dim) if is_max else np.argmin(d, axis=dim)).astype(np.int64)


class _MaxAll(Op):
    """Full max()/min() and amax/amin: the gradient is shared evenly between ties."""
    save_output = True

    @staticmethod
    def forward(ctx, a, dims, keepdim, is_max):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        fn = np.max if is_max else np.min
        return np.asarray(fn(a._data, axis=_axis(dims, a._data.ndim), keepdims=keepdim))

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        o = _expand_back(out, ctx.shape, ctx.dims, ctx.keepdim)
        mask = (a == o).to(g.dtype)
        count = mask.sum(dim=list(ctx.dims) if ctx.dims is not None else None, keepdim=True)
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * mask / count


class _MinAll(_MaxAll):
    pass


class AmaxBackward0(_MaxAll):
    pass


class AminBackward0(_MaxAll):
    pass


# PyTorch names: max()/min() -> MaxBackward1/MinBackward1, max(dim)/min(dim) -> MaxBackward0/MinBackward0
MaxBackward1 = type("MaxBackward1", (_MaxAll,), {})
MinBackward1 = type("MinBackward1", (_MaxAll,), {})
MaxBackward0 = type("MaxBackward0", (_MaxDim,), {})
MinBackward0 = type("MinBackward0", (_MaxDim,), {})


def _maxmin(input, dim, keepdim, is_max, other_ok=True):
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor):
        from .pointwise import maximum, minimum
        return (maximum if is_max else minimum)(input, dim)
    if dim is None:
        _empty_check(input, None, name)
        return (MaxBackward1 if is_max else MinBackward1).apply(input, None, False, is_max)
    d = _wrap_dim(dim, input._data.ndim)
    _empty_check(input, (d,) if input._data.ndim else (), name)
    vals, idx = (MaxBackward0 if is_max else MinBackward0).apply(input, d, keepdim, is_max)
    return (return_types.max if is_max else return_types.min)(vals, idx)


@register(category="reduction", methods=("max",))
def max(input, dim=None, keepdim=False, *, out=None):
    """max() -> the largest element; max(dim) -> (values, indices); max(other) -> elementwise maximum."""
    return _maxmin(input, dim, keepdim, True)


@register(category="reduction", methods=("min",))
def min(input, dim=None, keepdim=False, *, out=None):
    """min() -> the smallest element; min(dim) -> (values, indices); min(other) -> elementwise minimum."""
    return _maxmin(input, dim, keepdim, False)


@register(category="reduction", methods=("amax",))
def amax(input, dim=(), keepdim=False, *, out=None):
    """Max over dims (all if empty); ties share the gradient evenly."""
    dims = _dims(dim, input._data.ndim)
    _empty_check(input, dims, "amax")
    return AmaxBackward0.apply(input, dims, keepdim, True)


@register(category="reduction", methods=("amin",))
def amin(input, dim=(), keepdim=False, *, out=None):
    """Min over dims (all if empty); ties share the gradient evenly."""
    dims = _dims(dim, input._data.ndim)
    _empty_check(input, dims, "amin")
    return AminBackward0.apply(input, dims, keepdim, False)


def _arg(input, dim, keepdim, is_max):
    name = "argmax" if is_max else "argmin"
    d = input._data
    if dim is None:
        _empty_check(input, None, name)
        r = _nan_arg(d.reshape(-1), 0, is_max)
        if keepdim:
            r = np.reshape(r, (1,) * d.ndim)
        return Tensor._make(np.asarray(r, dtype=np.int64))
    dim = _wrap_dim(dim, d.ndim)
    if d.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    _empty_check(input, (dim,), name)
    r = _nan_arg(d, dim, is_max)
    if keepdim:
        r = np.expand_dims(r, dim)
    return Tensor._make(np.asarray(r, dtype=np.int64))


@register(category="reduction", methods=("argmax",))
def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (first occurrence; NaN counts as largest), int64."""
    return _arg(input, dim, keepdim, True)


@register(category="reduction", methods=("argmin",))
def argmin(input, dim=None, keepdim=False):
    """Index of the smallest element (first occurrence), int64."""
    return _arg(input, dim, keepdim, False)


class VarBackward0(Op):
    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = a._data.shape, dims, keepdim, correction
        ax = _axis(dims, a._data.ndim)
        n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        ctx.n = n
        with np.errstate(all="ignore"):
            return np.asarray(np.var(a._data, axis=ax, ddof=correction, keepdims=keepdim)).astype(a._data.dtype)

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


def _var_args(input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return _dims(dim, input._data.ndim), _correction(unbiased, correction), keepdim


@register(category="reduction", methods=("var",))
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (correction=1)."""
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    return VarBackward0.apply(input, dims, c, keepdim)


@register(category="reduction", methods=("std",))
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation, sqrt(var)."""
    return var(input, dim, unbiased, keepdim, correction=correction).sqrt()


@register(category="reduction")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim."""
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim if not isinstance(dim, bool) else None, keepdim))


@register(category="reduction")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim."""
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim if not isinstance(dim, bool) else None, keepdim))


@register(category="reduction", methods=("logsumexp",))
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(x))) computed stably."""
    x = input if input.dtype.is_floating_point else input.float()
    m = Tensor._make(np.nan_to_num(np.max(x._data, axis=_axis(_dims(dim, x._data.ndim), x._data.ndim), keepdims=True),
                                   neginf=0.0, posinf=0.0))
    r = (x - m).exp().sum(dim, keepdim=True).log() + m
    if not keepdim:
        for d in reversed(_dims(dim, x._data.ndim) or ()):
            r = r.squeeze(d)
    return r


@register(category="reduction", methods=("all",))
def all(input, dim=None, keepdim=False):
    """True if every element (along dim) is nonzero."""
    dims = _dims(dim, input._data.ndim)
    return Tensor._make(np.asarray(np.all(input._data, axis=_axis(dims, input._data.ndim), keepdims=keepdim)))


@register(category="reduction", methods=("any",))
def any(input, dim=None, keepdim=False):
    """True if some element (along dim) is nonzero."""
    dims = _dims(dim, input._data.ndim)
    return Tensor._make(np.asarray(np.any(input._data, axis=_axis(dims, input._data.ndim), keepdims=keepdim)))


@register(category="reduction", methods=("count_nonzero",))
def count_nonzero(input, dim=None):
    """Number of nonzero elements (along dim), int64."""
    dims = _dims(dim, input._data.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=_axis(dims, input._data.ndim)), dtype=np.int64))


class CumsumBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, dt):
        ctx.dim = dim
        if a._data.ndim == 0:
            return a._data.astype(dt.np)
        return np.cumsum(a._data, axis=dim, dtype=dt.np)

    @staticmethod
    def backward(ctx, g):
        if g.ndim == 0:
            return g
        return g.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim)


@register(category="reduction", methods=("cumsum",), inplace="cumsum_")
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along dim; int inputs accumulate in int64."""
    d = _wrap_dim(dim, input._data.ndim)
    return CumsumBackward0.apply(input, d, _sum_dtype(input, dtype))


class CumprodBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, dim, dt):
        ctx.save_for_backward(a)
        ctx.dim = dim
        if a._data.ndim == 0:
            return a._data.astype(dt.np)
        return np.cumprod(a._data, axis=dim, dtype=dt.np)

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        if g.ndim == 0:
            return g
        d = ctx.dim
        return (g * out).flip(d).cumsum(d).flip(d) / a


@register(category="reduction", methods=("cumprod",))
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along dim."""
    d = _wrap_dim(dim, input._data.ndim)
    return CumprodBackward0.apply(input, d, _sum_dtype(input, dtype))


@register(category="reduction", methods=("norm",))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over dim (Frobenius / 2-norm by default)."""
    if p in ("fro", 2, 2.0):
        return (input * input).sum(dim, keepdim).sqrt()
    if p in (float("inf"), "inf"):
        return input.abs().amax(dim if dim is not None else (), keepdim)
    if p == 1:
        return input.abs().sum(dim, keepdim)
    return (input.abs() ** p).sum(dim, keepdim) ** (1.0 / p)


@register(category="reduction", methods=("dist",))
def dist(input, other, p=2):
    """p-norm of input - other."""
    return norm(input - other, p)
