"""index_select (core/ops/indexing/index_select_add_fill.py) side by side with torch: out= overlap checks
before resizing."""
from __future__ import annotations

import pytest

import core


def test_index_select_refuses_an_expanded_out_before_resizing_it(torch):
    msgs = []
    for lib in (torch, core):
        with pytest.raises(RuntimeError) as e:
            lib.index_select(lib.arange(4.0), 0, lib.tensor([0, 1, 2]), out=lib.zeros(1).expand(3))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

