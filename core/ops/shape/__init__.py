"""Shape ops: views (view, reshape, squeeze, transpose, permute, expand, narrow, select,
split, unbind, unfold, as_strided, ...) and copies (repeat, flip, roll, cat, stack), one family per
module. Views share NumPy memory and the version counter with their base, as PyTorch views do; the
view and in-place machinery they use (CopySlices, rebasing, creation meta) lives in ops/inplace.py.

Each CLI-worthy op has a `rule(ndim, dim=None, **kwargs)` giving the index formula
(`out[i][j] = input[j][i]`); kwargs are the op's own keyword arguments by name
(e.g. `dims=(2, 0, 1)` for permute). A rule returns None when no formula applies.

This package re-exports the names other modules imported from the former shape.py (on first use:
core/ops/pointwise/__init__.py). Every submodule is an op module: eagerly (CORE_EAGER_FAMILIES=1) this
package imports them all, so adding an op is adding its module (registration happens at import) and
regenerating core/ops/lazy_table.py, from which `import core` knows the module without importing it."""
from __future__ import annotations

from .. import lazy_table, registry
from ..inplace import (_geom, _strided, _view, AsStridedBackward0, AsStridedBackward1, AsStridedGather,
                       AsStridedScatterBackward0, check_view_inplace, CopySlices, CopySlicesZero,
                       NOGRAD_VIEW_MSG, rebase_view, refresh_view, ViewOp)  # noqa: F401
from ._util import (_dimlist, _infer_size, _int, _shape_str, _sizes)  # noqa: F401

__getattr__ = registry.lazy_package(__name__, (), lazy_table.EXPORTS.get(__name__, {}))

if registry.EAGER:   # import every submodule now, in this order (= registration order)
    import importlib
    import pkgutil

    from .views import (as_strided, as_strided_, broadcast_to, contiguous, expand, expand_as, ExpandBackward0,
                        flatten, ravel, reshape, reshape_as, unflatten, unfold, UnfoldBackward0,
                        UnfoldBackwardBackward0, UnsafeViewBackward0, view, view_as, ViewBackward0)  # noqa: F401
    from .squeeze import (squeeze, squeeze_, SqueezeBackward0, SqueezeBackward1, SqueezeBackward2,
                          SqueezeBackward3, SqueezeBackward4, SqueezeBackward5, unsqueeze, unsqueeze_,
                          UnsqueezeBackward0, UnsqueezeBackward1)  # noqa: F401
    from .permute import (adjoint, moveaxis, movedim, permute, PermuteBackward0, swapaxes, swapdims, t, t_,
                          TBackward0, TBackward1, transpose, transpose_, TransposeBackward0,
                          TransposeBackward1)  # noqa: F401
    from .slicing import (narrow, select, SelectBackward0, SelectBackwardBackward0, SliceBackward0,
                          SliceBackwardBackward0)  # noqa: F401
    from .split import (chunk, split, split_with_sizes, SplitBackward0, SplitWithSizesBackward0, tensor_split,
                        unbind, UnbindBackward0)  # noqa: F401
    from .join import (atleast_1d, atleast_2d, atleast_3d, cat, CatBackward0, column_stack, concat, concatenate,
                       dstack, hstack, row_stack, stack, StackBackward0, vstack)  # noqa: F401
    from .repeat import (repeat, RepeatBackward0, tile)  # noqa: F401
    from .flip_roll import (flip, FlipBackward0, fliplr, flipud, roll, RollBackward0)  # noqa: F401
    for _m in pkgutil.iter_modules(__path__):      # new op modules register themselves on import
        importlib.import_module(f"{__name__}.{_m.name}")
    del _m
