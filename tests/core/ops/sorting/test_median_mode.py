"""mode, median and nanmedian (core/ops/sorting/median_mode.py) side by side with torch: out= overlap
checks and the exact values/indices dtypes demanded of out."""
from __future__ import annotations

import pytest

from agreement import agree, out_pair, same_object


OVERLAP = {
    "mode_out_view_of_input": lambda m: (lambda y: m.mode(y, 0, out=(y[0], m.empty(3, dtype=m.long))))(
        m.ones(4, 3)),
}


TUPLE_OPS = {
    "mode": lambda m, o: m.mode(m.arange(12.).reshape(4, 3), 0, out=o),
    "median": lambda m, o: m.median(m.arange(12.).reshape(4, 3), 0, out=o),
    "nanmedian": lambda m, o: m.nanmedian(m.arange(12.).reshape(4, 3), 0, out=o),
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
