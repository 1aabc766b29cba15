"""cat and stack (core/ops/shape/join.py) side by side with torch: ATen's out= overlap checks (an expanded
out, an out aliasing an input, before or after its resize)."""
from __future__ import annotations

import pytest

from agreement import agree


OVERLAP = {
    "cat_expanded_out": lambda m: m.cat([m.ones(2, 5), m.ones(3, 5)], out=m.zeros(1, 5).expand(5, 5)),
    "cat_out_is_input": lambda m: (lambda a: m.cat([a, a], out=a))(m.ones(2, 3)),
    "cat_out_view_of_input": lambda m: (lambda c: m.cat([c[:2], c[2:]], out=c))(m.arange(12.).reshape(4, 3)),
    "cat_resized_view_overlaps": lambda m: (lambda a, b: m.cat([a, b], out=b[:2]))(m.ones(4, 6), m.zeros(4, 6)),
    "cat_empty_out_is_input": lambda m: (lambda e: m.cat([e, m.ones(4, 6)], 0, out=e))(m.empty(0)),
    "cat_disjoint_view_ok": lambda m: (lambda s: m.cat([s[:2], s[2:4]], out=s[4:8]))(m.arange(8.)),
    "stack_out_view_of_input": lambda m: (lambda c: m.stack([c[:2], c[2:]], out=c.view(2, 2, 3)))(m.zeros(4, 3)),
    "stack_expanded_out": lambda m: m.stack([m.ones(2, 3)] * 2, out=m.zeros(2, 3).expand(2, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])
