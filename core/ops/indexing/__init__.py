"""Indexing and data-movement ops with PyTorch's semantics, error messages and gradients, one family per
module: gather / scatter / scatter_add (gather_scatter), scatter_reduce, index_select / index_add /
index_fill, masked_fill / masked_select, take / take_along_dim, nonzero / argwhere / one_hot, triangles and
diagonals (tri_diag), index_put, index_copy / index_reduce, masked_scatter, put, select_scatter /
slice_scatter / diagonal_scatter (scatter_views), unravel_index, and `Tensor.__getitem__` / `__setitem__`
(getitem, setitem; basic indexing returns views, advanced indexing follows NumPy/PyTorch placement).

Each submodule registers its ops when it is imported (eagerly: in the order below, the order of the CLI's
command list; `import core` imports none: see core/ops/families.py); the names other modules import are
re-exported here, imported on first use (core/ops/pointwise/__init__.py)."""
from .. import lazy_table, registry

__getattr__ = registry.lazy_package(__name__, (), lazy_table.EXPORTS.get(__name__, {}))

if registry.EAGER:   # import every submodule now, in this order (= registration order)
    from . import (gather_scatter, scatter_reduce, index_select_add_fill, masked, take, one_hot_nonzero,  # noqa: F401
                   tri_diag, advanced, index_put, getitem, setitem, index_copy_reduce, scatter_views)
    from .gather_scatter import _ScatterAddIntoZeros, _scatter_into_zeros, gather, scatter, scatter_add
    from .index_copy_reduce import index_copy, index_reduce
    from .index_put import index_put, index_put_
    from .index_select_add_fill import index_add, index_fill, index_select
    from .masked import masked_fill, masked_scatter, masked_select
    from .one_hot_nonzero import argwhere, nonzero, one_hot, unravel_index
    from .scatter_reduce import scatter_reduce
    from .scatter_views import diagonal_scatter, select_scatter, slice_scatter
    from .take import put, take, take_along_dim
    from .tri_diag import diag, diag_embed, diagonal, tril, tril_indices, triu, triu_indices

__all__ = ["argwhere", "diag", "diag_embed", "diagonal", "diagonal_scatter", "gather", "index_add", "index_copy",
           "index_fill", "index_put", "index_put_", "index_reduce", "index_select", "masked_fill", "masked_scatter",
           "masked_select", "nonzero", "one_hot", "put", "scatter", "scatter_add", "_scatter_into_zeros",
           "scatter_reduce", "_ScatterAddIntoZeros", "select_scatter", "slice_scatter", "take", "take_along_dim",
           "tril", "tril_indices", "triu", "triu_indices", "unravel_index"]
