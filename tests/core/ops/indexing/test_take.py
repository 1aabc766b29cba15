"""take (core/ops/indexing/take.py) side by side with torch: out= overlap checks."""
from __future__ import annotations

import pytest

from agreement import agree


OVERLAP = {
    "take_expanded_out": lambda m: m.take(m.arange(6.), m.tensor([0, 1, 2]), out=m.zeros(1).expand(3)),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])
