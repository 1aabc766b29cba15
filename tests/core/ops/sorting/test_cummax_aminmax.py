"""cummax, cummin and aminmax (core/ops/sorting/cummax_aminmax.py) side by side with torch: the exact
values/indices dtypes demanded of out."""
from __future__ import annotations

import pytest

from agreement import agree, out_pair, same_object


TUPLE_OPS = {
    "cummax": lambda m, o: m.cummax(m.arange(12.).reshape(4, 3), 0, out=o),
    "cummin": lambda m, o: m.cummin(m.arange(12.).reshape(4, 3), 0, out=o),
    "aminmax": lambda m, o: m.aminmax(m.arange(12.).reshape(4, 3), dim=0, out=o),
}


@pytest.mark.parametrize("dts", [("float64", "int64"), ("float32", "int32"), ("float32", "int64")])
@pytest.mark.parametrize("name", sorted(TUPLE_OPS))
def test_out_tuple_dtypes(torch, name, dts):
    """Wrong values/indices dtypes raise each op's own message; the right ones are written and returned."""
    fn = TUPLE_OPS[name]
    second = "float32" if name == "aminmax" else dts[1]
    agree(torch, lambda m: fn(m, out_pair(m, dts[0], second)))
    if dts == ("float32", "int64"):
        same_object(torch, lambda m: (lambda o: (fn(m, o), o))(out_pair(m, "float32", second)))
