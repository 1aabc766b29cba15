"""core/ops/nn/pool_nd.py side by side with torch: lp_pool1d/2d/3d kernel and stride forms (unpacked as
torch's _pair / _triple), the 1-D pools' size checks with torch's own messages."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error


LP_CALLS = [(fn, k, st) for fn, x in (("lp_pool1d", 1), ("lp_pool2d", 2), ("lp_pool3d", 3))
            for k in (2, [2], (2, 2), [2, 2, 2], (1, 2, 2), [2, 2, 2, 2]) for st in (None, 1, [1], (1, 1))]


def _lp(L, fn, k, st):
    x = L.arange(1.0, 65.0).view(1, 1, 4, 4, 4)
    x = {"lp_pool1d": x.view(1, 1, 64)[..., :8], "lp_pool2d": x[0, :, 0].unsqueeze(0), "lp_pool3d": x}[fn]
    return getattr(L.nn.functional, fn)(x, 2, k, st)


@pytest.mark.parametrize("fn,k,st", LP_CALLS)
def test_lp_pool_kernel_and_stride_forms(torch, fn, k, st):
    ec, et = same_error(lambda: _lp(core, fn, k, st), lambda: _lp(torch, fn, k, st))
    if et is None:
        assert_same(_lp(core, fn, k, st), _lp(torch, fn, k, st))
    elif not (isinstance(et, TypeError) and "mul()" in str(et)):   # Tensor.mul's argument position: not here
        assert str(ec) == str(et)


@pytest.mark.parametrize("fn", ["avg_pool1d", "max_pool1d", "max_pool1d_idx"])
@pytest.mark.parametrize("args", [((2, 2), None, 0, 1), (2, (1, 1), 0, 1), (2, 1, (0, 0), 1), ([], None, 0, 1),
                                  (2, [], 0, 1), (2, (), 0, 1), (2, [1, 1, 1], 0, 1), (2, 1, 0, (1, 1))])
def test_pool1d_size_errors(torch, fn, args):
    """avg_pool1d (and max_pool1d with indices) check int[1] sizes in torch's argument parser; max_pool1d in
    max_pool1d_impl, with its own wording per argument."""
    def run(L):
        x = L.arange(1.0, 9.0).view(1, 1, 8)
        k, st, p, d = args
        if fn == "avg_pool1d":
            return L.nn.functional.avg_pool1d(x, k, st, p)
        return L.nn.functional.max_pool1d(x, k, st, p, d, return_indices=fn == "max_pool1d_idx")
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if et is not None:
        assert str(ec) == str(et)

