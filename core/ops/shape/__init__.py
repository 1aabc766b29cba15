"""Shape ops: views (view, reshape, squeeze, transpose, permute, expand, narrow, select,
split, unbind, unfold, as_strided, ...) and copies (repeat, flip, roll, cat, stack), one family per
module. Views share NumPy memory and the version counter with their base, as PyTorch views do; the
view and in-place machinery they use (CopySlices, rebasing, creation meta) lives in ops/inplace.py.

Each CLI-worthy op has a `rule(ndim, dim=None, **kwargs)` giving the index formula
(`out[i][j] = input[j][i]`); kwargs are the op's own keyword arguments by name
(e.g. `dims=(2, 0, 1)` for permute). A rule returns None when no formula applies.

This package re-exports the names other modules imported from the former shape.py. Every submodule is
an op module. `import core` imports permute and real_views (they record properties: Tensor.T, .real);
each other one is a lazy unit of its own (core/ops/families.py), imported on first use of one of its
names (a re-exported one: through this package's __getattr__). A new module goes in LAZY_SUBMODULES."""
from __future__ import annotations


from ..inplace import (_geom, _strided, _view, AsStridedBackward0, AsStridedBackward1, AsStridedGather,
                       AsStridedScatterBackward0, check_view_inplace, CopySlices, CopySlicesZero,
                       NOGRAD_VIEW_MSG, rebase_view, refresh_view, ViewOp)  # noqa: F401
from ._util import (_dimlist, _infer_size, _int, _shape_str, _sizes)  # noqa: F401

from . import permute, real_views  # noqa: F401  (properties: never lazy)
from .permute import (adjoint, moveaxis, movedim, permute, PermuteBackward0, swapaxes, swapdims, t, t_,  # noqa: F401
                      TBackward0, TBackward1, transpose, transpose_, TransposeBackward0, TransposeBackward1)
from .. import registry

# the other submodules, in registration order (each a lazy unit: core/ops/lazy_table.py)
LAZY_SUBMODULES = ("views", "squeeze", "slicing", "split", "join", "repeat", "flip_roll", "block_diag",
                   "copy_variants", "cross", "grids", "nonzero_static", "rot90", "unsafe_resize")
_EXPORTS = {
    "views": ("as_strided", "as_strided_", "broadcast_to", "contiguous", "expand", "expand_as", "ExpandBackward0",
              "flatten", "ravel", "reshape", "reshape_as", "unflatten", "unfold", "UnfoldBackward0",
              "UnfoldBackwardBackward0", "UnsafeViewBackward0", "view", "view_as", "ViewBackward0"),
    "squeeze": ("squeeze", "squeeze_", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward3",
                "SqueezeBackward4", "SqueezeBackward5", "unsqueeze", "unsqueeze_", "UnsqueezeBackward0",
                "UnsqueezeBackward1"),
    "slicing": ("narrow", "select", "SelectBackward0", "SelectBackwardBackward0", "SliceBackward0",
                "SliceBackwardBackward0"),
    "split": ("chunk", "split", "split_with_sizes", "SplitBackward0", "SplitWithSizesBackward0", "tensor_split",
              "unbind", "UnbindBackward0"),
    "join": ("atleast_1d", "atleast_2d", "atleast_3d", "cat", "CatBackward0", "column_stack", "concat",
             "concatenate", "dstack", "hstack", "row_stack", "stack", "StackBackward0", "vstack"),
    "repeat": ("repeat", "RepeatBackward0", "tile"),
    "flip_roll": ("flip", "FlipBackward0", "fliplr", "flipud", "roll", "RollBackward0"),
}
__getattr__ = registry.lazy_exports(__name__, _EXPORTS)
