"""sort (core/ops/sorting/sort.py) side by side with torch: out= may be the input; the exact values/indices
dtypes demanded of out."""
from __future__ import annotations

import pytest

from agreement import agree, out_pair, same_object


OVERLAP = {
    "sort_out_is_input_allowed": lambda m: (lambda y: m.sort(y, 0, out=(y, m.empty((4, 3), dtype=m.long))))(
        m.tensor([[3., 1, 2], [0, 5, 4], [7, 6, 8], [9, -1, 2]])),
}


TUPLE_OPS = {
    "sort": lambda m, o: m.sort(m.arange(12.).reshape(4, 3), 0, out=o),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])


@pytest.mark.parametrize("dts", [("float64", "int64"), ("float32", "int32"), ("float32", "int64")])
@pytest.mark.parametrize("name", sorted(TUPLE_OPS))
def test_out_tuple_dtypes(torch, name, dts):
    """Wrong values/indices dtypes raise each op's own message; the right ones are written and returned."""
    fn = TUPLE_OPS[name]
    second = "float32" if name == "aminmax" else dts[1]
    agree(torch, lambda m: fn(m, out_pair(m, dts[0], second)))
    if dts == ("float32", "int64"):
        same_object(torch, lambda m: (lambda o: (fn(m, o), o))(out_pair(m, "float32", second)))
