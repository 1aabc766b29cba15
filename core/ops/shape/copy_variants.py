"""The `*_copy` twins of the view ops (torch.permute_copy, view_copy, split_copy, ...) and narrow_copy:
the view op's result as a fresh contiguous tensor that shares nothing with its input. Each runs the view
op itself (its checks and errors), then copies; the view's autograd node becomes `<ViewNode>_copy`
(torch's grad_fn names: PermuteBackward0_copy, SplitBackward0_copy, ...) with the same backward."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor, _wrap_dim
from ..registry import register
from .slicing import narrow

_COPY_NODES: dict[type, type] = {}


def _copy_node(cls, suffix="_copy", name=None):
    """The node class `<cls>_copy`: cls's backward, not a view."""
    key = (cls, name)
    sub = _COPY_NODES.get(key)
    if sub is None:
        sub = _COPY_NODES[key] = type(name or cls.__name__ + suffix, (cls,), {"is_view": False,
                                                                             "__module__": __name__})
    return sub


def _fresh(v, input, name=None):
    """v (a view of input) as a new contiguous tensor; the node v's op recorded becomes its _copy twin."""
    data = np.array(v._data, order="C", copy=True)
    node = v.grad_fn
    if node is None or node is input.grad_fn:
        return Tensor._make(data)
    if not type(node).__name__.endswith("_copy") and type(node).__name__ != name:
        node.__class__ = _copy_node(type(node), name=name)
    return Tensor._make(data, True, node, v._output_nr)


def _copies(views, input):
    return tuple(_fresh(v, input) for v in views)


def _copy_op(view_name, doc):
    """Register torch.<view_name>_copy(input, *args): the view op's result copied (one tensor)."""
    def fn(input, *args, **kwargs):
        return _fresh(getattr(input, view_name)(*args, **kwargs), input)
    fn.__name__ = fn.__qualname__ = f"{view_name}_copy"
    fn.__doc__ = doc
    return register(category="shape")(fn)


permute_copy = _copy_op("permute", "permute(input, dims) as a new contiguous tensor (PermuteBackward0_copy).")
t_copy = _copy_op("t", "t(input) as a new contiguous tensor (TBackward0_copy).")
transpose_copy = _copy_op("transpose", "transpose(input, dim0, dim1) as a new contiguous tensor.")
unsqueeze_copy = _copy_op("unsqueeze", "unsqueeze(input, dim) as a new contiguous tensor.")
select_copy = _copy_op("select", "select(input, dim, index) as a new contiguous tensor.")
diagonal_copy = _copy_op("diagonal", "diagonal(input, offset, dim1, dim2) as a new contiguous tensor.")
unfold_copy = _copy_op("unfold", "input.unfold(dimension, size, step) as a new contiguous tensor.")
as_strided_copy = _copy_op("as_strided", "as_strided(input, size, stride, storage_offset) as a new tensor.")


@register(category="shape")
def squeeze_copy(input, dim=None):
    """squeeze(input[, dim]) as a new contiguous tensor (SqueezeBackward0/1/2_copy)."""
    return _fresh(input.squeeze() if dim is None else input.squeeze(dim), input)


@register(category="shape")
def expand_copy(input, size, *, implicit=False):
    """input.expand(size) materialised as a new contiguous tensor (ExpandBackward0_copy)."""
    return _fresh(input.expand(size), input)


@register(category="shape")
def view_copy(input, size):
    """input.view(size) as a new tensor (ViewBackward0_copy); view_copy(input, dtype) reinterprets the
    bytes and is not differentiable, as torch's."""
    if isinstance(size, (int, np.integer)):
        raise TypeError("view_copy() received an invalid combination of arguments - got (Tensor, int), but "
                        "expected one of:\n * (Tensor input, torch.dtype dtype, *, Tensor out = None)\n"
                        " * (Tensor input, tuple of ints size, *, Tensor out = None)\n")
    if not isinstance(size, (tuple, list)):
        return Tensor._make(np.array(input.detach().view(size)._data, order="C", copy=True))
    return _fresh(input.view(size), input)


class AliasBackward0(Op):
    @staticmethod
    def forward(ctx, a):
        return np.array(a._data, order="C", copy=True)

    @staticmethod
    def backward(ctx, g):
        return g


AliasBackward0_copy = _copy_node(AliasBackward0)


@register(category="shape")
def alias_copy(input):
    """A new contiguous copy of input (AliasBackward0_copy)."""
    return AliasBackward0_copy.apply(input)


class DetachCopyNotImplemented(Op):
    """detach_copy's node: torch registers no derivative for it, so its output requires grad and backward
    raises."""

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a):
        return np.array(a._data, order="C", copy=True)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::detach_copy is not implemented")


@register(category="shape")
def detach_copy(input):
    """A new contiguous copy of input; with grad, a node whose backward raises, as torch's."""
    return DetachCopyNotImplemented.apply(input)


@register(category="shape")
def slice_copy(input, dim=0, start=None, end=None, step=1):
    """input[..., start:end:step, ...] along dim as a new contiguous tensor (SliceBackward0_copy)."""
    d = _wrap_dim(dim, input.dim())
    # a full slice indexes as an alias; either node is renamed to torch's SliceBackward0_copy
    return _fresh(input[(slice(None),) * d + (slice(start, end, step),)], input, name="SliceBackward0_copy")


@register(category="shape")
def unbind_copy(input, dim=0):
    """unbind(input, dim) as new contiguous tensors (UnbindBackward0_copy)."""
    return _copies(input.unbind(dim), input)


@register(category="shape")
def split_copy(input, split_size, dim=0):
    """split(input, split_size, dim) as new contiguous tensors (SplitBackward0_copy)."""
    return _copies(input.split(split_size, dim), input)


@register(category="shape")
def split_with_sizes_copy(input, split_sizes, dim=0):
    """split_with_sizes(input, split_sizes, dim) as new contiguous tensors (SplitWithSizesBackward0_copy)."""
    return _copies(input.split_with_sizes(split_sizes, dim), input)


@register(category="shape", methods=("narrow_copy",))
def narrow_copy(input, dim, start, length):
    """narrow(input, dim, start, length) as a new contiguous tensor (NarrowCopyBackward0); ATen's own checks
    for a dim past the end and a negative length come first."""
    if isinstance(dim, int) and input.dim() > 0 and dim >= input.dim():
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    if isinstance(length, int) and length < 0 and input.dim() > 0:
        start_ = start + input.shape[_wrap_dim(dim, input.dim())] if start < 0 else start
        raise RuntimeError(f"start ({start_}) + length ({length}) exceeds dimension size "
                           f"({input.shape[_wrap_dim(dim, input.dim())]}).")
    return _fresh(narrow(input, dim, start, length), input, name="NarrowCopyBackward0")
