"""Tensor.__getitem__ with PyTorch's semantics: parsing an index like PyTorch's applySlicing, basic indexing
as views (SelectBackward0 / SliceBackward0 / AliasBackward0), advanced indexing as copies (IndexBackward0)."""
from __future__ import annotations

import operator

import numpy as np

from ..._warn import warn_aten
from ...autograd.function import Op, _mark_view
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from .. import registry
from ._common import _out_of_range
from .advanced import IndexBackward0, _index_np, _prep_adv

_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _seq_to_index(obj):
    """A Python sequence / ndarray used as an index -> ndarray (bool/uint8 kept, everything else int64)."""
    try:
        arr = np.asarray(obj)
    except ValueError:
        raise ValueError("expected sequence of equal length for an index") from None
    if arr.dtype == np.bool_ or arr.dtype == np.uint8:
        return arr
    if arr.dtype.kind in "iuf" or arr.size == 0:
        return arr.astype(np.int64)
    raise TypeError(f"new(): invalid data type '{type(arr.reshape(-1)[0].item()).__name__}'")


def _as_tuple(index):
    """PyTorch's treatSequenceAsTuple."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, (Tensor, np.ndarray)) or not isinstance(index, (list, str, range)):
        return (index,)
    if len(index) >= 32:
        return (index,)
    for obj in index:
        if isinstance(obj, (Tensor, list, tuple, slice, str, np.ndarray, range)) or obj is None or obj is Ellipsis:
            warn_aten(_SEQ_WARNING, "torch/csrc/autograd/python_variable_indexing.cpp:349")
            return tuple(index)
    return (index,)


def _invalid_index(obj):
    return IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                      f"indices (got {type(obj).__name__})")


class _Parsed:
    __slots__ = ("steps", "np_basic", "entries")

    def __init__(self):
        self.steps = []      # ('select', dim, i) | ('slice', dim, start, stop, step) | ('unsqueeze', dim) | ('alias',)
        self.np_basic = []   # the same basic indexing as one NumPy tuple on the original array
        self.entries = []    # advanced indices: (dim in the basic result, ndarray)


def _select_index(i, pos, size):
    """Wrap an int index; PyTorch's error names the index's position in the index tuple as the dimension."""
    if i < -size or i >= size:
        raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {size}")
    return i + size if i < 0 else i


def _slice_bounds(sl, size):
    """(start, stop, step, is_full) for a slice applied to a dim of `size` (PyTorch: step must be > 0)."""
    step = 1 if sl.step is None else operator.index(sl.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    raw_start = 0 if sl.start is None else operator.index(sl.start)
    raw_stop = None if sl.stop is None else operator.index(sl.stop)
    start, stop, _ = slice(raw_start, raw_stop, step).indices(size)
    if stop < start:
        stop = start
    full = raw_start == 0 and step == 1 and (raw_stop is None or raw_stop >= size)
    return start, stop, step, full


def _size_at(shape, dim):
    """Size for a select at `dim` (past the last dim only after several Ellipses: PyTorch then sees size 0,
    or fails to wrap the dim)."""
    if dim < len(shape):
        return shape[dim]
    if dim > len(shape):
        n = len(shape)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return 0


def _parse_single(p, shape, index, single_slice_view):
    """A single (non-tuple) int or slice, as PyTorch's THPVariable_getitem / set_item fast paths."""
    nd = len(shape)
    if _is_int(index):
        if nd == 0:
            if int(index) == 0:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            raise IndexError(f"index {int(index)} is out of bounds for dimension 0 with size 0")
        i = _select_index(int(index), 0, shape[0])
        p.steps.append(("select", 0, i))
        p.np_basic.append(i)
        return p
    if nd == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    start, stop, step, full = _slice_bounds(index, shape[0])
    if single_slice_view or not full:
        p.steps.append(("slice", 0, start, stop, step))
    p.np_basic.append(slice(start, stop, step))
    return p


def _convert_items(items):
    """Index items with sequences turned into index tensors, and the number of dims they specify
    (PyTorch's count_specified_dimensions)."""
    conv = []
    count = 0
    for obj in items:
        if isinstance(obj, Tensor):
            arr = obj._data
            count += arr.ndim if arr.dtype in (np.bool_, np.uint8) else 1
            conv.append(obj)
        elif isinstance(obj, (list, tuple, np.ndarray, range, str)):
            conv.append(Tensor._make(_seq_to_index(obj)))
            count += 1
        else:
            if not (obj is None or obj is Ellipsis or isinstance(obj, (bool, np.bool_))):
                count += 1
            conv.append(obj)
    return conv, count


class _Walk:
    """State of applySlicing over the index items: `dim` in the partially indexed result, `odim` in the
    original tensor, the current result `shape`; each method handles one kind of item."""

    def __init__(self, p, shape, nd, count):
        self.p, self.shape, self.nd, self.count = p, shape, nd, count
        self.dim = 0
        self.odim = 0

    def item(self, pos, obj):
        # (several Ellipses can push `dim` past the last dim; PyTorch then fails as below)
        is_bool_tensor = isinstance(obj, Tensor) and obj._data.ndim == 0 and obj._data.dtype in (np.bool_, np.uint8)
        if obj is None or isinstance(obj, (bool, np.bool_)) or is_bool_tensor:
            if self.dim > len(self.shape):
                n = len(self.shape)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], but got "
                                 f"{self.dim})")
        if obj is None:
            self.unsqueeze()
        elif obj is Ellipsis:
            self.ellipsis()
        elif isinstance(obj, (bool, np.bool_)):
            self.unsqueeze(bool(obj))
        elif _is_int(obj):
            self.select(pos, int(obj))
        elif isinstance(obj, slice):
            self.slice(obj)
        elif isinstance(obj, Tensor):
            self.tensor(pos, obj._data)
        else:
            raise _invalid_index(obj)

    def unsqueeze(self, selected=None):
        """None (selected=None), or a bool / 0-d bool tensor: a new dim of size 1 (kept or emptied)."""
        p = self.p
        p.steps.append(("unsqueeze", self.dim))
        p.np_basic.append(None)
        self.shape.insert(self.dim, 1)
        if selected is not None:
            p.entries.append((self.dim, np.zeros(1 if selected else 0, np.int64)))
        self.dim += 1

    def ellipsis(self):
        n = self.nd - self.count
        self.p.np_basic.extend([slice(None)] * max(0, min(n, self.nd - self.odim)))
        self.dim += n
        self.odim += n

    def select(self, pos, i):
        i = _select_index(i, pos, _size_at(self.shape, self.dim))
        self.p.steps.append(("select", self.dim, i))
        self.p.np_basic.append(i)
        del self.shape[self.dim]
        self.odim += 1

    def slice(self, obj):
        dim, shape = self.dim, self.shape
        if dim >= len(shape):
            if _slice_bounds(obj, 0)[3]:
                self.dim += 1
                return
            n = len(shape)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        start, stop, step, full = _slice_bounds(obj, shape[dim])
        if not full:
            self.p.steps.append(("slice", dim, start, stop, step))
            shape[dim] = len(range(start, stop, step))
        self.p.np_basic.append(slice(start, stop, step))
        self.dim += 1
        self.odim += 1

    def tensor(self, pos, arr):
        if arr.ndim == 0 and arr.dtype.kind in "iu" and arr.dtype != np.uint8:
            self.select(pos, int(arr))
        elif arr.ndim == 0 and arr.dtype in (np.bool_, np.uint8):
            self.unsqueeze(bool(arr.item()))
        else:
            self.p.entries.append((self.dim, arr))
            k = arr.ndim if arr.dtype in (np.bool_, np.uint8) else 1
            self.p.np_basic.extend([slice(None)] * max(0, min(k, self.nd - self.odim)))
            self.dim += k
            self.odim += k


def _parse(t, index, *, single_slice_view):
    """Translate a Python index into basic steps + advanced indices, following PyTorch's applySlicing."""
    shape = list(t._data.shape)
    p = _Parsed()
    if _is_int(index) or isinstance(index, slice):
        return _parse_single(p, shape, index, single_slice_view)
    conv, count = _convert_items(_as_tuple(index))
    nd = len(shape)
    if count > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    walk = _Walk(p, shape, nd, count)
    for pos, obj in enumerate(conv):
        walk.item(pos, obj)
    return p


class SelectBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, i):
        ctx.args = (a._data.shape, (slice(None),) * dim + (i,))
        return a._data[ctx.args[1] + (Ellipsis,)]

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SelectBackwardBackward0.apply(g, shape=shape, key=key)


class SliceBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, start, stop, step):
        ctx.args = (a._data.shape, (slice(None),) * dim + (slice(start, stop, step),))
        return a._data[ctx.args[1]]

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SliceBackwardBackward0.apply(g, shape=shape, key=key)


class AliasBackward0(Op):
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return a._data.view()

    @staticmethod
    def backward(ctx, g):
        return g


class _EmbedBackward(Op):
    """zeros(shape) with g written at a basic-index key (select/slice backward); backward reads the key back."""

    @staticmethod
    def forward(ctx, g, *, shape, key):
        ctx.key = key
        out = np.zeros(shape, g._data.dtype)
        out[key + (Ellipsis,)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _BasicRead.apply(gg, key=ctx.key)


class SelectBackwardBackward0(_EmbedBackward):
    pass


class SliceBackwardBackward0(_EmbedBackward):
    pass


class _BasicRead(Op):
    def name(self):
        return "SelectBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.args = (a._data.shape, key)
        return a._data[key + (Ellipsis,)].copy()

    @staticmethod
    def backward(ctx, g):
        shape, key = ctx.args
        return SelectBackwardBackward0.apply(g, shape=shape, key=key)


def _apply_steps(t, steps):
    r = t
    for s in steps:
        if s[0] == "select":
            r = SelectBackward0.apply(r, s[1], s[2])
        elif s[0] == "slice":
            r = SliceBackward0.apply(r, s[1], s[2], s[3], s[4])
        else:
            r = r.unsqueeze(s[1])
    if t._view_meta is not None and r is not t:
        r._view_meta = t._view_meta
    return r


def _apply_alias(t):
    r = AliasBackward0.apply(t)
    if t._view_meta is not None:
        r._view_meta = t._view_meta
    return r


def _getitem(self, index):
    """Tensor indexing with PyTorch's semantics: ints, slices (step > 0), None, Ellipsis, bools, masks and
    integer tensors/lists. Basic indexing returns a view; advanced indexing returns a copy."""
    p = _parse(self, index, single_slice_view=True)
    record = STATE.grad_enabled and self._requires_grad
    if record:
        r = _apply_steps(self, p.steps) if p.steps else None
        if not p.entries:
            return r if r is not None else _apply_alias(self)
        base = r if r is not None else self
        per_dim = _prep_adv(base._data.shape, p.entries)
        return IndexBackward0.apply(base, per_dim=per_dim)
    v = self._data[tuple(p.np_basic) + (Ellipsis,)]
    if p.entries:
        if len(p.entries) == 1:
            r = _single_index_fast(v, *p.entries[0])
            if r is not None:
                return Tensor._make(r)
        per_dim = _prep_adv(v.shape, p.entries)
        return Tensor._make(_index_np(v, per_dim))
    r = Tensor._make(v)
    _mark_view(r, self)
    r._inference = self._inference
    if self._view_meta is not None:
        r._view_meta = self._view_meta
    return r


def _single_index_fast(v, dim, arr):
    """v[..., arr] for one bool mask or one integer index array (the common cases), or None to take the
    general path (which also produces the errors)."""
    k = arr.ndim
    if arr.dtype == np.bool_:
        if k and v.shape[dim:dim + k] == arr.shape:
            return v[(slice(None),) * dim + (arr,)]
        return None
    if arr.dtype.kind in "iu" and arr.dtype != np.uint8 and dim < v.ndim and k:
        size = v.shape[dim]
        if arr.size and v.size and not _out_of_range(arr, size, True):
            return np.take(v, arr, axis=dim)
    return None


registry.method("__getitem__", _getitem)
