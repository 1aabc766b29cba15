"""ATen's checks on `out=` tensors, on NumPy arrays: memory overlap (at::assert_no_internal_overlap,
at::assert_no_overlap: an `out` whose elements alias each other, or that aliases an input, is refused
with PyTorch's RuntimeError) and the exact dtype structured ops demand; `out=` tuples of named-tuple
ops. Only the `out=` path pays for them."""
from __future__ import annotations

import math

import numpy as np

from ... import return_types
from ...dtypes import cpp_name, scalar_name
from ...tensor import Tensor

INTERNAL_OVERLAP_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                        "memory location. Please clone() the tensor before performing the operation.")
OVERLAP_MSG = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
               "single memory location. Please clone() the tensor before performing the operation.")


def has_internal_overlap(a):
    """PyTorch's has_internal_overlap == YES: a stride of 0 on a dim of size > 1 (an expanded tensor)."""
    return 0 in a.strides and any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape))


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _span(a, nbytes=None):
    """[lo, hi) byte addresses a covers (nbytes: its size after a resize to a contiguous shape)."""
    p = a.__array_interface__["data"][0]
    if nbytes is not None:
        return p, p + nbytes
    lo = p + sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    return lo, lo + a.itemsize + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides))


def _dense(a):
    return a.size <= 1 or a.itemsize + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides)) == a.nbytes


def _overlaps(a, shape, b):
    """Whether array `a`, once resized to `shape`, shares bytes with `b` as get_overlap_status sees it:
    only dense operands of one storage are compared (non-dense ones count as TOO_HARD: no error)."""
    resized = a.shape != shape
    n = math.prod(shape)
    if n == 0 or b.size == 0 or _root(b) is not _root(a) or not _dense(b) or not (resized or _dense(a)):
        return False
    span, (lo, hi) = _span(a, n * a.itemsize if resized else None), _span(b)
    return span[0] < hi and lo < span[1]


def check_out_overlap(out, shape, inputs):
    """Raise PyTorch's errors when tensor `out` (to hold a result of `shape`) overlaps itself or an input.

    Mirrors ATen's order: the output is resized first (in its own storage, which every alias shares: a
    resized view still overlaps the tensors of that storage), then checked."""
    a = out._data
    shape = tuple(shape)
    if a.shape == shape and has_internal_overlap(a):
        raise RuntimeError(INTERNAL_OVERLAP_MSG)
    if math.prod(shape) == 0:
        return
    for t in inputs:
        if t is out or _overlaps(a, shape, t._data):
            raise RuntimeError(OVERLAP_MSG)


def check_out_partial_overlap(out, shape, t):
    """ATen's assert_no_partial_overlap(out, t) after out's resize: the same elements (same start, shape and
    strides) are allowed, any other sharing of memory raises (gather's check on its index)."""
    a, b = out._data, t._data
    shape = tuple(shape)
    same = (a.shape == shape == b.shape and a.strides == b.strides
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])
    if not same and _overlaps(a, shape, b):
        raise RuntimeError(OVERLAP_MSG)


# ATen's most common wording of a structured op's out dtype check (c10 type names)
EXPECTED_DTYPE = "Expected out tensor to have dtype {want}, but got {got} instead"
_OUT_TYPES = {}


def check_out_dtype(out, npdtype, msg=EXPECTED_DTYPE):
    """`out` must have exactly this dtype (structured ops do not cast). msg's fields: {want}/{got} as
    c10 names ('float', 'long int'), {W}/{G} as ScalarType names ('Float', 'Long')."""
    if isinstance(out, Tensor) and out._data.dtype != npdtype:
        g = out._data.dtype
        raise RuntimeError(msg.format(want=cpp_name(npdtype), got=cpp_name(g), W=scalar_name(npdtype), G=scalar_name(g)))


def out_tuple(res, out, name, write, msgs=(), inputs=()):
    """`out=(t1, t2)` of an op returning torch.return_types.<name>: torch's TypeError on a wrong arity,
    the exact-dtype check of each tensor (msgs[i], if given), then each result written by `write`
    (pointwise `_out`, which checks overlap with `inputs`). Returns torch.return_types.<name>_out."""
    if not isinstance(out, (tuple, list)) or len(out) != len(res):
        got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
        raise TypeError(f"expected tuple of {len(res)} elements but got {got}")
    for r, o, m in zip(res, out, msgs):
        check_out_dtype(o, r._data.dtype, m)
    if name not in _OUT_TYPES:
        _OUT_TYPES[name] = return_types._make(name + "_out", type(res)._fields)
    return _OUT_TYPES[name](*(write(r, o, *inputs) for r, o in zip(res, out)))
