"""sort, argsort, msort: NaN sorts as the largest value; ties keep PyTorch's CPU order."""
from __future__ import annotations

from ... import return_types
from ...tensor import Tensor, _wrap_dim
from ..registry import register
from ._rows import _sort_np
from ._select import _out1, _out_tuple, _ValueSelect


class SortBackward0(_ValueSelect):
    @staticmethod
    def forward(ctx, a, dim, descending, stable):
        vals, idx = _sort_np(a._data, dim, descending, stable)
        return SortBackward0._finish(ctx, a, dim, True, vals, idx)


@register(category="sorting", methods=("sort",))
def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """Sort along dim -> (values, indices); NaN sorts as the largest value, ties keep PyTorch's CPU order."""
    d = _wrap_dim(dim, input._data.ndim)
    vals, idx = SortBackward0.apply(input, d, bool(descending), bool(stable))
    return _out_tuple(return_types.sort(vals, idx), out, "sort")


@register(category="sorting", methods=("argsort",))
def argsort(input, dim=-1, descending=False, *, stable=False):
    """Indices that sort input along dim (int64), as torch.sort(...).indices."""
    d = _wrap_dim(dim, input._data.ndim)
    return Tensor._make(_sort_np(input._data, d, bool(descending), bool(stable))[1])


@register(category="sorting", methods=("msort",))
def msort(input, *, out=None):
    """Sort along the first dim (values only)."""
    return _out1(sort(input, 0).values, out)
