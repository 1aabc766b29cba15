"""histogram and histogramdd (core/ops/reduce/histogram.py) side by side with torch: counts, edges,
density, weights, empty and constant inputs, errors."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error


@pytest.mark.parametrize("kw", [{"bins": 4}, {"bins": 3, "range": (0.0, 3.0)}, {"bins": 3, "density": True},
                                {"bins": "edges"}, {"bins": 2, "weight": "w", "density": True}])
def test_histogram(torch, kw):
    data = [1.0, 2.0, 1.0, 4.0, 5.0, 2.5, 7.0 if isinstance(kw["bins"], int) and "range" not in kw else float("nan")]
    kc, kt = dict(kw), dict(kw)
    if kw["bins"] == "edges":
        kc["bins"], kt["bins"] = core.tensor([0.0, 2.0, 6.0]), torch.tensor([0.0, 2.0, 6.0])
    if "weight" in kw:
        kc["weight"], kt["weight"] = core.arange(7.0), torch.arange(7.0)
    hc, ht = core.histogram(core.tensor(data), **kc), torch.histogram(torch.tensor(data), **kt)
    assert_same(hc.hist, ht.hist)
    assert_same(hc.bin_edges, ht.bin_edges)


def test_histogram_empty_constant_and_errors(torch):
    for d in ([], [2.0, 2.0]):
        hc, ht = core.histogram(core.tensor(d), 2), torch.histogram(torch.tensor(d), 2)
        assert_same(hc.bin_edges, ht.bin_edges)
    for call in (lambda m: m.histogram(m.tensor([1.0]), -1), lambda m: m.histogram(m.tensor([1, 2]), 3),
                 lambda m: m.histogram(m.tensor([1.0]), 3, range=(2.0, 1.0)),
                 lambda m: m.histogram(m.tensor([1.0, float("inf")]), 3),
                 lambda m: m.histogram(m.tensor([1.0, float("nan")]), 3),
                 lambda m: m.histogram(m.tensor([1.0]), m.tensor([0.0, 1.0], dtype=m.float64))):
        ec, et = same_error(lambda: call(core), lambda: call(torch))
        assert str(ec) == str(et)


def test_histogramdd(torch):
    data = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]]
    for kw in ({"bins": [3, 3]}, {"bins": [1, 2], "range": [0.0, 1.0, 0.0, 2.0], "density": True}, {"bins": 2}):
        rc, rt = core.histogramdd(core.tensor(data), **kw), torch.histogramdd(torch.tensor(data), **kw)
        assert_same(rc.hist, rt.hist)
        for a, b in zip(rc.bin_edges, rt.bin_edges):
            assert_same(a, b)
    ec, et = same_error(lambda: core.histogramdd(core.tensor([0.0, 1.0]), bins=2),
                        lambda: torch.histogramdd(torch.tensor([0.0, 1.0]), bins=2))
    assert str(ec) == str(et)

