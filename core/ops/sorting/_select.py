"""Shared by the value-selecting ops (sort, topk, kthvalue, median, mode): the gradient scatters back to
the selected indices (PyTorch's value_selecting_reduction_backward), `out=` tuples, argument checks."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...dtypes import scalar_name as _short
from ...tensor import Tensor
from ..indexing import _ScatterAddIntoZeros
from ..pointwise import _out
from ..pointwise._out_checks import EXPECTED_DTYPE, out_tuple
from ._rows import _contig, _from_rows


class _SelectScatter(_ScatterAddIntoZeros):
    """zeros(shape).scatter_(dim, index, grad): PyTorch's value_selecting_reduction_backward."""

    def name(self):
        return "ScatterBackward0"


def _value_selecting_backward(g, dim, idx, shape, keepdim):
    if len(shape) == 0:
        return g
    if not keepdim:
        g = g.unsqueeze(dim)
        idx = idx.unsqueeze(dim)
    return _SelectScatter.apply(g, dim, index=idx, shape=tuple(shape))


class _ValueSelect(Op):
    """Base of ops returning (values, indices) whose values' gradient goes to the indices."""

    @staticmethod
    def backward(ctx, g, gi=None):
        (idx,) = ctx.saved_tensors
        return _value_selecting_backward(g, ctx.dim, idx, ctx.shape, ctx.keepdim)

    @staticmethod
    def _finish(ctx, a, dim, keepdim, vals, idx):
        ctx.dim, ctx.shape, ctx.keepdim = dim, a._data.shape, keepdim
        idx = _contig(idx.astype(np.int64, copy=False))
        ctx.save_for_backward(Tensor._make(idx))
        return _contig(vals), idx


_EXPECTED = EXPECTED_DTYPE
_MEDIAN = ("Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
           "torch.{G}Tensor does not equal torch.{W}Tensor (while checking arguments for median)",
           "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.{G}Tensor instead "
           "(while checking arguments for median)")
# each op's messages for an `out=` tensor of the wrong dtype (values, indices), as ATen words them
_OUT_DTYPE_MSGS = {
    "sort": (_EXPECTED, _EXPECTED), "topk": (_EXPECTED, _EXPECTED), "aminmax": (_EXPECTED, _EXPECTED),
    "kthvalue": ("output values must be of same type as input", "output indices must be of scalar type Long"),
    "mode": ("expected scalar type '{W}' but got '{G}' for values output",
             "expected scalar type '{W}' but got '{G}' for indices output"),
    "median": _MEDIAN, "nanmedian": _MEDIAN,
    "cummax": ("expected scalar_type {W} but found {G}",) * 2, "cummin": ("expected scalar_type {W} but found {G}",) * 2,
}


def _out_tuple(res, out, name, *inputs):
    """out=(t1, t2): each op's dtype checks, then each result written into its tensor (`inputs`: those
    ATen checks the outputs do not overlap); returns torch.return_types.<name>_out."""
    if out is None:
        return res
    return out_tuple(res, out, name, _out, _OUT_DTYPE_MSGS.get(name, ()), inputs)


def _out1(result, out):
    if out is None:
        return result
    return _out(result, out)


def _int_arg(op, name, pos, v):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
            return int(v._data)
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    return int(v)


def _not_implemented(kernel, input):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_short(input.dtype)}\'')


def _zero_numel_check(input, dim, name):
    if input._data.ndim and input._data.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _reduce_out(rows_vals, rows_idx, moved, dim, keepdim):
    shape = moved[:-1] + (1,)
    v = _from_rows(rows_vals.reshape(-1, 1), shape, dim)
    i = _from_rows(rows_idx.reshape(-1, 1), shape, dim)
    if not keepdim:
        v, i = np.squeeze(v, dim), np.squeeze(i, dim)
    return v, i
