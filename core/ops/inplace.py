"""In-place and view machinery: PyTorch's checks before writing into a tensor, the snapshot an
in-place op saves, writing a result into self, rebasing self (and its view base) onto the new node,
and the generic `op_` variant built from an out-of-place op."""
from __future__ import annotations

import functools

import numpy as np

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
        if t._requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_MSG)
        b = t._base
        if b is not None and b._requires_grad:
            if t._view_meta == "nograd":   # a view made in no_grad mode
                from .shape import NOGRAD_VIEW_MSG
                raise RuntimeError(NOGRAD_VIEW_MSG)
            if not t._requires_grad:       # made before its base required grad: PyTorch sees a leaf
                raise RuntimeError(LEAF_INPLACE_MSG)
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
    from .. import dtypes
    r = result._data
    if r.shape != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                           f"{list(r.shape)}")
    if r.dtype != t._data.dtype:
        rd, td = dtypes._FROM_NP[r.dtype], dtypes._FROM_NP[t._data.dtype]
        if not dtypes.can_cast(rd, td):
            raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type {_short(td)}")
    np.copyto(t._data, r, casting="unsafe")
    if not t._inference:
        t._vc[0] += 1


def _short(d):
    from ..dtypes import scalar_name
    return scalar_name(d)


def snapshot(t):
    """A copy of t's data with t's place in the graph, so an op can save 'self' before t is overwritten."""
    if t._base is not None:
        from .shape import check_view_inplace
        check_view_inplace(t)
    return Tensor._make(t._data.copy(), t._requires_grad, t.grad_fn, t._output_nr)


def rebase(t, result):
    """Make t take result's place in the graph after an in-place write."""
    from ..autograd.function import SavedTensor
    node = result.grad_fn
    t.grad_fn = node
    t._output_nr = result._output_nr
    t._requires_grad = result._requires_grad
    if node is not None and node._saved:
        node._saved = [SavedTensor(t, True, s.output_nr) if (s is not None and s.is_output) else s
                       for s in node._saved]
    if t._base is not None:
        from .shape import rebase_view
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


