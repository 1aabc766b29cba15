"""`out=` on indexing ops: ATen's checks before writing (dtype of out, overlap with an input), compared
with torch's exception class and message."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core

X = np.arange(9.0, dtype=np.float32).reshape(3, 3)
IDX = np.zeros((3, 3), dtype=np.int64)

CALLS = {
    "gather": lambda L, x, i, o: L.gather(x, 0, i, out=o),
    "index_select": lambda L, x, i, o: L.index_select(x, 0, i[0], out=o),
    "take": lambda L, x, i, o: L.take(x, i, out=o),
    "masked_select": lambda L, x, i, o: L.masked_select(x, x > 3, out=o),
    "triu": lambda L, x, i, o: L.triu(x, out=o),
    "scatter": lambda L, x, i, o: L.scatter(x, 0, i, x, out=o),
    "scatter_add": lambda L, x, i, o: L.scatter_add(x, 0, i, x, out=o),
    "index_add": lambda L, x, i, o: L.index_add(x, 0, i[0], x, out=o),
    "take_along_dim": lambda L, x, i, o: L.take_along_dim(x, i, 0, out=o),
}


def _run(L, fn, out_of):
    x, i = L.tensor(X), L.tensor(IDX)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(L, x, i, out_of(L, x, i))
        return "ok", r.tolist()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_of_another_dtype_raises_like_torch(torch, name):
    out_of = lambda L, x, i: L.empty(3, 3, dtype=L.float64)   # noqa: E731
    assert _run(core, CALLS[name], out_of) == _run(torch, CALLS[name], out_of)


@pytest.mark.parametrize("name", ["gather", "index_select", "take", "masked_select"])
def test_out_overlapping_the_input_raises_like_torch(torch, name):
    out_of = lambda L, x, i: x   # noqa: E731
    assert _run(core, CALLS[name], out_of) == _run(torch, CALLS[name], out_of)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_of_the_right_dtype_is_written_like_torch(torch, name):
    out_of = lambda L, x, i: L.empty(0, dtype=L.float32)   # noqa: E731
    assert _run(core, CALLS[name], out_of) == _run(torch, CALLS[name], out_of)
