"""scatter_reduce (sum, prod, mean, amax, amin; include_self) and scatter_reduce_, with PyTorch's
scatter_reduce_backward (FunctionsManual.cpp) written with core ops."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor
from .. import registry
from ..pointwise import where
from ..registry import register
from ._common import _assert_no_overlap, _fast_inplace, _ones_like, _out_arg, _zeros_like
from .gather_scatter import _REDUCE_NEW, _scatter_checks
from .kernels import _scatter_reduce_np


class ScatterReduceBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, src, dim, *, index, idx, reduce, include_self):
        ctx.save_for_backward(a, src, index)
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        return _scatter_reduce_np(a._data, dim, idx, src._data, reduce, include_self)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's scatter_reduce_backward (FunctionsManual.cpp), written with core ops.
        self_, src, index, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if reduce == "sum":
            grad_self, grad_src = grad, grad.gather(dim, index)
        elif reduce == "prod":
            masked_self = self_.masked_fill(self_ == 0, 1)
            masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
            grad_self = grad * masked_self_result / masked_self
            src_zero = src == 0
            src_num_zeros = _zeros_like(self_).scatter_add(dim, index, src_zero.to(self_.dtype)).gather(dim, index)
            src_single_zero = src_zero & (src_num_zeros == 1)
            masked_src = src.masked_fill(src_single_zero, 1)
            masked_src_result = self_.scatter_reduce(dim, index, masked_src, reduce, include_self=include_self)
            grad_src = where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                             (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
        elif reduce == "mean":
            n = _ones_like(grad) if include_self else _zeros_like(grad)
            n = n.scatter_add(dim, index, _ones_like(src))
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = grad.gather(dim, index) / n.gather(dim, index)
        else:  # amax / amin: split the gradient evenly among all elements equal to the result
            value = result.gather(dim, index)
            self_is_result = (self_ == result).to(self_.dtype)
            src_is_result = (src == value).to(self_.dtype)
            n_to_distribute = self_is_result.scatter_add(dim, index, src_is_result)
            grad_distributed = grad / n_to_distribute
            grad_self = (self_ == result) * grad_distributed
            grad_src = (src == value) * grad_distributed.gather(dim, index)
        if not include_self:
            grad_self = grad_self.scatter(dim, index, 0)
        return grad_self, grad_src



@register(category="indexing", methods=("scatter_reduce",), kind="scatter")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduce src into a copy of input at index along dim (sum, prod, mean, amax or amin).

    include_self=False leaves input's own values out at the positions that are scattered to. Gradients as
    PyTorch's: amax/amin split the gradient evenly among all elements equal to the result."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(input, dim, index, src)
    if reduce not in _REDUCE_NEW:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    r = ScatterReduceBackward0.apply(input, src, d, index=index, idx=idx, reduce=reduce,
                                     include_self=bool(include_self))
    return _out_arg(r, out)



def _scatter_reduce_direct(self, dim, index, src, reduce, *, include_self=True):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce_(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d, idx = _scatter_checks(self, dim, index, src)
    if reduce not in _REDUCE_NEW:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _assert_no_overlap(self._data, index._data, src._data)
    np.copyto(self._data, _scatter_reduce_np(self._data, d, idx, src._data, reduce, bool(include_self)))


registry.add_inplace("scatter_reduce", "scatter_reduce_",
                     _fast_inplace(scatter_reduce, "scatter_reduce_", _scatter_reduce_direct))
