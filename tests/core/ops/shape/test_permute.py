"""The dimension permutations of core/ops/shape/permute.py (transpose, swapaxes/swapdims, t, T / mT / mH / H,
adjoint, permute, movedim/moveaxis) against torch: values, dtypes, shapes, grad_fn names and gradients, on
leaves and (permute) on a non-leaf."""
from __future__ import annotations

import warnings

import pytest

from shape_util import both
from tests.core.ops.shape.test_shape import A23, A234, A3

CASES = [
    ("transpose", lambda L, x: x.transpose(0, 2), [A234]),
    ("transpose_neg", lambda L, x: L.transpose(x, -1, -2), [A234]),
    ("swapaxes", lambda L, x: x.swapaxes(0, 1), [A234]),
    ("swapdims_fn", lambda L, x: L.swapdims(x, 0, 1), [A234]),
    ("t_2d", lambda L, x: x.t(), [A23]),
    ("t_1d", lambda L, x: L.t(x), [A3]),
    ("T_2d", lambda L, x: x.T, [A23]),
    ("mT", lambda L, x: x.mT, [A234]),
    ("mH", lambda L, x: x.mH, [A234]),
    ("H", lambda L, x: x.H, [A23]),
    ("adjoint", lambda L, x: x.adjoint(), [A234]),
    ("permute", lambda L, x: x.permute(2, 0, 1), [A234]),
    ("permute_tuple", lambda L, x: L.permute(x, (1, 2, 0)), [A234]),
    ("permute_neg", lambda L, x: x.permute(-1, 0, 1), [A234]),
    ("movedim", lambda L, x: x.movedim(0, -1), [A234]),
    ("movedim_multi", lambda L, x: L.movedim(x, (0, 1), (2, 0)), [A234]),
    ("moveaxis", lambda L, x: L.moveaxis(x, 2, 0), [A234]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_op_matches_torch_values_dtype_grad_fn_and_grads(torch, name, fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(torch, fn, *arrays)


NONLEAF_CASES = [c for c in CASES if c[0] in ("permute",)]


@pytest.mark.parametrize("name,fn,arrays", NONLEAF_CASES, ids=[c[0] for c in NONLEAF_CASES])
def test_op_on_non_leaf_matches_torch(torch, name, fn, arrays):
    both(torch, lambda L, *xs: fn(L, *[x * 2 for x in xs]), *arrays)
