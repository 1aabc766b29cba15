"""Reductions (sum, mean, prod, max/min, argmax, var/std, ...) with dim/keepdim like PyTorch."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ... import return_types
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor, _wrap_dim
from ..indexing import _scatter_into_zeros
from ..pointwise import _out, maximum, minimum, quietly, where, zeros_like_t
from ..pointwise._out_checks import EXPECTED_DTYPE, check_out_dtype, out_tuple
from ..registry import register
from ... import _sum_order
from . import _norm_order, _prod_order


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


def _kept_shape(shape, ax, keepdim):
    """The shape of a reduction of `shape` over the axes ax (None: all)."""
    red = range(len(shape)) if ax is None else ax
    return tuple(1 if i in red else m for i, m in enumerate(shape) if keepdim or i not in red)


def _expand_back(g, shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input shape."""
    if not keepdim and dims is not None and len(shape):
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape) if tuple(g.shape) != tuple(shape) else g


def _np_expand_back(g, shape, dims, keepdim):
    """NumPy twin of _expand_back: a read-only broadcast view (no copy), as PyTorch's expand."""
    if type(g) is np.ndarray and g.size == 1 and g.flags.c_contiguous and shape:
        # a one-element gradient (sum over everything): the view built directly, ~10x cheaper than broadcast_to
        v = np.ndarray(shape, g.dtype, g, 0, (0,) * len(shape))
        v.flags.writeable = False
        return v
    if not keepdim and dims is not None and len(shape):
        g = np.expand_dims(g, dims)
    return np.broadcast_to(g, shape)


def _ordered_sum(d, dims, keepdim, npdt):
    """torch's float sum of ndarray d in dtype npdt, added in torch's CPU order (_sum_order), shaped as the
    result; None where that order is not modelled. A dtype change casts first, as ATen's CPU sum does."""
    if d.dtype != npdt:      # self.to(dtype) keeps the dims' stride order, as NumPy's order="K"
        d = d.astype(npdt, order="K")
    nd = d.ndim
    r = _sum_order.torch_sum(d, dims if dims is not None else _ALL_DIMS[nd] if nd < 9 else range(nd))
    if r is None:
        return None
    if dims is None:
        shape = (1,) * nd if keepdim else ()
    elif keepdim:
        shape = tuple(1 if i in dims else n for i, n in enumerate(d.shape))
    else:
        shape = tuple(n for i, n in enumerate(d.shape) if i not in dims)
    return r.reshape(shape) if type(r) is np.ndarray else np.asarray(r).reshape(shape)


_ALL_DIMS = [frozenset(range(n)) for n in range(9)]
_NO_KWARGS = {}
# the dtypes summed in torch's order (none on CPUs whose kernel widths _sum_order does not model)
_ORDERED = (np.dtype(np.float32), np.dtype(np.float64)) if _sum_order.MODELLED else ()
_HALF = (np.dtype(np.float16),) if _sum_order.MODELLED else ()


class SumBackward1(Op):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        d = a._data
        ctx.shape, ctx.dims, ctx.keepdim = d.shape, dims, keepdim
        npdt = dt.np
        if dims is None and not keepdim and d.dtype == npdt and npdt in _ORDERED and d.flags.c_contiguous and d.size:
            # loss.sum(): the full sum of a contiguous float tensor, as sum()'s path without a graph
            return _sum_order.full_sum(d)
        if npdt in _ORDERED or npdt in _HALF:
            r = _ordered_sum(d, dims, keepdim, npdt)
            if r is not None:
                return r
        # dtype=None keeps a float input's dtype; NumPy would widen small ints, so name them.
        # np.add.reduce is what ndarray.sum runs, minus a Python wrapper
        r = np.add.reduce(d, _axis(dims, d.ndim), None if npdt == d.dtype and d.dtype.kind == "f" else npdt,
                          None, keepdim)
        return r if type(r) is np.ndarray else np.asarray(r)

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
    dt = t.dtype
    return dt if dt.is_floating_point else _dt.int64


@register(category="reduction", methods=("sum",))
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over dim (all dims if None); bool/int inputs sum to int64."""
    if dim is None and dtype is None and not keepdim:
        d = input._data
        if d.dtype in _ORDERED and d.flags.c_contiguous and d.size and \
                not (input._requires_grad and STATE.grad_enabled):
            # the common call with no graph to record: what Op.apply would run, minus its frames
            return Tensor._make(_sum_order.full_sum(d))
    if dim is None:
        # sum over everything (the common call): a float input keeps its dtype
        fdt = _dt._FROM_NP.get(input._data.dtype) if dtype is None and input._data.dtype.kind == "f" else None
        if fdt is not None and type(input) is Tensor and input._requires_grad and STATE.grad_enabled:
            # loss.sum() on a graph: the node Op.apply would record, without its scan of the arguments
            return SumBackward0._record((input,), (input, None, keepdim, fdt), _NO_KWARGS)
        return SumBackward0.apply(input, None, keepdim, fdt or _sum_dtype(input, dtype))
    dims = _dims(dim, input._data.ndim)
    if dims is None:   # sum(dim=()) reduces everything, through the dim overload
        dims = tuple(range(input._data.ndim))
    cls = SumBackward0 if dims is None else SumBackward1
    return cls.apply(input, dims, keepdim, _sum_dtype(input, dtype))


@register(category="reduction", methods=("nansum",))
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero."""
    dims = _dims(dim, input._data.ndim)
    return NansumBackward0.apply(input, dims, keepdim, _sum_dtype(input, dtype))


class NansumBackward0(Op):
    """Sum ignoring NaN; the gradient is zero where the input is NaN."""

    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        d = a._data
        npdt = np.dtype(dt.np)
        if d.dtype == npdt and npdt in _ORDERED and d.size:
            # SumKernel.cpp's cascade_sum<ignore_nan=true>: torch's sum order with NaNs loaded as 0. A NaN always
            # reaches its slice's sum, so the plain ordered sum is the answer when it has none
            s = _ordered_sum(d, dims, keepdim, npdt)
            if s is not None and np.isnan(s).any():
                s = _ordered_sum(np.where(np.isnan(d), npdt.type(0), d), dims, keepdim, npdt)
            if s is not None:
                return s
        return np.asarray(np.nansum(d, axis=_axis(dims, d.ndim), keepdims=keepdim, dtype=dt.np))

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        keep = Tensor._make((~np.isnan(a._data)).astype(g._data.dtype))
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * keep


def _np_mean(x, ax, keepdim, npdt):
    return np.mean(x, axis=ax, keepdims=keepdim, dtype=npdt)


class MeanBackward1(Op):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dt):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        ax = _axis(dims, a._data.ndim)
        n = a._data.size if ax is None else int(np.prod([a._data.shape[d] for d in ax]))
        ctx.n = n
        if not n:
            return np.full(np.sum(a._data, axis=ax, keepdims=keepdim).shape, np.nan, dtype=dt.np)
        npdt = np.dtype(dt.np)
        if npdt in _ORDERED or npdt == np.float16:
            # ATen's CPU mean is sum(dtype) / n, in float32 for a half result (then rounded to half)
            sdt = npdt if npdt in _ORDERED else _ORDERED[0]
            s = _ordered_sum(a._data, dims, keepdim, sdt)
            if s is not None:
                return np.divide(s, sdt.type(n), dtype=sdt).astype(npdt, copy=False)
        return np.asarray(quietly(_np_mean, a._data, ax, keepdim, dt.np))

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n

    @staticmethod
    def backward_np(ctx, g):
        return _np_expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) / np.asarray(ctx.n, g.dtype)


class MeanBackward0(MeanBackward1):
    pass


_dtname = _dt.scalar_name


@register(category="reduction", methods=("mean",))
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean; integer inputs need an explicit floating dtype, as in PyTorch."""
    dt = _dt.as_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a floating point or "
                           f"complex dtype. Got: {_dtname(dt)}")
    dims = _dims(dim, input._data.ndim)
    if dims is None and dim is not None:
        dims = tuple(range(input._data.ndim))
    if out is not None:     # an explicit dtype must be out's; otherwise the result is cast into out
        if dtype is not None:
            check_out_dtype(out, dt.np)
        return _out((MeanBackward0 if dims is None else MeanBackward1).apply(input, dims, keepdim, dt), out)
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
        d = a._data
        if d.dtype == dt.np and d.ndim:
            r = quietly(_prod_order.torch_prod, d, set(range(d.ndim)) if dims is None else set(dims))
            if r is not None:
                shape = [1 if dims is None or k in dims else m for k, m in enumerate(d.shape)] if keepdim else \
                    [m for k, m in enumerate(d.shape) if dims is not None and k not in dims]
                return np.asarray(r).reshape(shape)
        return np.asarray(np.prod(d, axis=_axis(dims, d.ndim), keepdims=keepdim, dtype=dt.np))

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        gx = _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim)
        if not (a._data == 0).any():       # prod_backward: grad * (result / input)
            return gx * (_expand_back(out, ctx.shape, ctx.dims, ctx.keepdim) / a)
        if a._data.ndim == 0:     # a 0-d zero: the product of no other elements is 1
            return gx
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


class _EvenlyAll(_MaxAll):
    """max() / min() over all elements: evenly_distribute_backward, zeros with grad / count written at the
    elements equal to the result (all NaN elements when it is NaN): +0 elsewhere, whatever grad's sign."""

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        mask = a.isnan() if bool(out.isnan()) else a == out
        return a.new_zeros(a.shape).masked_fill(mask, g / mask.sum())


# PyTorch names: max()/min() -> MaxBackward1/MinBackward1, max(dim)/min(dim) -> MaxBackward0/MinBackward0
MaxBackward1 = type("MaxBackward1", (_EvenlyAll,), {})
MinBackward1 = type("MinBackward1", (_EvenlyAll,), {})
MaxBackward0 = type("MaxBackward0", (_MaxDim,), {})
MinBackward0 = type("MinBackward0", (_MaxDim,), {})


def _maxmin(input, dim, keepdim, is_max, out=None):
    name = "max" if is_max else "min"
    if not isinstance(input, Tensor):
        _not_a_tensor(name, input, dim)
    if isinstance(dim, Tensor):
        return (maximum if is_max else minimum)(input, dim, out=out)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool, ), but "
                            "expected one of:\n * ()\n * (Tensor other)\n * (int dim, bool keepdim)\n"
                            " * (name dim, bool keepdim)\n")
        _empty_check(input, None, name)
        r = (MaxBackward1 if is_max else MinBackward1).apply(input, None, False, is_max)
        return r if out is None else _out(r, out)
    d = _wrap_dim(dim, input._data.ndim)
    _empty_check(input, (d,) if input._data.ndim else (), name)
    vals, idx = (MaxBackward0 if is_max else MinBackward0).apply(input, d, keepdim, is_max)
    res = (return_types.max if is_max else return_types.min)(vals, idx)
    if out is None:
        return res
    return out_tuple(res, out, name, _out, (EXPECTED_DTYPE, EXPECTED_DTYPE), (input,))


def _not_a_tensor(name, input, dim):
    """PyTorch's argument parser on max/min(number, ...): no overload matches (TypeError)."""
    if dim is None:
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(input).__name__}, "
                    f"{type(dim).__name__}), but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
                    " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                    " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n")


@register(category="reduction", methods=("max",))
def max(input, dim=None, keepdim=False, *, out=None):
    """max() -> the largest element; max(dim) -> (values, indices); max(other) -> elementwise maximum."""
    return _maxmin(input, dim, keepdim, True, out)


@register(category="reduction", methods=("min",))
def min(input, dim=None, keepdim=False, *, out=None):
    """min() -> the smallest element; min(dim) -> (values, indices); min(other) -> elementwise minimum."""
    return _maxmin(input, dim, keepdim, False, out)


_AMAX_OUT_DTYPE = "Expected the dtype for input and out to match, but got {W} for input's dtype and {G} for out's dtype."


@register(category="reduction", methods=("amax",))
def amax(input, dim=(), keepdim=False, *, out=None):
    """Max over dims (all if empty); ties share the gradient evenly."""
    dims = _dims(dim, input._data.ndim)
    _empty_check(input, dims, "amax")
    if out is not None:
        check_out_dtype(out, input._data.dtype, _AMAX_OUT_DTYPE)
        return _out(AmaxBackward0.apply(input, dims, keepdim, True), out)
    return AmaxBackward0.apply(input, dims, keepdim, True)


@register(category="reduction", methods=("amin",))
def amin(input, dim=(), keepdim=False, *, out=None):
    """Min over dims (all if empty); ties share the gradient evenly."""
    dims = _dims(dim, input._data.ndim)
    _empty_check(input, dims, "amin")
    if out is not None:
        check_out_dtype(out, input._data.dtype, _AMAX_OUT_DTYPE)
        return _out(AminBackward0.apply(input, dims, keepdim, False), out)
    return AminBackward0.apply(input, dims, keepdim, False)


def _arg(input, dim, keepdim, is_max):
    name = "argmax" if is_max else "argmin"
    d = input._data
    if d.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer))):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dim is None:
        if d.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
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


def _np_logsumexp(x, ax):
    if x.size == 0:
        return np.log(np.sum(np.exp(x), axis=ax, keepdims=True))
    m = np.max(x, axis=ax, keepdims=True)
    m = np.where(np.isinf(m), 0, m).astype(x.dtype)
    return np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m


class LogsumexpBackward0(Op):
    """log(sum(exp(x))) computed from the max (PyTorch's formula); gradient grad * exp(x - result)."""
    save_output = True

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        x = a._data
        ax = _axis(dims, x.ndim)
        r = quietly(_np_logsumexp, x, ax)
        if not keepdim:
            r = np.squeeze(r, axis=ax) if ax is not None else r.reshape(())
        return np.asarray(r, dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        o = _expand_back(out, ctx.shape, ctx.dims, ctx.keepdim)
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim) * (a - o).exp()


@register(category="reduction", methods=("logsumexp",))
def logsumexp(input, dim, keepdim=False, *, out=None):
    """log(sum(exp(x))) over dim, computed stably; integer inputs give the default float."""
    x = input if input.dtype.is_floating_point else input.to(_dt.get_default_dtype())
    dims = _dims(dim, x._data.ndim)
    if dims is None:
        if x._data.ndim and not keepdim:   # PyTorch reduces everything into a keepdim-shaped buffer and fails
            raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                               f"[{', '.join(['1'] * x._data.ndim)}]")
        dims = tuple(range(x._data.ndim))
    if out is not None:
        if isinstance(out, Tensor) and not out.dtype.is_floating_point:
            raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: "
                               f"{_dt.scalar_name(out.dtype)}")
        if isinstance(out, Tensor) and out.dtype != x.dtype:   # computed in out's dtype, as ATen
            x = x.to(out.dtype)
        return _out(LogsumexpBackward0.apply(x, dims, keepdim), out)
    return LogsumexpBackward0.apply(x, dims, keepdim)


@register(category="reduction", methods=("all",))
def all(input, dim=None, keepdim=False):
    """True if every element (along dim) is nonzero."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:   # dim=() reduces nothing, as in PyTorch
        r = input._data.astype(bool)
    else:
        dims = _dims(dim, input._data.ndim)
        r = np.asarray(np.all(input._data, axis=_axis(dims, input._data.ndim), keepdims=keepdim))
    return Tensor._make(r.astype(np.uint8) if input._data.dtype == np.uint8 else r)


@register(category="reduction", methods=("any",))
def any(input, dim=None, keepdim=False):
    """True if some element (along dim) is nonzero."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:   # dim=() reduces nothing, as in PyTorch
        r = input._data.astype(bool)
    else:
        dims = _dims(dim, input._data.ndim)
        r = np.asarray(np.any(input._data, axis=_axis(dims, input._data.ndim), keepdims=keepdim))
    return Tensor._make(r.astype(np.uint8) if input._data.dtype == np.uint8 else r)


@register(category="reduction", methods=("count_nonzero",))
def count_nonzero(input, dim=None):
    """Number of nonzero elements (along dim), int64."""
    dims = _dims(dim, input._data.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=_axis(dims, input._data.ndim)), dtype=np.int64))


# at::acc_type<T, /*is_cuda=*/false>: the accumulator ATen's CPU cumulative kernels (cumsum_cpu_kernel,
# cumprod_cpu_kernel, logcumsumexp_cpu_kernel) carry along the dim: double for float and double, float for half.
def _np_vector_norm(x, ord, ax, keepdim):
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=ax, keepdims=keepdim))
    if ord == 1:
        return np.sum(x, axis=ax, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=ax, keepdims=keepdim).astype(x.dtype)
    if np.isinf(ord):
        return (np.max if ord > 0 else np.min)(x, axis=ax, keepdims=keepdim)
    return np.sum(x ** ord, axis=ax, keepdims=keepdim) ** (1.0 / ord)


class LinalgVectorNormBackward0(Op):
    """Vector p-norm (PyTorch's linalg.vector_norm) in torch's CPU kernel order (_norm_order: bit for bit for
    float32 / float64); backward is PyTorch's norm_backward, which gives 0 (not NaN) where the norm is 0."""
    save_output = True

    @staticmethod
    def forward(ctx, a, ord, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.ord, ctx.shape, ctx.dims, ctx.keepdim = ord, a._data.shape, dims, keepdim
        x = np.abs(a._data)
        ax = _axis(dims, x.ndim)
        if np.isinf(ord):
            reduced = x.shape if ax is None else [x.shape[d] for d in ax]
            if 0 in reduced:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor "
                                   "because the operation does not have an identity")
        if ord != 0 and not np.isinf(ord):     # NumPy's count and max / min are torch's already
            exact = _norm_order.torch_vector_norm(a._data, ord, tuple(range(x.ndim)) if ax is None else tuple(ax))
            if exact is not None:
                return exact.reshape(_kept_shape(x.shape, ax, keepdim))
        return np.asarray(quietly(_np_vector_norm, x, ord, ax, keepdim), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        a, norm = ctx.saved_tensors
        p = ctx.ord
        if not ctx.keepdim and ctx.dims is not None and len(ctx.shape):
            for d in ctx.dims:
                g = g.unsqueeze(d)
                norm = norm.unsqueeze(d)
        if p == 0:
            return zeros_like_t(a)
        if p == 1:
            return a.sign() * g
        if p == 2:
            return g * where(norm == 0, zeros_like_t(norm), a / norm)
        if np.isinf(p):
            aa = a.abs()
            mask = (aa == norm).logical_or(aa.isnan()).to(g.dtype)
            cnt = mask.sum(dim=list(ctx.dims) if ctx.dims is not None else None, keepdim=True)
            return a.sign() * ((g / cnt) * mask)
        if p < 1:
            scaled = a.sign() * where(a == 0, zeros_like_t(a), a.abs() ** (p - 1))
            return scaled * g * norm ** (1 - p)
        scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
        scale = where(norm == 0, zeros_like_t(norm), g / norm ** (p - 1))
        return scaled * scale


def _vector_norm(input, ord, dim, keepdim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtname(input.dtype)}")
    dims = _dims(dim, input._data.ndim)
    return LinalgVectorNormBackward0.apply(input, float(ord), dims, keepdim)


class LinalgSvdBackward0(Op):
    """Singular values of the last two dims (svdvals); gradient U diag(g) Vh."""

    @staticmethod
    def forward(ctx, a):
        u, sv, vh = np.linalg.svd(a._data, full_matrices=False)
        ctx.save_for_backward(Tensor._make(u), Tensor._make(vh))
        return sv.astype(a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        u, vh = ctx.saved_tensors
        return (u * g.unsqueeze(-2)).matmul(vh)


def _nuclear_norm(input, dim, keepdim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    nd = input._data.ndim
    dims = tuple(range(nd)) if dim is None else tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    d0, d1 = (_wrap_dim(d, nd) for d in dims)
    rest = [d for d in range(nd) if d not in (d0, d1)]
    x = input.permute(*rest, d0, d1) if (d0, d1) != (nd - 2, nd - 1) else input
    r = LinalgSvdBackward0.apply(x).sum(-1)
    if keepdim:   # PyTorch unsqueezes at the end and permutes the two dims back into place
        perm = rest + [d0, d1]
        inv = [perm.index(i) for i in range(nd)]
        r = r.unsqueeze(-1).unsqueeze(-1).permute(*inv)
    return r


@register(category="reduction", methods=("norm",))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over dim (all elements by default); p='fro' is the 2-norm, p='nuc' the nuclear norm."""
    if isinstance(p, str):
        if p == "nuc":
            return _nuclear_norm(input, dim, keepdim, dtype)
        if p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if isinstance(dim, (list, tuple)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    if p is None:
        p = 2
    return _vector_norm(input, p, dim, keepdim, dtype)


@register(category="reduction", methods=("dist",))
def dist(input, other, p=2):
    """p-norm of input - other."""
    return norm(input - other, p)
