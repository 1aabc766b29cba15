"""In-place and view machinery, in one place: PyTorch's checks before writing into a tensor, the
snapshot an in-place op saves, writing a result into self, rebasing self (and its view base) onto the
new node, the generic `op_` variant built from an out-of-place op; and for views: storage geometry
(sizes / strides / storage offset in elements), view creation with its bookkeeping (`_base`, shared
version counter, PyTorch's CreationMeta as `_view_meta`), in-place view ops (`t_`, `squeeze_`...),
and the rebasing of a base onto `CopySlices` when one of its views is modified in place.

Imports nothing from the op families: they import this module."""
from __future__ import annotations

import functools
import re

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op, SavedTensor, _ForwardCtx, _mark_view
from ..autograd.grad_mode import STATE
from ..tensor import Tensor


LEAF_INPLACE_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE_MSG = ("a view of a leaf Variable that requires grad is being used in an in-place "
                         "operation.")
OVERLAP_INPLACE_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                       "memory location. Please clone() the tensor before performing the operation.")
INFERENCE_INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed."
                         "You can make a clone to get a normal tensor before doing inplace update."
                         "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def check_inplace(t, *others):
    """PyTorch's checks before writing into `t`."""
    if t._inference and not STATE.inference:
        raise RuntimeError(INFERENCE_INPLACE_MSG)
    if not t._data.flags.writeable and any(st == 0 and n > 1 for st, n in zip(t._data.strides, t._data.shape)):
        raise RuntimeError(OVERLAP_INPLACE_MSG)
    if STATE.grad_enabled:
        b = t._base
        meta = t._view_meta
        if (meta == "nograd" or meta == "inference") and b is not None and b._requires_grad:
            raise RuntimeError(no_grad_view_message(t))   # a view made with grad mode off (or a view of one)
        if t._requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_MSG)
        if b is not None and b._requires_grad:
            if not t._requires_grad:       # made before its base required grad: PyTorch sees a leaf
                raise RuntimeError(LEAF_INPLACE_MSG)
            if t._view_meta == "multi":     # handle_view_on_rebase runs before the view-of-a-leaf check
                check_view_inplace(t)
            if b.grad_fn is None:
                raise RuntimeError(VIEW_LEAF_INPLACE_MSG)


def _any_requires_grad(args, kwargs):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if type(a) in (list, tuple):
            for x in a:
                if isinstance(x, Tensor) and x._requires_grad:
                    return True
    for a in kwargs.values():
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def write_result(t, result, opname):
    """Copy an out-of-place result into t (in-place semantics: no broadcasting of t, same-kind cast)."""
    r = result._data
    if r.shape != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                           f"{list(r.shape)}")
    if r.dtype != t._data.dtype:
        rd, td = _dt._FROM_NP[r.dtype], _dt._FROM_NP[t._data.dtype]
        if not _dt.can_cast(rd, td):
            raise RuntimeError(f"result type {_dt.scalar_name(rd)} can't be cast to the desired output type "
                               f"{_dt.scalar_name(td)}")
    np.copyto(t._data, r, casting="unsafe")
    if not t._inference:
        t._vc[0] += 1


def snapshot(t):
    """A copy of t's data with t's place in the graph, so an op can save 'self' before t is overwritten."""
    if t._base is not None:
        check_view_inplace(t)
    return Tensor._make(t._data.copy(), t._requires_grad, t.grad_fn, t._output_nr)


def rebase(t, result):
    """Make t take result's place in the graph after an in-place write."""
    node = result.grad_fn
    t.grad_fn = node
    t._output_nr = result._output_nr
    t._requires_grad = result._requires_grad
    if node is not None and node._saved:
        node._saved = tuple(SavedTensor(t, True, s.output_nr) if (s is not None and s.is_output) else s
                            for s in node._saved)
    if t._base is not None:
        rebase_view(t, result)      # the base's grad_fn becomes CopySlices


# In-place arithmetic that NumPy can do straight into self's buffer (the optimizer-update case).
_UFUNC_INPLACE = {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply, "div_": np.true_divide}


def _try_ufunc_inplace(self, ufunc, args, kwargs):
    """self op= other without a temporary, when it is exactly what the generic path would compute:
    a same-dtype tensor operand (or a number that keeps self's float dtype) broadcasting to self."""
    if kwargs or len(args) != 1:
        return False
    other = args[0]
    d = self._data
    if isinstance(other, Tensor):
        o = other._data
        if o.dtype != d.dtype or d.dtype.kind != "f" or o.ndim > d.ndim:
            return False
        try:
            if np.broadcast_shapes(o.shape, d.shape) != d.shape:
                return False
        except ValueError:
            return False
        if np.shares_memory(o, d) and o.shape != d.shape:
            return False
    elif type(other) in (int, float) and d.dtype.kind == "f":
        o = other
    else:
        return False
    if ufunc is np.true_divide:
        with np.errstate(all="ignore"):   # x / 0 gives inf/nan silently, as in PyTorch
            ufunc(d, o, out=d)
    else:
        ufunc(d, o, out=d)
    if not self._inference:
        self._vc[0] += 1
    return True


def make_inplace(fn, name):
    """Build `t.op_(...)` from the out-of-place `op(t, ...)`."""
    ufunc = _UFUNC_INPLACE.get(name)

    @functools.wraps(fn)
    def inplace_method(self, *args, **kwargs):
        check_inplace(self)
        if ufunc is not None and not (STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs))):
            if _try_ufunc_inplace(self, ufunc, args, kwargs):
                return self
        if STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs)):
            result = fn(snapshot(self), *args, **kwargs)
            write_result(self, result, name)
            rebase(self, result)
            return self
        result = fn(self, *args, **kwargs)
        write_result(self, result, name)
        return self

    inplace_method.__name__ = name
    inplace_method.__doc__ = f"In-place version of {fn.__name__}."
    return inplace_method


# -- storage geometry -----------------------------------------------------------------------

def _root(a):
    """The ndarray owning a's memory (PyTorch's storage)."""
    b = a
    while True:
        nb = b.base
        if isinstance(nb, np.ndarray):
            b = nb
            continue
        inner = getattr(nb, "base", None) if nb is not None else None
        if isinstance(inner, np.ndarray):   # np.lib.stride_tricks' DummyArray
            b = inner
            continue
        return b


def _ptr(a):
    return a.__array_interface__["data"][0]


def _storage_offset_of(a):
    return (_ptr(a) - _ptr(_root(a))) // a.itemsize


def _geom(a):
    """(shape, strides, storage offset) in elements, like PyTorch's sizes/strides/storage_offset."""
    isz = a.itemsize
    return a.shape, tuple(s // isz for s in a.strides), _storage_offset_of(a)


def _strided(a, shape, strides, offset):
    """A NumPy view over a's storage with the given geometry (elements), like as_strided."""
    root = _root(a)
    isz = a.itemsize
    if root.flags.c_contiguous or root.flags.f_contiguous:
        flat = root.reshape(-1, order="C" if root.flags.c_contiguous else "F").view(np.uint8)
        return np.ndarray(shape, a.dtype, buffer=flat, offset=offset * isz,
                          strides=tuple(s * isz for s in strides))
    delta = offset - _storage_offset_of(a)   # exotic non-contiguous storage: address relative to a
    return np.lib.stride_tricks.as_strided(a.reshape(-1)[delta:] if delta else a, shape,
                                           tuple(s * isz for s in strides))


def _positions(geom):
    shape, strides, off = geom
    pos = np.full((), off, dtype=np.int64)
    for i, (s, st) in enumerate(zip(shape, strides)):
        r = np.arange(s, dtype=np.int64) * st
        pos = pos + r.reshape((s,) + (1,) * (len(shape) - i - 1))
    return np.broadcast_to(pos, shape)


def _hull(*positions):
    lo = min((int(p.min()) for p in positions if p.size), default=0)
    hi = max((int(p.max()) for p in positions if p.size), default=-1)
    return lo, hi - lo + 1


def _gather_geom(g, in_geom, out_geom):
    """Lay g out with in_geom's strides in a fresh buffer; read out_geom's elements."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.zeros(span, dtype=g.dtype)
    buf[ip - lo] = g
    return buf[op - lo]


def _scatter_geom(g, in_geom, out_geom):
    """Adjoint of _gather_geom: accumulate g (out_geom's shape) into storage, read in_geom."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.bincount((op - lo).ravel(), weights=g.ravel(), minlength=span).astype(g.dtype, copy=False)
    return buf[ip - lo]


def _zero_geom(g, in_geom, out_geom):
    """g laid out with in_geom's strides, with out_geom's elements set to zero."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.zeros(span, dtype=g.dtype)
    buf[ip - lo] = g
    buf[op - lo] = 0
    return buf[ip - lo]


# -- view creation and its bookkeeping -------------------------------------------------------
# `_view_meta` is PyTorch's CreationMeta: None, "multi" for outputs of a multi-output view op
# (split/chunk/unbind), or "nograd" for views created in no_grad mode of a tensor requiring grad.

class ViewOp(Op):
    """Base for ops whose result is a view of input 0 (shares storage and version counter)."""

    is_view = True


_FCTX = _ForwardCtx()   # view forwards only store small metadata on ctx


def _view(cls, input, *args):
    """Apply a single-output view op (no node unless input requires grad), propagating the
    base view's creation metadata."""
    if input._requires_grad and STATE.grad_enabled:
        r = cls.apply(input, *args)
    else:
        r = Tensor._make(cls.forward(_FCTX, input, *args))
        _mark_view(r, input)        # NO_GRAD_MODE / INFERENCE_MODE creation meta, requires_grad from the base
        if input._inference:
            r._inference = True     # views of inference tensors are inference tensors
        if input._requires_grad:
            return r
    if input._view_meta is not None:
        r._view_meta = input._view_meta
    return r


def _mark_multi(outs, input):
    """Outputs of a multi-output view op: views of input's base, not modifiable in place under grad."""
    base = input if input._base is None else input._base
    meta = "multi" if STATE.grad_enabled else ("inference" if STATE.inference else "nograd")
    for r in outs:
        r._base = base
        r._vc = input._vc
        r._view_meta = meta
        r._inference = input._inference     # normal for a view of a normal tensor, even in inference mode
        if meta != "multi" and input._requires_grad and r._data.dtype.kind in "fc":
            r._requires_grad = True         # as _mark_view: torch derives it from the base
    return outs


def _inplace_view(self, cls, *args):
    """Apply view op cls to self and make self that view (metadata change in place: t_, squeeze_...)."""
    if self._data.flags.writeable:
        check_inplace(self)
    else:       # read-only (expanded) data: only the autograd checks apply to a metadata change
        if self._inference and not STATE.inference:
            raise RuntimeError(INFERENCE_INPLACE_MSG)
        b = self._base
        if STATE.grad_enabled:
            if self._requires_grad and self.grad_fn is None:
                raise RuntimeError(LEAF_INPLACE_MSG)
            if b is not None and b._requires_grad:
                if not self._requires_grad:
                    raise RuntimeError(NOGRAD_VIEW_MSG)
                if b.grad_fn is None:
                    raise RuntimeError(VIEW_LEAF_INPLACE_MSG)
    if STATE.grad_enabled and self._requires_grad:
        alias = Tensor._make(self._data, True, self.grad_fn, self._output_nr)
        alias._vc = self._vc
        r = cls.apply(alias, *args)
        self._data = r._data
        self.grad_fn = r.grad_fn
        self._output_nr = 0
    else:
        self._data = cls.forward(_ForwardCtx(), self, *args)
    if not self._inference:
        self._vc[0] += 1
    return self


# -- as_strided: the node of a view regenerated from its base ------------------------------

class AsStridedBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, size, stride, offset):
        arr = a._data
        ctx.in_geom = _geom(arr)
        ctx.out_geom = (size, stride, offset)
        r = _strided(arr, size, stride, offset)
        if any(st == 0 and s > 1 for s, st in zip(size, stride)):
            r.flags.writeable = False    # overlapping: in-place writes raise like PyTorch
        return r

    @staticmethod
    def backward(ctx, g):
        return AsStridedScatterBackward0.apply(g, ctx.out_geom, ctx.in_geom)


class AsStridedBackward1(AsStridedBackward0):
    pass


class AsStridedScatterBackward0(Op):
    """Adjoint of as_strided: accumulate g at out_geom's storage positions, read in_geom's."""

    @staticmethod
    def forward(ctx, g, out_geom, in_geom):
        ctx.out_geom, ctx.in_geom = out_geom, in_geom
        return _scatter_geom(g._data, in_geom, out_geom)

    @staticmethod
    def backward(ctx, gg):
        return AsStridedGather.apply(gg, ctx.in_geom, ctx.out_geom)


class AsStridedGather(Op):
    """g laid out with in_geom's strides, read at out_geom (as_strided of a re-strided copy)."""

    @staticmethod
    def forward(ctx, g, in_geom, out_geom):
        ctx.out_geom, ctx.in_geom = out_geom, in_geom
        return _gather_geom(g._data, in_geom, out_geom)

    @staticmethod
    def backward(ctx, gg):
        return AsStridedScatterBackward0.apply(gg, ctx.out_geom, ctx.in_geom)


AsStridedGather.__name__ = AsStridedGather.__qualname__ = "AsStridedBackward0"


# -- in-place on views: CopySlices --------------------------------------------------------

_MULTI_MSG = (" This view is the output of a function that returns multiple views. Such functions do not allow the "
              "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
_NOGRAD_TAIL = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
NOGRAD_VIEW_MSG = ("A view was created in no_grad mode and is being modified inplace with grad mode enabled."
                   + _NOGRAD_TAIL)
INFERENCE_VIEW_MSG = ("A view was created in inference mode and is being modified inplace in normal mode."
                      + _NOGRAD_TAIL.replace("no_grad block", "inference_mode block"))


def no_grad_view_message(t):
    """torch's handle_view_on_rebase text for a view made with grad mode off (CreationMeta NO_GRAD_MODE /
    INFERENCE_MODE), or a view of one made later in grad mode ("Output 0 of Slice is a view of a view...")."""
    inference = t._view_meta == "inference"
    fn = t.grad_fn
    if fn is None:
        return INFERENCE_VIEW_MSG if inference else NOGRAD_VIEW_MSG
    msg = (f"Output {t._output_nr} of {re.sub(r'Backward[0-9]*$', '', fn.name())} is a view of a view which was "
           "created in no_grad mode and is being modified inplace with grad mode enabled." + _NOGRAD_TAIL)
    if inference:
        msg = (msg.replace("in no_grad mode", "in inference mode").replace("with grad mode enabled", "in normal mode")
               .replace("no_grad block", "inference_mode block"))
    return msg


def refresh_view(t):
    """Give view t the grad_fn PyTorch regenerates from its base: as_strided of the base's current
    history (used before an in-place op on t, when the base may have been rebased since t was made)."""
    base = t._base
    if not (base._requires_grad and STATE.grad_enabled) or base._data.dtype != t._data.dtype:
        return
    g = _geom(t._data)
    v = AsStridedBackward0.apply(base, g[0], g[1], g[2])
    t.grad_fn = v.grad_fn
    t._output_nr = 0
    t._requires_grad = True


def check_view_inplace(t):
    """Before recording an in-place op on view t: PyTorch's errors for views that cannot be
    rebased; otherwise t's history is recomputed from its base's current one."""
    meta = t._view_meta
    if meta is None:
        refresh_view(t)
        return
    fn = t.grad_fn
    head = (f"Output {t._output_nr} of {re.sub(r'Backward[0-9]*$', '', fn.name())} is a view and is being "
            "modified inplace." if fn is not None else
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled.")
    raise RuntimeError(head + (_MULTI_MSG if meta == "multi" else _NOGRAD_TAIL))


class CopySlices(Op):
    """The base's node after an in-place op on one of its views: the view region of the
    gradient flows to the op's result, the rest to the base's previous history."""

    def name(self):
        return "torch::autograd::CopySlices"

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        gb = CopySlicesZero.apply(g, ctx.base_geom, ctx.view_geom) if n[0] else None
        gv = AsStridedGather.apply(g, ctx.base_geom, ctx.view_geom) if n[1] else None
        return gb, gv


class CopySlicesZero(Op):
    """g with the view region zeroed (self-adjoint)."""

    @staticmethod
    def forward(ctx, g, base_geom, view_geom):
        ctx.base_geom, ctx.view_geom = base_geom, view_geom
        return _zero_geom(g._data, base_geom, view_geom)

    @staticmethod
    def backward(ctx, gg):
        return CopySlicesZero.apply(gg, ctx.base_geom, ctx.view_geom)


def rebase_view(t, result):
    """After an in-place op wrote `result` into view t: the base's grad_fn becomes CopySlices
    and t's grad_fn becomes AsStridedBackward0 of the new base (PyTorch's behaviour)."""
    base = t._base
    if base._data.dtype != t._data.dtype or result.grad_fn is None:
        return
    bg, vg = _geom(base._data), _geom(t._data)
    node = CopySlices.__new__(CopySlices)
    node._init_node((base, result), (base, result))
    node.base_geom, node.view_geom = bg, vg
    node._output_meta = ((base._data.shape, base._data.dtype),)
    base.grad_fn = node
    base._output_nr = 0
    base._requires_grad = True
    v = AsStridedBackward0.apply(base, vg[0], vg[1], vg[2])
    t.grad_fn = v.grad_fn
    t._output_nr = 0
    t._requires_grad = True
