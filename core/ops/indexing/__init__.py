"""Indexing and data-movement ops with PyTorch's semantics, error messages and gradients, one family per
module: gather / scatter / scatter_add (gather_scatter), scatter_reduce, index_select / index_add /
index_fill, masked_fill / masked_select, take / take_along_dim, nonzero / argwhere / one_hot, triangles and
diagonals (tri_diag), index_put, index_copy / index_reduce, masked_scatter, put, select_scatter /
slice_scatter / diagonal_scatter (scatter_views), unravel_index, and `Tensor.__getitem__` / `__setitem__`
(getitem, setitem; basic indexing returns views, advanced indexing follows NumPy/PyTorch placement).

Each submodule registers its ops when it is imported. `import core` imports none of them: each is a lazy
unit of its own (core/ops/families.py), so a first `gather` imports gather_scatter.py and what it
imports; the names other modules import from this package are re-exported on first use (_EXPORTS)."""
from .. import registry

# the submodules, in registration order (each a lazy unit: core/ops/lazy_table.py)
LAZY_SUBMODULES = ("gather_scatter", "scatter_reduce", "index_select_add_fill", "masked", "take", "one_hot_nonzero",
                   "tri_diag", "advanced", "index_put", "getitem", "setitem", "index_copy_reduce", "scatter_views")
_EXPORTS = {
    "gather_scatter": ("_ScatterAddIntoZeros", "_scatter_into_zeros", "gather", "scatter", "scatter_add"),
    "index_copy_reduce": ("index_copy", "index_reduce"),
    "index_put": ("index_put", "index_put_"),
    "index_select_add_fill": ("index_add", "index_fill", "index_select"),
    "masked": ("masked_fill", "masked_scatter", "masked_select"),
    "one_hot_nonzero": ("argwhere", "nonzero", "one_hot", "unravel_index"),
    "scatter_reduce": ("scatter_reduce",),
    "scatter_views": ("diagonal_scatter", "select_scatter", "slice_scatter"),
    "take": ("put", "take", "take_along_dim"),
    "tri_diag": ("diag", "diag_embed", "diagonal", "tril", "tril_indices", "triu", "triu_indices"),
}
__getattr__ = registry.lazy_exports(__name__, _EXPORTS)

__all__ = ["argwhere", "diag", "diag_embed", "diagonal", "diagonal_scatter", "gather", "index_add", "index_copy",
           "index_fill", "index_put", "index_put_", "index_reduce", "index_select", "masked_fill", "masked_scatter",
           "masked_select", "nonzero", "one_hot", "put", "scatter", "scatter_add", "_scatter_into_zeros",
           "scatter_reduce", "_ScatterAddIntoZeros", "select_scatter", "slice_scatter", "take", "take_along_dim",
           "tril", "tril_indices", "triu", "triu_indices", "unravel_index"]
