"""Argument parsing shared by the shape ops: ints, size lists, dim lists, -1 inference, tensor lists."""
from __future__ import annotations

import numpy as np

from ...creation import check_alloc
from ...tensor import Tensor


def _shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _check_alloc(shape, dtype):
    """RuntimeError before NumPy allocates more than core's allocation limit (creation.check_alloc)."""
    check_alloc(shape, dtype)


def _int(x, what="size"):
    if isinstance(x, Tensor):
        if x._data.ndim != 0 and x._data.size != 1:
            raise TypeError(f"{what} must be int, not Tensor")
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{what} must be int, not {type(x).__name__}")
    return int(x)


def _sizes(args, fname="view", argname="size"):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3])) -> tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for s in args:
        if type(s) is int:
            out.append(s)
            continue
        if isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{fname}(): argument '{argname}' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    return tuple(out)


def _dimlist(dims, fname="dims"):
    if isinstance(dims, (int, np.integer, Tensor)) and not isinstance(dims, bool):
        return (_int(dims, fname),)
    return tuple(_int(d, fname) for d in dims)


def _infer_size(shape, numel):
    """Resolve a single -1 like PyTorch's infer_size, with its error messages."""
    known = 1
    neg = -1
    for i, s in enumerate(shape):
        if s >= 0:
            known *= s
        elif s == -1:
            if neg >= 0:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_shape_str(shape)}")
    if neg < 0:
        if known != numel:
            raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
        return shape
    if known == 0:
        if numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_shape_str(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    if numel % known:
        raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    return shape[:neg] + (numel // known,) + shape[neg + 1:]


def _try_view(a, shape):
    """A no-copy reshape of a, or None when the strides do not allow one."""
    if a.flags.c_contiguous:
        return a.reshape(shape)
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def _tensor_list(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t_).__name__}")
    return list(tensors)


def _nonempty(tensors, fname):
    ts = _tensor_list(tensors, fname)
    if not ts:
        raise RuntimeError(f"{fname} expects a non-empty TensorList")
    return ts
