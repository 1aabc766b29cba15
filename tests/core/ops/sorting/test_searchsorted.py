"""searchsorted (core/ops/sorting/searchsorted.py) side by side with torch: empty batched boundaries."""
from __future__ import annotations

import pytest

import core


@pytest.mark.parametrize("bshape, vshape", [((0, 3), (0, 2)), ((2, 0), (2, 3)), ((3, 0, 4), (3, 0, 1))])
def test_searchsorted_with_empty_batched_boundaries(torch, bshape, vshape):
    want = torch.searchsorted(torch.zeros(bshape), torch.zeros(vshape))
    got = core.searchsorted(core.zeros(bshape), core.zeros(vshape))
    assert list(got.shape) == list(want.shape) and got.tolist() == want.tolist() and got.dtype == core.int64

