"""gather (core/ops/indexing/gather_scatter.py) side by side with torch: out= may be the index itself but
not part of it."""
from __future__ import annotations

import pytest

import core
from agreement import agree


def test_gather_allows_out_to_be_index_itself_but_not_part_of_it(torch):
    got = []
    for lib in (torch, core):
        index = lib.tensor([[0, 1], [1, 0]])
        got.append(lib.gather(lib.tensor([[1, 2], [3, 4]]), 1, index, out=index).tolist())
        flat = lib.tensor([0, 1, 1, 0, 0, 0])
        with pytest.raises(RuntimeError, match="unsupported operation"):
            lib.gather(lib.tensor([[1, 2], [3, 4]]), 1, flat[:4].view(2, 2), out=flat[1:5].view(2, 2))
    assert got[0] == got[1]


OVERLAP = {
    "gather_expanded_out": lambda m: m.gather(m.arange(6.), 0, m.tensor([0, 1, 2]), out=m.zeros(1).expand(3)),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])
