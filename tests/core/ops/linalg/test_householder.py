"""geqrf (core/ops/linalg/householder.py) side by side with torch: out= with its dtype rule."""
from __future__ import annotations

import pytest

from agreement import agree


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_TUPLE_OUT = {
    "geqrf": (lambda m, o: m.geqrf(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
}


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", sorted(LINALG_TUPLE_OUT))
def test_linalg_tuple_out(torch, name, which):
    fn, dts = LINALG_TUPLE_OUT[name]

    def run(m):
        o = tuple(m.empty(0, dtype=getattr(m, d)) for d in dts[which])
        r = fn(m, o)
        assert all(a is b for a, b in zip(r, o)) and type(r).__name__.endswith("_out")
        # eigenvectors, Q and U carry LAPACK's sign conventions: compared through eigenvalues, R, S, L
        return o[0] if name == "eigh" else o[1] if name in ("qr", "svd", "lu") else o
    agree(torch, run)
