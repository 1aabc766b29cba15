"""Random factories' `out=` and version counters, as torch's: out is resized and filled from the same stream
(and is the result), dtype= must match out's, and a fresh factory result is at version 0."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error

OUT_CASES = {
    "randn same size": (lambda L: L.zeros(3), lambda L, o: L.randn(3, out=o)),
    "randn resized": (lambda L: L.zeros(2, dtype=L.float64), lambda L, o: L.randn(1, 3, out=o)),
    "rand resized": (lambda L: L.zeros(2), lambda L, o: L.rand(2, 2, out=o)),
    "randint int32": (lambda L: L.zeros(2, dtype=L.int32), lambda L, o: L.randint(0, 10, (3,), out=o)),
    "randint float": (lambda L: L.zeros(2), lambda L, o: L.randint(3, (2,), out=o)),
    "randperm": (lambda L: L.zeros(2, dtype=L.int64), lambda L, o: L.randperm(5, out=o)),
    "normal": (lambda L: L.zeros(2), lambda L, o: L.normal(0.0, 1.0, (3,), out=o)),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_factory_out_is_filled_in_place_from_the_same_stream(torch, name):
    make, call = OUT_CASES[name]
    res = []
    for L in (core, torch):
        L.manual_seed(0)
        o = make(L)
        r = call(L, o)
        res.append((r, o, r is o, o._version))
    assert_same(res[0][0], res[1][0])
    assert_same(res[0][1], res[1][1])
    assert res[0][2:] == res[1][2:]


@pytest.mark.parametrize("call", [lambda L, o: L.randn(3, out=o, dtype=L.float64),
                                  lambda L, o: L.randn(3, out=o.long())])
def test_factory_out_dtype_errors(torch, call):
    same_error(lambda: call(core, core.zeros(2)), lambda: call(torch, torch.zeros(2)))


FRESH = [lambda L: L.randn(3), lambda L: L.rand(2), lambda L: L.randint(0, 5, (3,)),
         lambda L: L.randn_like(L.ones(2)), lambda L: L.rand_like(L.ones(2)), lambda L: L.randint_like(L.ones(2), 3),
         lambda L: L.normal(0.0, 1.0, (2,)), lambda L: L.randperm(3), lambda L: L.randn(2, requires_grad=True)]


@pytest.mark.parametrize("make", FRESH)
def test_a_fresh_random_tensor_is_at_version_0(torch, make):
    assert make(core)._version == make(torch)._version


@pytest.mark.parametrize("view", [lambda r: r, lambda r: r.t(), lambda r: r[:, :1].expand(3, 4), lambda r: r[::2]])
def test_poisson_of_any_layout_draws_in_the_outputs_order(torch, view):
    res = []
    for L in (core, torch):
        L.manual_seed(3)
        res.append(L.poisson(view(L.arange(1.0, 13.0).reshape(3, 4) * 1.5)))
    assert_same(res[0], res[1])


def test_broadcast_tensors_returns_a_tensor_of_the_shape_itself(torch):
    for L in (core, torch):
        a, b = L.ones(2, 3, requires_grad=True), L.ones(3)
        r = L.broadcast_tensors(a, b)
        assert r[0] is a and r[1] is not b and r[1].shape == a.shape


def test_num_threads_default_to_the_usable_cores_and_are_checked(torch):
    import os
    assert core.get_num_threads() == len(os.sched_getaffinity(0))   # torch's default (the fixture set torch's to 1)
    same_error(lambda: core.set_num_threads(0), lambda: torch.set_num_threads(0))
    core.set_num_threads(1)
    try:
        assert core.get_num_threads() == 1
    finally:
        core.set_num_threads(len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("lo,hi", [(-5e307, 5e307), (-8e307, 8e307), (1e307, 1.7e308), (-1.0, 1e308)])
def test_uniform_over_a_range_near_the_float64_max_is_torchs(torch, lo, hi):
    res = []
    for L in (core, torch):
        L.manual_seed(0)
        res.append(L.empty(50, dtype=L.float64).uniform_(lo, hi).numpy())
    assert (res[0] == res[1]).all()
