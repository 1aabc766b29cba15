"""Advanced-indexing machinery shared by index_put, __getitem__ and __setitem__: validating index tensors
(PyTorch's make_info), NumPy's placement rule for the advanced dims, flat positions of the selected
elements, accumulation with duplicates, and the region-write nodes (IndexPutBackward0, CopySlices,
CopyBackwards, FillBackward3) that in-place writes record."""
from __future__ import annotations

import math

import numpy as np

from ..._warn import warn_aten
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from ..inplace import rebase
from ..shape import check_view_inplace
from ._common import _c_strides, _contiguous_target, _lst, _out_of_range, _sname, _wrap_negative
from .kernels import _SLAB_LOOP_MIN
from .take import take

_UINT8_WARNING = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."


def _prep_adv(shape, entries):
    """Validate advanced indices like PyTorch's make_info and return one int64 array (broadcast, negative
    entries wrapped) or None per dim of `shape`. `entries` is [(dim, ndarray)] in dim order."""
    for _, arr in entries:
        if arr.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    per_dim = [None] * len(shape)
    used = 0
    for dim, arr in entries:
        if arr.dtype == np.bool_ or arr.dtype == np.uint8:
            if arr.dtype == np.uint8:
                warn_aten(_UINT8_WARNING, "aten/src/ATen/native/IndexingUtils.h:37")
                arr = arr.astype(bool)
            for j in range(arr.ndim):
                src = dim + j
                if src >= len(shape) or arr.shape[j] != shape[src]:
                    if src >= len(shape):
                        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
                    raise IndexError(f"The shape of the mask {_lst(arr.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {_lst(shape)} at index {src}")
            for j, nz in enumerate(np.nonzero(arr)):
                per_dim[dim + j] = nz
            used = max(used, dim + arr.ndim)
        else:
            if dim >= len(shape):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {dim + 1})")
            per_dim[dim] = arr
            used = max(used, dim + 1)
    arrays = [a for a in per_dim if a is not None]
    if not arrays:
        return per_dim
    try:
        bshape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_lst(a.shape) for a in arrays)) from None
    # PyTorch reports the first bad element of the broadcast result (then the first index tensor), and names
    # the index tensor's ordinal among the advanced indices as "dimension"
    rest = 1
    for d, a in enumerate(per_dim):
        if a is None:
            rest *= shape[d]
    if rest * math.prod(bshape) == 0:   # empty result: PyTorch's kernel never looks at the indices
        return [None if a is None else np.zeros(bshape, np.int64) for a in per_dim]
    bad = None  # (flat position, ordinal, value, size)
    k = -1
    for d, a in enumerate(per_dim):
        if a is None:
            continue
        k += 1
        size = shape[d]
        if _out_of_range(a, size, True):
            ab = np.broadcast_to(a, bshape).reshape(-1)
            pos = int(np.flatnonzero((ab < -size) | (ab >= size))[0])
            if bad is None or pos < bad[0]:
                bad = (pos, k, int(ab[pos]), size)
    if bad is not None:
        raise IndexError(f"index {bad[2]} is out of bounds for dimension {bad[1]} with size {bad[3]}")
    for d, a in enumerate(per_dim):
        if a is not None:
            per_dim[d] = np.broadcast_to(_wrap_negative(a, shape[d]), bshape)
    return per_dim


def _index_np(arr, per_dim):
    """arr[per_dim] (NumPy placement rule); empty results are built without indexing."""
    rshape = _positions_shape(arr.shape, per_dim)
    if math.prod(rshape) == 0:
        return np.empty(rshape, arr.dtype)
    return arr[_np_adv_tuple(per_dim)]


def _np_adv_tuple(per_dim):
    last = max(d for d, a in enumerate(per_dim) if a is not None)
    return tuple(slice(None) if a is None else a for a in per_dim[:last + 1])


def _positions(shape, per_dim):
    """Flat C-order offsets (into an array of `shape`) of the elements `arr[per_dim]` selects, laid out like
    the indexing result (advanced dims in place if adjacent, else first - NumPy's and PyTorch's rule)."""
    nd = len(shape)
    st = _c_strides(shape)
    adv = [d for d in range(nd) if per_dim[d] is not None]
    bshape = per_dim[adv[0]].shape
    off = None
    for d in adv:
        term = np.multiply(per_dim[d], st[d], dtype=np.int64)
        off = term if off is None else off + term
    rest = [d for d in range(nd) if per_dim[d] is None]
    if adv == list(range(adv[0], adv[-1] + 1)):
        pre = [d for d in rest if d < adv[0]]
        post = [d for d in rest if d > adv[-1]]
    else:
        pre, post = [], rest
    rshape = tuple(shape[d] for d in pre) + tuple(bshape) + tuple(shape[d] for d in post)
    nr = len(rshape)
    pos = off.reshape((1,) * len(pre) + tuple(bshape) + (1,) * len(post))
    axes = list(range(len(pre))) + list(range(len(pre) + len(bshape), nr))
    for ax, d in zip(axes, pre + post):
        r = (np.arange(shape[d], dtype=np.int64) * st[d]).reshape([-1 if k == ax else 1 for k in range(nr)])
        pos = pos + r
    return np.broadcast_to(pos, rshape)


def _accumulate_into(arr, per_dim, values):
    """arr[per_dim] += values (duplicates accumulate), in place."""
    if not any(p is not None for p in per_dim):
        np.add(arr, values, out=arr, casting="unsafe")
        return
    adv = [d for d, p in enumerate(per_dim) if p is not None]
    if adv == list(range(len(adv))):     # leading advanced dims: add whole slabs (row-like blocks)
        k = len(adv)
        tail = arr.shape[k:]
        if math.prod(tail) >= _SLAB_LOOP_MIN:
            bshape = per_dim[0].shape
            st = _c_strides(arr.shape[:k])
            lin = sum(np.multiply(per_dim[d], st[d], dtype=np.int64) for d in adv)
            rows = arr.reshape((-1,) + tail) if arr.flags.c_contiguous else None
            v = np.broadcast_to(values, tuple(bshape) + tail).reshape((-1,) + tail)
            if rows is not None:
                for j, r in enumerate(np.asarray(lin).reshape(-1).tolist()):
                    rows[r] += v[j]
                return
    work, copy_back = _contiguous_target(arr)
    pos = _positions(work.shape, per_dim)
    if pos.size:
        v = values if np.ndim(values) == 0 else np.broadcast_to(values, pos.shape)
        v = v if np.ndim(v) == 0 else np.ascontiguousarray(v).reshape(-1)
        np.add.at(work.reshape(-1), np.ascontiguousarray(pos).reshape(-1), v)
    if copy_back:
        np.copyto(arr, work)


class IndexBackward0(Op):
    """Advanced indexing (integer arrays / masks); the result is a copy."""

    @staticmethod
    def forward(ctx, a, *, per_dim):
        ctx.shape = a._data.shape
        ctx.per_dim = per_dim
        ctx.save_for_backward(*[Tensor._make(p) for p in per_dim if p is not None])
        return _index_np(a._data, per_dim)

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors  # version/freed checks
        return _IndexPutIntoZeros.apply(g, per_dim=ctx.per_dim, shape=ctx.shape)


class _IndexPutIntoZeros(Op):
    def name(self):
        return "IndexPutBackward0"

    @staticmethod
    def forward(ctx, g, *, per_dim, shape):
        ctx.per_dim = per_dim
        out = np.zeros(shape, g._data.dtype)
        _accumulate_into(out, per_dim, g._data)
        return out

    @staticmethod
    def backward(ctx, gg):
        return IndexBackward0.apply(gg, per_dim=ctx.per_dim)


def _strip_leading_ones(shape):
    shape = tuple(shape)
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return shape[k:]


class _RegionWrite(Op):
    """Writes `value` into a region of `self` (setitem / index_put). Backward: self's gradient is zeroed where
    overwritten (kept everywhere when accumulating); value's gradient is the region of grad (summed to value's
    shape by the engine). The region is saved as flat positions + a bool mask."""

    @staticmethod
    def forward(ctx, a, value, *, write, inplace, positions=None, accumulate=False):
        target = a._data if inplace else a._data.copy()
        if positions is None:
            ctx.full = True
            ctx.save_for_backward()
        else:
            ctx.full = False
            mask = np.zeros(a._data.shape, bool)
            mask.reshape(-1)[positions.reshape(-1)] = True
            ctx.save_for_backward(Tensor._make(positions), Tensor._make(mask))
        ctx.accumulate = accumulate
        write(target)
        return target

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        if ctx.full:
            return (g if ctx.accumulate else g * 0), g
        pos, mask = saved
        gs = g if ctx.accumulate else g.masked_fill(mask, 0)
        gv = take(g, pos) if ctx.needs_input_grad[1] else None
        return gs, gv


class IndexPutBackward0(_RegionWrite):
    pass


class CopySlices(_RegionWrite):
    def name(self):
        return "torch::autograd::CopySlices"


class CopyBackwards(_RegionWrite):
    def name(self):
        return "torch::autograd::CopyBackwards"


class FillBackward3(_RegionWrite):
    pass


def _region_positions(shape, np_basic, per_dim):
    pos = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    pos = pos[np_basic + (Ellipsis,)]
    if per_dim is not None and any(p is not None for p in per_dim):
        pos = _index_np(pos, per_dim)
    return np.asarray(pos)



def _masked_fill_dispatch(entries, value):
    """PyTorch's canDispatchToMaskedFill: a single bool/uint8 mask and a one-element value."""
    if value._data.size != 1 or len(entries) != 1:
        return False
    return entries[0][1].dtype in (np.bool_, np.uint8)


def _check_put_value(per_dim, dst_shape, value, entries):
    """Shape and dtype checks of index_put_ (value broadcast to the indexing result)."""
    if _masked_fill_dispatch(entries, value):
        return value._data.reshape(())
    rshape = _positions_shape(dst_shape, per_dim)
    v = value._data
    try:
        ok = np.broadcast_shapes(v.shape, rshape) == tuple(rshape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_lst(v.shape)} cannot be broadcast to indexing "
                           f"result of shape {_lst(rshape)}")
    return v


def _positions_shape(shape, per_dim):
    adv = [d for d in range(len(shape)) if per_dim[d] is not None]
    if not adv:
        return tuple(shape)
    bshape = tuple(per_dim[adv[0]].shape)
    rest = [d for d in range(len(shape)) if per_dim[d] is None]
    if adv == list(range(adv[0], adv[-1] + 1)):
        return tuple(shape[d] for d in rest if d < adv[0]) + bshape + tuple(shape[d] for d in rest if d > adv[-1])
    return bshape + tuple(shape[d] for d in rest)


def _dtype_match(dst, value, entries):
    if value._data.dtype != dst.dtype and not _masked_fill_dispatch(entries, value):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_sname(dst)} for the "
                           f"destination and {_sname(value._data)} for the source.")


def _put_writer(per_dim, v, accumulate, per_dim_shape):
    tup = _np_adv_tuple(per_dim) if any(p is not None for p in per_dim) else (Ellipsis,)

    empty = any(p is not None for p in per_dim) and math.prod(_positions_shape(per_dim_shape, per_dim)) == 0

    def write(target):
        if empty:
            return
        if accumulate:
            _accumulate_into(target, per_dim, v)
        else:
            target[tup] = v
    return write



def _write_inplace(self, value, node_cls, write, np_basic, per_dim, accumulate=False, full=False):
    """Run `write(self._data)`; when a graph is recorded, make self the output of a `node_cls` node."""
    if STATE.grad_enabled and (self._requires_grad or value._requires_grad):
        if self._base is not None:
            check_view_inplace(self)
        pos = None if full else _region_positions(self._data.shape, np_basic, per_dim)
        r = node_cls.apply(self, value, write=write, inplace=True, positions=pos, accumulate=accumulate)
        rebase(self, r)
    else:
        write(self._data)
    if not self._inference:
        self._vc[0] += 1



