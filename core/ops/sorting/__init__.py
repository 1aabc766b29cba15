"""Sorting and selection (sort, argsort, topk, kthvalue, median, mode, unique, cummax, searchsorted,
quantile, ...) with PyTorch's CPU results, down to which index is returned among equal values.

PyTorch's CPU kernels call libstdc++'s std::sort / std::nth_element / std::partial_sort (and TH's
quickselect for kthvalue), which are not stable: the index reported for tied values depends on the
algorithm's exact sequence of swaps. Those algorithms are ported in `_stl` (on Python lists) and
`_batched` (a batched NumPy simulation of the partition steps), and are only run for rows where ties
can change the answer; everything else is plain NumPy (`_rows`)."""
from __future__ import annotations

import sys

from . import (_batched, _rows, _select, _stl, cummax_aminmax, median_mode, quantile, searchsorted, sort,  # noqa
               topk_kthvalue, unique)
from ._batched import _heap_fallback
from ._stl import _std_sort
from .cummax_aminmax import aminmax, cummax, cummin
from .median_mode import median, mode, nanmedian
from .quantile import nanquantile, quantile
from .searchsorted import bucketize, searchsorted
from .sort import argsort, msort, sort
from .topk_kthvalue import kthvalue, topk
from .unique import unique, unique_consecutive

__all__ = ["aminmax", "argsort", "bucketize", "cummax", "cummin", "kthvalue", "median", "mode", "msort",
           "nanmedian", "nanquantile", "quantile", "searchsorted", "sort", "topk", "unique", "unique_consecutive",
           "_heap_fallback", "_std_sort"]


def _export_flat_namespace(*modules):
    """Every name of the former single-file sorting.py stays importable from the package (other modules and
    branches import its helpers)."""
    g = globals()
    for mod in modules:
        for k, v in vars(mod).items():
            if not k.startswith("__"):
                g.setdefault(k, v)


_export_flat_namespace(*(sys.modules[f"{__name__}.{m}"] for m in (    # modules, not their same-named ops
    "_stl", "_batched", "_rows", "_select", "sort", "topk_kthvalue", "median_mode", "cummax_aminmax", "unique",
    "searchsorted", "quantile")))
