"""Joining copies: cat (concat, concatenate), stack, hstack / vstack / row_stack / dstack /
column_stack, and atleast_1d / 2d / 3d (views)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor, _wrap_dim
from ..inplace import _FCTX, _view
from ..pointwise import _out
from ..registry import register
from ._util import _check_alloc, _nonempty, _shape_str, _tensor_list
from .slicing import SliceBackward0, select
from .squeeze import unsqueeze
from .views import reshape

class CatBackward0(Op):
    @staticmethod
    def forward(ctx, tensors, dim, bounds, dtype):
        ctx.dim, ctx.bounds = dim, bounds
        arrays = [t._data for t, b in zip(tensors, bounds) if b is not None]
        if not arrays:
            return np.zeros((0,), dtype=dtype)
        if all(a.dtype == dtype for a in arrays):
            r = np.concatenate(arrays, axis=dim)
        else:
            r = np.concatenate(arrays, axis=dim, dtype=dtype, casting="unsafe")
        return r if r.flags.c_contiguous else r.copy(order="C")   # torch.cat's result is contiguous

    @staticmethod
    def backward(ctx, g):
        out = []
        for b in ctx.bounds:
            if b is None:
                out.append(Tensor._make(np.zeros((0,), dtype=g._data.dtype)))
            else:
                out.append(_view(SliceBackward0, g, ctx.dim, b[0], b[1]))
        return tuple(out)

    @staticmethod
    def backward_np(ctx, g):
        pre = (slice(None),) * ctx.dim
        return tuple(np.zeros((0,), dtype=g.dtype) if b is None else g[pre + (slice(b[0], b[1]),)]
                     for b in ctx.bounds)


@register(category="shape", kind="view")
def cat(tensors, dim=0, *, out=None):
    """Concatenate along an existing dim; sizes must match elsewhere (legacy empty 1-D inputs are skipped)."""
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _tensor_list(tensors, "cat")
    try:
        arrays = [x._data for x in tensors]
    except AttributeError:
        _tensor_list(tensors, "cat")
        raise
    if not arrays:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if type(dim) is not int and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer))):
        raise TypeError(f"cat(): argument 'dim' must be int, not {type(dim).__name__}")
    a0 = arrays[0]
    npdt = a0.dtype
    ref = None
    grad = False
    for i, a in enumerate(arrays):
        if a.dtype != npdt:
            npdt = None
        sh = a.shape
        if not sh:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if ref is None and sh != (0,):
            ref = sh
    for x in tensors:
        if x._requires_grad:
            grad = STATE.grad_enabled
            break
    if npdt is None:
        dtype = tensors[0].dtype
        for x in tensors[1:]:
            dtype = _dt.promote_types(dtype, x.dtype)
        npdt = dtype.np
    if ref is None:
        d = _wrap_dim(dim, 1)
        bounds = [None] * len(arrays)
        shape = (0,)
    else:
        nd = len(ref)
        d = dim if type(dim) is int and 0 <= dim < nd else _wrap_dim(dim, nd)
        pre, post = ref[:d], ref[d + 1:]
        bounds, pos = [], 0
        for i, a in enumerate(arrays):
            sh = a.shape
            if sh == (0,):
                bounds.append(None)
                continue
            if sh[:d] != pre or sh[d + 1:] != post:
                if len(sh) != nd:
                    raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(sh)}")
                k = next(k for k in range(nd) if k != d and sh[k] != ref[k])
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref[k]} but got size {sh[k]} for tensor number {i} in the list.")
            n = sh[d]
            bounds.append((pos, pos + n))
            pos += n
        shape = pre + (pos,) + post
    _check_alloc(shape, npdt)
    if grad:
        r = CatBackward0.apply(list(tensors), d, bounds, npdt)
    else:
        r = Tensor._make(CatBackward0.forward(_FCTX, tensors, d, bounds, npdt))
    if out is not None:
        return _out(r, out, *tensors)
    return r


@register(category="shape")
def concat(tensors, dim=0, *, out=None):
    """Alias of cat."""
    return cat(tensors, dim, out=out)


@register(category="shape")
def concatenate(tensors, dim=0, out=None):
    """Alias of cat (`axis=` is accepted as everywhere `dim` is)."""
    return cat(tensors, dim, out=out)


class StackBackward0(Op):
    @staticmethod
    def forward(ctx, tensors, dim, dtype):
        ctx.dim = dim
        arrays = [t._data for t in tensors]
        if all(a.dtype == dtype for a in arrays):
            shp = arrays[0].shape
            return np.concatenate([a.reshape(shp[:dim] + (1,) + shp[dim:]) for a in arrays], axis=dim)
        return np.stack(arrays, axis=dim, dtype=dtype, casting="unsafe")

    @staticmethod
    def backward(ctx, g):
        return tuple(select(g, ctx.dim, i) for i in range(g._data.shape[ctx.dim]))

    @staticmethod
    def backward_np(ctx, g):
        pre = (slice(None),) * ctx.dim
        return tuple(g[pre + (i,)] for i in range(g.shape[ctx.dim]))


@register(category="shape", kind="view")
def stack(tensors, dim=0, *, out=None):
    """Stack equal-shaped tensors along a new dim."""
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    arrays = [x._data for x in ts]
    s0 = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_shape_str(s0)} at entry 0 "
                               f"and {_shape_str(a.shape)} at entry {i}")
    d = dim if type(dim) is int and 0 <= dim <= len(s0) else _wrap_dim(dim, len(s0) + 1)
    npdt = arrays[0].dtype
    if any(a.dtype != npdt for a in arrays):
        dtype = ts[0].dtype
        for x in ts[1:]:
            dtype = _dt.promote_types(dtype, x.dtype)
        npdt = dtype.np
    _check_alloc(s0[:d] + (len(ts),) + s0[d:], npdt)
    if STATE.grad_enabled and any(x._requires_grad for x in ts):
        r = StackBackward0.apply(ts, d, npdt)
    else:
        r = Tensor._make(StackBackward0.forward(_FCTX, ts, d, npdt))
    if out is not None:
        return _out(r, out, *ts)
    return r


@register(category="shape")
def atleast_1d(*tensors):
    """0-D tensors become 1-D views; others are returned as is."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_1d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_1d(x) for x in tensors)
    x = tensors[0]
    return reshape(x, (1,)) if x._data.ndim == 0 else x


@register(category="shape")
def atleast_2d(*tensors):
    """0-D and 1-D tensors become 2-D views (1-D gains a leading dim)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_2d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_2d(x) for x in tensors)
    x = tensors[0]
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, (1, 1))
    return unsqueeze(x, 0) if nd == 1 else x


@register(category="shape")
def atleast_3d(*tensors):
    """0-D -> (1,1,1), 1-D (n) -> (1,n,1), 2-D (m,n) -> (m,n,1); others as is."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_3d(x) for x in tensors)
    x = tensors[0]
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, (1, 1, 1))
    if nd == 1:
        return unsqueeze(unsqueeze(x, 0), -1)
    return unsqueeze(x, -1) if nd == 2 else x


@register(category="shape")
def hstack(tensors, *, out=None):
    """Concatenate column-wise (dim 1; dim 0 for 1-D inputs)."""
    ts = [atleast_1d(x) for x in _nonempty(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


@register(category="shape")
def vstack(tensors, *, out=None):
    """Concatenate row-wise after making inputs at least 2-D."""
    return cat([atleast_2d(x) for x in _nonempty(tensors, "vstack")], 0, out=out)


@register(category="shape")
def row_stack(tensors, *, out=None):
    """Alias of vstack."""
    return vstack(tensors, out=out)


@register(category="shape")
def dstack(tensors, *, out=None):
    """Concatenate depth-wise (dim 2) after making inputs at least 3-D."""
    return cat([atleast_3d(x) for x in _nonempty(tensors, "dstack")], 2, out=out)


@register(category="shape")
def column_stack(tensors, *, out=None):
    """Stack 0-D/1-D inputs as columns (n -> n x 1) and concatenate along dim 1."""
    ts = _nonempty(tensors, "column_stack")
    ts = [reshape(x, (x._data.size, 1)) if x._data.ndim <= 1 else x for x in ts]
    return cat(ts, 1, out=out)
