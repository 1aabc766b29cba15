"""Shared helpers of the nn op family: PyTorch's type names for messages, int pairs, reductions."""
from __future__ import annotations

import warnings

import numpy as np

from ... import _sum_order
from ... import dtypes as _dt
from ...creation import check_alloc
from ...tensor import Size, Tensor


def _short(d):
    """PyTorch's scalar type name ('Float', 'Long', ...) of a core dtype or NumPy dtype."""
    return _dt.scalar_name(d)


def _cpp_name(d):
    """C++ type name used in some of PyTorch's messages ('float', 'double', 'long int')."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}[d.name]


def _shape(s):
    return "[" + ", ".join(map(str, s)) + "]"


def _pair(x):
    if isinstance(x, (list, tuple, Size)):
        if len(x) == 1:
            return (int(x[0]), int(x[0]))
        return tuple(int(v) for v in x)
    return (int(x), int(x))


def _make(arr):
    return Tensor._make(arr)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    """Validate `reduction` (legacy size_average/reduce flags map onto it, with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        reduction = "mean" if (sa and rd) else ("sum" if rd else "none")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=2)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        reduction = "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce_np(a, reduction):
    """ATen's apply_loss_reduction: loss.sum() or loss.mean() (sum / numel), summed in torch's CPU order."""
    if reduction == "none":
        return a
    s = _sum_order.torch_sum(a, set(range(a.ndim))) if a.size else None
    if reduction == "sum":
        return np.asarray(a.sum() if s is None else s, dtype=a.dtype)
    if s is None:
        return np.asarray(a.mean() if a.size else np.nan, dtype=a.dtype)
    return np.asarray(np.divide(s, a.dtype.type(a.size), dtype=a.dtype))


def _alloc(shape, dtype):
    """RuntimeError (core's allocation guard) before NumPy allocates an array this large."""
    check_alloc(shape, dtype)


def _torch_name(fn):
    """A torch.<name> twin (torch's signature over an F kernel) is named like torch's function."""
    fn.__name__ = fn.__qualname__ = fn.__name__[len("torch_"):]
    return fn


def check_conv_dtypes(input, weight, bias):
    """ATen's convolution dtype checks: weight (and bias) of input's dtype, with the mkldnn path's
    message for a float32 batch of more than one."""
    if input._data.dtype != weight._data.dtype:
        if input._data.dtype == np.float32 and input._data.shape[0] > 1:   # PyTorch's mkldnn path
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same or "
                               "input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_short(input.dtype)} but found {_short(weight.dtype)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_cpp_name(input.dtype)}) and bias type ({_cpp_name(bias.dtype)}) should "
                           "be the same")


def _vector_lanes(d, unroll_bytes):
    """The elements of d that ATen's CPU loop runs through its vector lanes (chunks of two vectors:
    core._cpu.unroll_bytes), in memory order (TensorIterator walks a transposed input as it is laid out); the last
    n % chunk go through the scalar op."""
    if not d.flags.c_contiguous and d.T.flags.c_contiguous:
        return _vector_lanes(d.T, unroll_bytes).T
    lanes = np.ones(d.size, bool)
    n = d.size % (unroll_bytes // d.dtype.itemsize)
    if n:
        lanes[d.size - n:] = False
    return lanes.reshape(d.shape)


def _vector_nan(d, unroll_bytes):
    """NaN elements in the vector lanes of ATen's CPU loop (the scalar tail's NaN handling can differ)."""
    nan = np.isnan(d)
    if not nan.any():
        return nan
    return nan & _vector_lanes(d, unroll_bytes)
