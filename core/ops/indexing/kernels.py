"""NumPy kernels of the gather/scatter family on flat C-order offsets (`np.take` on the raveled array, fancy
assignment, `np.add.at` on 1-D flat indices) instead of `take_along_axis` / multi-dimensional `ufunc.at`.
gather/scatter kernels work block by block of index rows in a reused offsets buffer and check the bounds per block
(PyTorch's errors, raised where its kernel raises); the other kernels get validated indices."""
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


# index elements per block: its int64 offsets (2 MiB) stay in cache across the block's passes; measured on 2000x2000
# (scatter_ / scatter_add_ / gather along dim 1, 32-260 rows a block): 130 rows (this size) fastest for all three
_BLOCK = 262144
_UFUNCS = {"add": np.add, "multiply": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _bounds_error(value, dim, size):
    return RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}")


def _row_base(shape, dim, ishape):
    """Offsets (C order, into an array of `shape`) from every coordinate of an index block of shape `ishape`
    except `dim` (rows of the block count from 0; the caller shifts the flat array by the block's first row).
    The last one is kept (read-only): repeated calls on one shape (a training loop) skip ~0.15 ms per 2 MiB."""
    global _LAST_BASE
    key = (shape, dim, ishape)
    last_key, base = _LAST_BASE      # one read of one tuple: another thread cannot pair a key with a wrong base
    if last_key == key:
        return base
    base = _build_row_base(shape, dim, ishape)
    base.flags.writeable = False
    _LAST_BASE = (key, base)
    return base


_LAST_BASE = (None, None)    # (key, base) of the last _row_base


def _build_row_base(shape, dim, ishape):
    st = _c_strides(shape)
    base = np.zeros(ishape, np.int64)
    for d in range(len(ishape)):
        if d != dim and ishape[d] > 1:
            along = [-1 if k == d else 1 for k in range(len(ishape))]
            base += (np.arange(ishape[d], dtype=np.int64) * st[d]).reshape(along)
    return base


def _blocks(shape, dim, idx, block=None):
    """Flat offsets of idx along `dim` (into a C-contiguous array of `shape`), block by block of idx rows (axis 0),
    built in one reused int64 buffer. Yields (r0, r1, shift, offsets, bad): offsets address the raveled array
    from element `shift` on; bad is None, or (C-order position in the block, value) of the block's first index
    outside [0, shape[dim]) - the caller handles the elements before it, then raises, as PyTorch's kernel does."""
    size = shape[dim]
    rows = idx.shape[0]
    step = max(1, min(rows, (block or _BLOCK) // max(1, idx.size // max(rows, 1))))
    base = _row_base(tuple(shape), dim, (step,) + idx.shape[1:])
    buf = np.empty(base.shape, np.int64)
    row_stride, stride = _c_strides(shape)[0], _c_strides(shape)[dim]
    unsigned = np.uint64 if idx.dtype.itemsize == 8 else np.uint32
    for r0 in range(0, rows, step):
        blk = idx[r0:r0 + step]
        k = blk.shape[0]
        off = buf[:k]
        bad = None
        if stride == 1:
            np.add(blk, base[:k], out=off)
        else:
            np.multiply(blk, stride, out=off)
            off += base[:k]
        # checked after the offsets pass brought the block into cache (checking first read it from memory
        # twice: ~0.4 ms of a 2000x2000 scatter); nothing is written before the check
        if blk.view(unsigned).max() >= size:   # one pass: negative entries are huge when viewed unsigned
            flat = blk.reshape(-1)
            p = int(np.flatnonzero((flat < 0) | (flat >= size))[0])
            bad = (p, int(flat[p]))
        yield r0, r0 + k, (0 if dim == 0 else r0 * row_stride), off, bad


def _gather_np(a, dim, idx):
    """out[p] = a[p with p[dim] = idx[p]] (a is >= 1-d, idx has a's rank); RuntimeError for an index outside
    [0, a.shape[dim]). C-contiguous a: `np.take` on the raveled array per block of flat offsets."""
    if idx.size == 0:
        return np.empty(idx.shape, a.dtype)
    if not a.flags.c_contiguous:
        for _, _, _, _, bad in _blocks(a.shape, dim, idx):
            if bad is not None:
                raise _bounds_error(bad[1], dim, a.shape[dim])
        sub = a[tuple(slice(None) if d == dim else slice(0, idx.shape[d]) for d in range(a.ndim))]
        return np.take_along_axis(sub, idx, dim)
    out = np.empty(idx.shape, a.dtype)
    av = a.reshape(-1)
    for r0, r1, shift, off, bad in _blocks(a.shape, dim, idx):
        if bad is not None:
            raise _bounds_error(bad[1], dim, a.shape[dim])
        np.take(av[shift:], off, out=out[r0:r1], mode="wrap")   # offsets are in range: 'wrap' is NumPy's fast path
    return out


def _scatter_np(out, dim, idx, src, how):
    """Write src (array, index-shaped region used) or a scalar into `out` in place along dim, block by block
    of idx rows. how: 'set' (duplicates: the last write wins) | 'add' | 'multiply' | 'amax' | 'amin'. An index
    outside [0, out.shape[dim]) raises RuntimeError after the elements before it (C order) are written."""
    if idx.size == 0:
        return
    work, copy_back = _contiguous_target(out)
    wv = work.reshape(-1)
    scalar = np.ndim(src) == 0
    vals = src if scalar else _src_region(src, idx.shape)
    ufunc = _UFUNCS.get(how)
    try:
        for r0, r1, shift, off, bad in _blocks(work.shape, dim, idx):
            v = vals if scalar else vals[r0:r1]
            if bad is not None:
                p = bad[0]
                _write(wv[shift:], off.reshape(-1)[:p], v if scalar else np.ascontiguousarray(v).reshape(-1)[:p], ufunc)
                raise _bounds_error(bad[1], dim, work.shape[dim])
            _write(wv[shift:], off, v, ufunc)
    finally:
        if copy_back:
            np.copyto(out, work)


def _write(target, off, v, ufunc):
    if ufunc is None:
        target[off] = v
    else:
        ufunc.at(target, off.reshape(-1), v if np.ndim(v) == 0 else np.ascontiguousarray(v).reshape(-1))


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


