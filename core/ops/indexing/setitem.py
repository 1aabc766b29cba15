"""Tensor.__setitem__ with PyTorch's semantics: in place, value broadcast (leading ones stripped) and cast;
the node recorded is CopyBackwards / FillBackward3 on the whole tensor, CopySlices on a view of it, or
IndexPutBackward0 for advanced indices."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from .. import registry
from ..inplace import VIEW_LEAF_INPLACE_MSG, check_inplace
from ._common import _OVERLAP_MSG, _expand_check, _ranges_overlap, _value_scalar
from .advanced import (CopyBackwards, CopySlices, FillBackward3, IndexPutBackward0, _check_put_value, _dtype_match,
                       _np_adv_tuple, _positions_shape, _prep_adv, _strip_leading_ones, _write_inplace)
from .getitem import _Parsed, _parse


def _type_name(value):
    tp = type(value)
    return tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"


def _setitem_value(self, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)) or isinstance(value, np.integer):
        with np.errstate(all="ignore"):
            return Tensor._make(np.asarray(value).astype(self._data.dtype))
    raise TypeError(f"can't assign a {_type_name(value)} to a {self.type()}")


def _setitem(self, index, value):
    """Tensor item assignment with PyTorch's semantics (in place; a view target gives grad_fn CopySlices)."""
    if index is False:
        return
    if type(value) in (int, float, bool) and not (STATE.grad_enabled and self._requires_grad) \
            and (type(index) is int or type(index) is slice):
        # fast path: a number into an int / slice region, no graph to record
        p = _parse(self, index, single_slice_view=False)
        check_inplace(self)
        dst = self._data[tuple(p.np_basic) + (Ellipsis,)]
        dst[...] = _value_scalar(value, dst.dtype)
        if not self._inference:
            self._vc[0] += 1
        return
    v = _setitem_value(self, value)
    if index is Ellipsis:
        p = _Parsed()
    elif index is None or index is True:
        p = _Parsed()
        p.steps.append(("unsqueeze", 0))
        p.np_basic.append(None)
    else:
        p = _parse(self, index, single_slice_view=False)
    made_view = bool(p.steps)
    np_basic = tuple(p.np_basic)
    dst = self._data[np_basic + (Ellipsis,)]
    if not p.entries:
        dshape, vshape = dst.shape, v._data.shape
        if vshape == dshape:
            src, cls = v._data, CopyBackwards
        elif v._data.ndim == 0:
            src, cls = v._data, FillBackward3
        else:
            stripped = _strip_leading_ones(vshape)
            _expand_check(stripped, dshape, v.type())
            src, cls = v._data.reshape(stripped), CopyBackwards
        if made_view:
            cls = CopySlices
        _inplace_checks(self, made_view)
        _assert_no_partial_overlap(dst, v._data)

        def write(target):
            np.copyto(target[np_basic + (Ellipsis,)], src, casting="unsafe")

        _write_inplace(self, v, cls, write, np_basic, None, full=not made_view)
        return
    _inplace_checks(self, made_view)
    per_dim = _prep_adv(dst.shape, p.entries)
    vs = v
    stripped = _strip_leading_ones(v._data.shape)
    if stripped != v._data.shape:
        vs = Tensor._make(v._data.reshape(stripped))
    val = _check_put_value(per_dim, dst.shape, vs, p.entries)
    _dtype_match(dst, vs, p.entries)
    tup = _np_adv_tuple(per_dim)
    empty = math.prod(_positions_shape(dst.shape, per_dim)) == 0

    def write(target):
        if empty:
            return
        with np.errstate(all="ignore"):
            target[np_basic + (Ellipsis,)][tup] = val

    _write_inplace(self, v, CopySlices if made_view else IndexPutBackward0, write, np_basic, per_dim)


def _assert_no_partial_overlap(dst, src):
    if _ranges_overlap(dst, src):
        same = (dst.__array_interface__["data"][0] == src.__array_interface__["data"][0]
                and dst.shape == src.shape and dst.strides == src.strides)
        if not same:
            raise RuntimeError(_OVERLAP_MSG)


def _inplace_checks(self, made_view):
    if made_view and STATE.grad_enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError(VIEW_LEAF_INPLACE_MSG)
    check_inplace(self)


registry.method("__setitem__", _setitem)
