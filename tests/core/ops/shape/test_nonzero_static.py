"""nonzero_static (core/ops/shape/nonzero_static.py) against torch: truncated and padded results."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same


@pytest.mark.parametrize("size,fill", [(3, -1), (1, -5), (0, 0), (6, 9)])
def test_nonzero_static(torch, size, fill):
    d = [[0, 1], [1, 1], [0, 0]]
    assert_same(core.nonzero_static(core.tensor(d), size=size, fill_value=fill),
                torch.nonzero_static(torch.tensor(d), size=size, fill_value=fill))

