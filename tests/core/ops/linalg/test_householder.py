"""geqrf (core/ops/linalg/householder.py) side by side with torch: out= with its dtype rule."""
from __future__ import annotations

import pytest

from agreement import tuple_out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_TUPLE_OUT = {
    "geqrf": (lambda m, o: m.geqrf(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
}


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", sorted(LINALG_TUPLE_OUT))
def test_linalg_tuple_out(torch, name, which):
    fn, dts = LINALG_TUPLE_OUT[name]
    tuple_out_agrees(torch, name, fn, dts[which])
