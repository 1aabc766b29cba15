"""Hypothesis-generated shapes, dims and indices for the indexing ops, compared with torch
(values, dtypes, shapes, gradients and error classes/messages)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexing_util import compare

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def gather_case(draw, scatter=False):
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    ishape = tuple(draw(st.integers(0 if k != d else 1, shape[k])) if k != d else draw(st.integers(1, 5))
                   for k in range(nd))
    if scatter:   # scatter needs index no larger than self along dim too
        ishape = tuple(min(s, shape[k]) if k == d else s for k, s in enumerate(ishape))
    hi = shape[d] + (1 if draw(st.booleans()) and draw(st.booleans()) else 0)   # sometimes out of bounds
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(0, hi, ishape).astype(np.int64)
    src = rng.standard_normal(ishape).astype(np.float32)
    return x, dim, idx, src


@SETTINGS
@given(case=gather_case())
def test_gather_random(torch, case):
    x, dim, idx, _ = case
    compare(torch, lambda L, a: a.gather(dim, L.tensor(idx)), [x])


@SETTINGS
@given(case=gather_case(scatter=True), how=st.sampled_from(["scatter", "scatter_add", "value"]))
def test_scatter_random(torch, case, how):
    x, dim, idx, src = case
    if how == "value":
        compare(torch, lambda L, a: a.scatter(dim, L.tensor(idx), -2.5), [x])
    elif how == "scatter":
        compare(torch, lambda L, a, s: a.scatter(dim, L.tensor(idx), s), [x, src])
    else:
        compare(torch, lambda L, a, s: a.scatter_add(dim, L.tensor(idx), s), [x, src])


@SETTINGS
@given(case=gather_case(scatter=True), reduce=st.sampled_from(["sum", "prod", "mean", "amax", "amin"]),
       include_self=st.booleans())
def test_scatter_reduce_random(torch, case, reduce, include_self):
    x, dim, idx, src = case
    compare(torch, lambda L, a, s: a.scatter_reduce(dim, L.tensor(idx), s, reduce, include_self=include_self),
            [x, src], rtol=1e-4, atol=1e-5)


@SETTINGS
@given(nd=st.integers(1, 4), data=st.data())
def test_index_select_and_index_add_random(torch, nd, data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    dim = data.draw(st.integers(-nd, nd - 1))
    idx = np.array(data.draw(st.lists(st.integers(-1, shape[dim] - 1 + int(data.draw(st.booleans()))), max_size=6)),
                   dtype=np.int64)
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    x = rng.standard_normal(shape).astype(np.float32)
    compare(torch, lambda L, a: a.index_select(dim, L.tensor(idx)), [x])
    sshape = list(shape)
    sshape[dim] = idx.size
    src = rng.standard_normal(sshape).astype(np.float32)
    compare(torch, lambda L, a, s: a.index_add(dim, L.tensor(idx), s, alpha=2), [x, src])


@st.composite
def getitem_index(draw, shape):
    items = []
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        # at most one Ellipsis: with several, PyTorch reads past the size array (undefined behaviour)
        kinds = ["int", "slice", "none", "list", "full"] + ([] if Ellipsis in items else ["ellipsis"])
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            items.append(draw(st.integers(-4, 4)))
        elif kind == "slice":
            items.append(slice(draw(st.one_of(st.none(), st.integers(-5, 5))),
                               draw(st.one_of(st.none(), st.integers(-5, 5))),
                               draw(st.one_of(st.none(), st.integers(1, 3)))))
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            items.append(Ellipsis)
        elif kind == "full":
            items.append(slice(None))
        else:
            items.append(draw(st.lists(st.integers(-4, 3), min_size=1, max_size=3)))
    return tuple(items)


@SETTINGS
@given(data=st.data())
def test_getitem_random(torch, data):
    nd = data.draw(st.integers(0, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    index = data.draw(getitem_index(shape))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(torch, lambda L, a: a[index], [x])


@SETTINGS
@given(data=st.data(), value_kind=st.sampled_from(["scalar", "zero_dim", "broadcast"]))
def test_setitem_random(torch, data, value_kind):
    nd = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    index = data.draw(getitem_index(shape))
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    v = np.array([1.25], np.float32) if value_kind == "broadcast" else np.array(-3.5, np.float32)

    def fn(L, a, val):
        y = a * 1
        y[index] = 7.0 if value_kind == "scalar" else val
        return y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(torch, fn, [x, v])


@SETTINGS
@given(data=st.data(), accumulate=st.booleans())
def test_index_put_random(torch, data, accumulate):
    nd = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    k = data.draw(st.integers(1, nd))
    n = data.draw(st.integers(0, 5))
    idx = [np.array(data.draw(st.lists(st.integers(-shape[d], shape[d] - 1), min_size=n, max_size=n)), np.int64)
           for d in range(k)]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    vshape = (n,) + shape[k:]
    v = np.random.default_rng(3).standard_normal(vshape).astype(np.float32)
    if not accumulate:   # duplicates without accumulate are order dependent: keep unique positions only
        flat = np.ravel_multi_index([i % shape[d] for d, i in enumerate(idx)], shape[:k]) if n else np.array([])
        if len(set(flat.tolist())) != n:
            return
    compare(torch, lambda L, a, val: a.index_put(tuple(L.tensor(i) for i in idx), val, accumulate=accumulate),
            [x, v])


@pytest.mark.parametrize("seed", range(3))
def test_masked_ops_random_broadcast(torch, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 1, 4)).astype(np.float32)
    m = rng.random((2, 4)) > 0.5
    compare(torch, lambda L, a: a.masked_select(L.tensor(m)), [x])
    compare(torch, lambda L, a: a.masked_fill(L.tensor(m), 0.5), [x])
