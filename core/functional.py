"""`torch.functional`: the module torch keeps its Python-level tensor functions in; here it re-exports
core's implementations of those names (the ones core has). Lookup is lazy so that new ops added to
core appear here without edits."""
from __future__ import annotations

import core

_TORCH_FUNCTIONAL = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
                     "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
                     "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
                     "unique_consecutive", "unravel_index")
__all__ = [n for n in _TORCH_FUNCTIONAL if hasattr(core, n)]


def __getattr__(name):
    if name in _TORCH_FUNCTIONAL and hasattr(core, name):
        return getattr(core, name)
    raise AttributeError(f"module 'torch.functional' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
