"""Shared helpers of the indexing ops: PyTorch's names and shape strings for messages, index bounds checks,
memory-overlap checks, scalar casts, `out=` handling and the fast in-place wrapper."""
from __future__ import annotations

import numpy as np

from ...creation import check_alloc
from ...dtypes import SCALAR_NAMES as _SCALAR_NAME
from ...dtypes import cpp_name, scalar_name
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from ..inplace import _any_requires_grad, check_inplace, make_inplace
from ..pointwise import _out
from ..pointwise._out_checks import INTERNAL_OVERLAP_MSG, check_out_partial_overlap, has_internal_overlap

_INT_IDX = (np.dtype(np.int64), np.dtype(np.int32))
_I64 = np.dtype(np.int64)
_OVERLAP_MSG = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.")


def _sname(arr_or_dtype) -> str:
    """PyTorch's ScalarType name ('Float', 'Long', ...) of a NumPy array or dtype."""
    d = arr_or_dtype.dtype if hasattr(arr_or_dtype, "dtype") else np.dtype(arr_or_dtype)
    return _SCALAR_NAME[d.name]


def _lst(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _nonempty_dim(n):
    return n if n > 0 else 1


def _nonempty_size(arr, d):
    """PyTorch's ensure_nonempty_size: 1 for 0-d tensors, else size(d) (IndexError when d is out of range)."""
    if arr.ndim == 0:
        return 1
    if d >= arr.ndim:
        n = arr.ndim
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return arr.shape[d]


def _c_strides(shape):
    st = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        st[d] = acc
        acc *= int(shape[d])
    return st


def _first_bad(idx, lo, hi):
    """First element of idx (C order) outside [lo, hi)."""
    flat = np.asarray(idx).reshape(-1)
    bad = np.flatnonzero((flat < lo) | (flat >= hi))
    return int(flat[bad[0]])


def _out_of_range(idx, size, allow_negative):
    """True if some element of idx lies outside [0, size) (or [-size, size) when negatives are allowed)."""
    if idx.size == 0:
        return False
    if allow_negative:
        return bool(idx.min() < -size or idx.max() >= size)
    # one pass: negative values become huge when viewed as unsigned
    u = idx.view(np.uint64 if idx.dtype.itemsize == 8 else np.uint32)
    return bool(u.max() >= size)


def _wrap_negative(idx, size):
    """idx as int64 with negative entries wrapped (bounds already checked)."""
    if idx.dtype != _I64:
        idx = idx.astype(np.int64)
    if idx.size and idx.min() < 0:
        idx = np.where(idx < 0, idx + size, idx)
    return idx


def _is_dense(a):
    """Non-overlapping and dense (any dim order), as PyTorch's overlap checks require."""
    if a.size <= 1:
        return True
    span = a.itemsize + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides))
    return span == a.nbytes


def _ranges_overlap(a, b):
    """PyTorch's get_overlap_status != NO for two arrays (TOO_HARD counts as no overlap)."""
    if not np.may_share_memory(a, b):   # cheap bounds test first
        return False
    if a.size == 0 or b.size == 0 or not _is_dense(a) or not _is_dense(b):
        return False
    pa = a.__array_interface__["data"][0] + sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    pb = b.__array_interface__["data"][0] + sum(min(0, (n - 1) * s) for n, s in zip(b.shape, b.strides))
    return pa < pb + b.nbytes and pb < pa + a.nbytes


def _assert_no_overlap(dst, *srcs):
    for s in srcs:
        if s is not None and _ranges_overlap(dst, s):
            raise RuntimeError(_OVERLAP_MSG)


def _value_scalar(value, npdt):
    """A Python number (or 0-d tensor) as a NumPy scalar of dtype npdt (cast like PyTorch's fill)."""
    v = value._data if isinstance(value, Tensor) else value
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(npdt)[()]


def _contiguous_target(arr):
    """(work array, needs copy-back): a C-contiguous array to write flat offsets into."""
    if arr.flags.c_contiguous:
        return arr, False
    return np.ascontiguousarray(arr), True


# How each indexing op names an `out=` of another dtype (ATen's structured kernels share the first).
_OUT_DTYPE_MSG = {
    "index_select": "index_select(): self and result must have the same scalar type",
    "masked_select": "masked_select(): self and result must have the same scalar type",
    "take": "take(): self and out expected to have the same dtype, but got self.dtype = {self} and out.dtype = {out}",
}
_OUT_OVERLAP = ("gather", "index_select", "take", "masked_select")


_OUT_OVERLAP_BEFORE_RESIZE = {"index_select"}   # checks an expanded out before resizing it (index_select_out_cpu_)


def _out_arg(result, out, op=None, *inputs):
    """PyTorch's `out=`: copy the result into `out` (resized like PyTorch) and return it. With `op`,
    ATen's checks first: `out` has the result's dtype, and (for ops that read while writing) shares no
    memory with an input."""
    if out is None:
        return result
    if op is not None and isinstance(out, Tensor):
        if out._data.dtype != result._data.dtype:
            msg = _OUT_DTYPE_MSG.get(op, "Expected out tensor to have dtype {want}, but got {got} instead")
            raise RuntimeError(msg.format(self=scalar_name(result.dtype), out=scalar_name(out.dtype),
                                          want=cpp_name(result.dtype), got=cpp_name(out.dtype)))
        if op == "gather":   # assert_no_overlap(out, self), assert_no_partial_overlap(out, index)
            check_out_partial_overlap(out, result._data.shape, inputs[1])
            inputs = inputs[:1]
        if op in _OUT_OVERLAP and any(isinstance(t, Tensor) and np.shares_memory(out._data, t._data)
                                      for t in inputs):
            raise RuntimeError(_OVERLAP_MSG)
        if op in _OUT_OVERLAP_BEFORE_RESIZE and has_internal_overlap(out._data):
            raise RuntimeError(INTERNAL_OVERLAP_MSG)
    return _out(result, out, *inputs)


_check_alloc = check_alloc


def _zeros_like(t):
    return Tensor._make(np.zeros(t._data.shape, t._data.dtype))


def _ones_like(t):
    return Tensor._make(np.ones(t._data.shape, t._data.dtype))


def _fast_inplace(outofplace, name, direct):
    """In-place method: the generic snapshot/rebase path when a graph is recorded, else `direct(self, ...)`
    writes straight into self's array (no copy). `direct` validates like the out-of-place op."""
    generic = make_inplace(outofplace, name)

    def method(self, *args, **kwargs):
        if STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs)):
            _inplace_overlap_check(self, args, kwargs)
            return generic(self, *args, **kwargs)
        check_inplace(self)
        direct(self, *args, **kwargs)
        if not self._inference:
            self._vc[0] += 1
        return self

    method.__name__ = name
    method.__doc__ = f"In-place version of {outofplace.__name__}."
    return method


def _inplace_overlap_check(self, args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            _assert_no_overlap(self._data, a._data)


def _broadcast_pair(a_shape, b_shape):
    """infer_size(a, b) with PyTorch's message (a is named 'tensor a')."""
    try:
        return np.broadcast_shapes(a_shape, b_shape)
    except ValueError:
        n = max(len(a_shape), len(b_shape))
        pa = (1,) * (n - len(a_shape)) + tuple(a_shape)
        pb = (1,) * (n - len(b_shape)) + tuple(b_shape)
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                                   f"non-singleton dimension {i}") from None
        raise


def _expand_check(vshape, dshape, tname):
    """PyTorch's errors of expanding a tensor of shape vshape to dshape (`tname` is its type name in the message)."""
    if len(vshape) > len(dshape):
        raise RuntimeError(f"expand({tname}{{{_lst(vshape)}}}, size={_lst(dshape)}): the number "
                           f"of sizes provided ({len(dshape)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(vshape)})")
    lead = len(dshape) - len(vshape)
    for i, s in enumerate(vshape):
        if s != 1 and s != dshape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({dshape[lead + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {lead + i}.  Target sizes: {_lst(dshape)}.  "
                               f"Tensor sizes: {_lst(vshape)}")
