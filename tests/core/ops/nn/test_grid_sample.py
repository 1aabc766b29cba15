"""grid_sampler_2d / 3d (core/ops/nn/grid_sample.py) side by side with torch: the argument parser's
TypeErrors and the kernel's dtype errors."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error


GRID_CALLS = {
    "float_mode": lambda L, x, g: L.grid_sampler_2d(x, g, 0.0, 0, True),
    "bool_mode": lambda L, x, g: L.grid_sampler_2d(x, g, True, 0, False),
    "float_padding": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 1.0, False),
    "int_align": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 0, 1),
    "none_align": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 0, None),
    "3d_int_align": lambda L, x, g: L.grid_sampler_3d(x, g, 0, 0, 1),
    "generic_float_mode": lambda L, x, g: L.grid_sampler(x, g, 0.0, 0, True),
    "grid_sample_int_align": lambda L, x, g: L.nn.functional.grid_sample(x, g, align_corners=1),
    "long_input": lambda L, x, g: L.grid_sampler_2d(x.long(), g, 0, 0, True),
    "long_grid": lambda L, x, g: L.grid_sampler_2d(x, g.long(), 0, 0, True),
    "double_input": lambda L, x, g: L.grid_sampler_2d(x.double(), g, 0, 0, True),
    "nearest_reflection": lambda L, x, g: L.grid_sampler_2d(x, g, 1, 2, False),
}


@pytest.mark.parametrize("name", list(GRID_CALLS))
def test_grid_sampler_arguments_like_torch(torch, name):
    def run(L):
        L.manual_seed(0)
        return GRID_CALLS[name](L, L.randn(1, 2, 4, 5), L.rand(1, 3, 2, 2) * 2.4 - 1.2)
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if et is not None:
        assert str(ec) == str(et)
    else:
        assert_same(run(core), run(torch))

