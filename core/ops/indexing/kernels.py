"""NumPy kernels of the gather/scatter family on flat C-order offsets (`np.take` on the raveled array, fancy
assignment, `np.add.at` on 1-D flat indices) instead of `take_along_axis` / multi-dimensional `ufunc.at`.
Indices reaching these kernels are already validated (bounds checked, negatives wrapped where allowed)."""
from __future__ import annotations

import numpy as np

from ._common import _I64, _c_strides, _contiguous_target

def _flat_along(shape, dim, idx):
    """Flat C-order offsets into an array of `shape`: position p of idx addresses the element whose
    coordinates are p with coordinate `dim` replaced by idx[p] (idx may be smaller than shape)."""
    st = _c_strides(shape)
    base = None
    nd = idx.ndim
    for d in range(nd):
        if d == dim or idx.shape[d] == 1:
            continue
        r = np.arange(idx.shape[d], dtype=np.int64) * st[d]
        r = r.reshape([-1 if k == d else 1 for k in range(nd)])
        base = r if base is None else base + r
    if st[dim] == 1:
        if base is None:
            return idx if idx.dtype == _I64 else idx.astype(np.int64)
        return np.add(idx, base, dtype=np.int64)
    flat = np.multiply(idx, st[dim], dtype=np.int64)
    if base is not None:
        flat += base
    return flat


def _src_region(src, ishape):
    """src restricted to the leading ishape block (scatter uses only that part of a larger src)."""
    if src.shape == tuple(ishape):
        return src
    return src[tuple(slice(0, s) for s in ishape)]


def _gather_np(a, dim, idx):
    """out[p] = a[p with p[dim] = idx[p]] for validated idx (0 <= idx < a.shape[dim]); a is >= 1-d."""
    if idx.size == 0:
        return np.empty(idx.shape, a.dtype)
    if a.flags.c_contiguous:
        return np.take(a.reshape(-1), _flat_along(a.shape, dim, idx), mode="wrap")
    sub = a[tuple(slice(None) if d == dim else slice(0, idx.shape[d]) for d in range(a.ndim))]
    return np.take_along_axis(sub, idx, dim)


def _scatter_np(out, dim, idx, src, how):
    """Write src (array, index-shaped region used) or a scalar into `out` in place along dim.
    how: 'set' | 'add' | 'multiply' | 'amax' | 'amin'."""
    if idx.size == 0:
        return
    work, copy_back = _contiguous_target(out)
    flat = _flat_along(work.shape, dim, idx).reshape(-1)
    wv = work.reshape(-1)
    vals = src if np.ndim(src) == 0 else np.ascontiguousarray(_src_region(src, idx.shape)).reshape(-1)
    if how == "set":
        wv[flat] = vals
    else:
        ufunc = {"add": np.add, "multiply": np.multiply, "amax": np.maximum, "amin": np.minimum}[how]
        ufunc.at(wv, flat, vals)
    if copy_back:
        np.copyto(out, work)


def _scatter_apply(a, dim, idx, src, how):
    """Write into array `a` in place (handles 0-d)."""
    if idx is None:
        return
    if a.ndim == 0:
        view = a.reshape(1)
        s = src if np.ndim(src) == 0 else np.asarray(src).reshape(-1)
        _scatter_np(view, dim, idx.reshape(-1), s, how)
        return
    s = src
    if np.ndim(src) != 0 and np.ndim(src) < a.ndim:
        s = np.asarray(src).reshape((1,) * (a.ndim - np.ndim(src)) + np.shape(src))
    _scatter_np(a, dim, idx if idx.ndim else idx.reshape((1,) * a.ndim), s, how)


def _reduce_identity(how, npdt):
    if how in ("sum", "mean"):
        return np.zeros((), npdt)[()]
    if how == "prod":
        return np.ones((), npdt)[()]
    if npdt.kind == "f":
        return npdt.type(-np.inf if how == "amax" else np.inf)
    if npdt.kind == "b":
        return np.bool_(how == "amin")
    info = np.iinfo(npdt)
    return npdt.type(info.min if how == "amax" else info.max)


def _scatter_reduce_np(a, dim, idx, src, how, include_self):
    out = a.copy()
    if idx is None:
        return out
    if out.ndim == 0:
        return _scatter_reduce_np(out.reshape(1), dim, idx.reshape(-1), src.reshape(-1), how, include_self).reshape(())
    if idx.ndim == 0:
        idx = idx.reshape((1,) * out.ndim)
    if src.ndim < out.ndim:
        src = src.reshape((1,) * (out.ndim - src.ndim) + src.shape)
    if not include_self:
        _scatter_np(out, dim, idx, _reduce_identity(how, out.dtype), "set")
    ufunc_how = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "amax", "amin": "amin"}[how]
    _scatter_np(out, dim, idx, src, ufunc_how)
    if how == "mean":
        counts = np.zeros(out.shape, np.int64)
        _scatter_np(counts, dim, idx, np.ones((), np.int64), "add")
        if include_self:
            counts += 1
        counts[counts == 0] = 1
        if out.dtype.kind == "f":
            out /= counts.astype(out.dtype)
        else:
            np.floor_divide(out, counts, out=out, casting="unsafe")
    return out


def _index_add_np(out, dim, idx, src, alpha):
    """out[..., idx[k], ...] += alpha * src[..., k, ...] along dim, in place (duplicates accumulate)."""
    if idx.size == 0:
        return
    if out.ndim == 0:
        s = src.reshape(())
        if out.dtype.kind != "f":
            alpha = int(alpha)
        out[...] = out + (s * alpha if alpha != 1 else s)
        return
    s = src if src.ndim else src.reshape((1,) * out.ndim)
    if out.dtype.kind != "f":
        alpha = int(alpha)  # PyTorch converts alpha to the integer type first
    if alpha != 1:
        with np.errstate(all="ignore"):
            s = (s * alpha).astype(out.dtype, copy=False)
    _add_slabs(out, dim, idx.reshape(-1), s)


_SLAB_LOOP_MIN = 512   # per-index slab size from which a Python loop of vectorized adds beats np.add.at


def _add_slabs(out, dim, idx, src):
    """out[(:,)*dim + (idx[k],)] += src[(:,)*dim + (k,)] for every k, in place (duplicates accumulate)."""
    if out.size // max(out.shape[dim], 1) >= _SLAB_LOOP_MIN:
        lead = (slice(None),) * dim
        for k, i in enumerate(idx.tolist()):
            out[lead + (i,)] += src[lead + (k,)]
        return
    work, copy_back = _contiguous_target(out)
    along = np.broadcast_to(idx.reshape([-1 if d == dim else 1 for d in range(out.ndim)]), src.shape)
    flat = _flat_along(work.shape, dim, along)
    np.add.at(work.reshape(-1), flat.reshape(-1), np.ascontiguousarray(np.broadcast_to(src, flat.shape)).reshape(-1))
    if copy_back:
        np.copyto(out, work)


