"""core's random numbers against torch's CPU generator, bit for bit: same manual_seed, same calls,
identical raw bytes (values, dtype, shape) and identical generator state afterwards."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.nn as cnn
from core.ops.random import bernoulli_mask
from tests.conftest import same_error

SEEDS = [0, 1, 42, 2 ** 32 + 5, 2 ** 63 + 12345, 2 ** 64 - 1]
FLOATS = ["float32", "float64", "float16"]


def _raw(x):
    if isinstance(x, core.Tensor):
        return np.ascontiguousarray(x._data)
    return np.ascontiguousarray(x.detach().numpy())


def assert_bits(c, t):
    a, b = _raw(c), _raw(t)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    assert a.dtype == b.dtype, f"dtype {a.dtype} != {b.dtype}"
    if a.tobytes() != b.tobytes():
        bad = np.flatnonzero(a.reshape(-1) != b.reshape(-1))
        raise AssertionError(f"{bad.size} of {a.size} values differ, first at {bad[:5]}: "
                             f"{a.reshape(-1)[bad[:3]]} vs {b.reshape(-1)[bad[:3]]}")


def assert_same_state(torch):
    assert_bits(core.get_rng_state(), torch.get_rng_state())


def run_both(torch, fn, seed=0):
    """fn(module) after manual_seed(seed) in both; results and final states must be identical."""
    torch.manual_seed(seed)
    core.manual_seed(seed)
    t, c = fn(torch), fn(core)
    if isinstance(t, (tuple, list)):
        for ci, ti in zip(c, t):
            assert_bits(ci, ti)
    else:
        assert_bits(c, t)
    assert_same_state(torch)


# -- rand / randn ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_rand_randn_every_size_up_to_100(torch, fn, dtype, seed):
    def calls(m):
        return [getattr(m, fn)(n, dtype=getattr(m, dtype)) for n in range(101)]
    run_both(torch, calls, seed)


@pytest.mark.parametrize("n", [1000, 4099, 10 ** 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_rand_randn_large(torch, fn, dtype, n):
    run_both(torch, lambda m: getattr(m, fn)(n, dtype=getattr(m, dtype)), seed=7)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_mixed_sequence_of_calls(torch, seed):
    def calls(m):
        return [m.rand(3), m.randn(5, dtype=m.float64), m.randint(0, 10, (4,)), m.randn(3), m.randn(17),
                m.randperm(7), m.rand(2, 3, dtype=m.float64), m.randn(1, dtype=m.float64), m.randint(5, (2, 2)),
                m.empty(6).exponential_(), m.empty(33).normal_(1.0, 0.5), m.randn(2, dtype=m.float64)]
    run_both(torch, calls, seed)


@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (4, 0, 2), (3, 5, 7)])
def test_shapes_and_size_keyword(torch, shape):
    run_both(torch, lambda m: [m.rand(shape), m.randn(*shape or (1,)), m.rand(size=shape), m.randn(size=shape)])


def test_requires_grad_factories(torch):
    c, t = core.randn(size=(), requires_grad=True), torch.randn(size=(), requires_grad=True)
    assert c.requires_grad and t.requires_grad and tuple(c.shape) == tuple(t.shape) == ()
    assert core.rand(2, requires_grad=True).is_leaf


# -- integers ----------------------------------------------------------------------------------------

INT_CASES = [("int64", 0, 10), ("int64", -5, 5), ("int64", 0, 2 ** 28 - 1), ("int64", 0, 2 ** 28),
             ("int64", -2 ** 40, 2 ** 40), ("int32", -100, 100), ("int32", 0, 2 ** 30), ("int16", -300, 300),
             ("int8", -128, 127), ("uint8", 0, 256), ("bool", 0, 2), ("float32", 0, 1000), ("float64", -3, 2 ** 33),
             ("float16", 0, 100)]


@pytest.mark.parametrize("dtype,low,high", INT_CASES, ids=str)
def test_randint_dtypes_and_ranges(torch, dtype, low, high):
    run_both(torch, lambda m: [m.randint(low, high, (n,), dtype=getattr(m, dtype)) for n in (0, 1, 5, 100)], seed=3)


def test_randint_forms(torch):
    run_both(torch, lambda m: [m.randint(10, (3,)), m.randint(2, 9, size=(2, 2)), m.randint(high=5, size=(4,)),
                               m.randint(low=-3, high=3, size=(5,))])


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64", "float16"])
def test_random_inplace_variants(torch, dtype):
    def calls(m):
        dt = getattr(m, dtype)
        out = [m.empty(40, dtype=dt).random_(), m.empty(40, dtype=dt).random_(2)]
        if dtype != "bool":
            out += [m.empty(40, dtype=dt).random_(3, None), m.empty(40, dtype=dt).random_(1, 7)]
        return out
    run_both(torch, calls, seed=11)


def test_random_full_int64_range(torch):
    run_both(torch, lambda m: m.empty(20, dtype=m.int64).random_(-2 ** 63, None))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 1000, 10 ** 5])
def test_randperm(torch, n):
    run_both(torch, lambda m: [m.randperm(n), m.randperm(n, dtype=m.int32), m.randperm(n, dtype=m.float32)], seed=5)


# -- normal and friends --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 40, 1000])
def test_normal_inplace_with_mean_std(torch, n, dtype):
    run_both(torch, lambda m: [m.empty(n, dtype=getattr(m, dtype)).normal_(0.5, 2.5),
                               m.empty(n, dtype=getattr(m, dtype)).uniform_(-0.3, 0.7)])


def test_normal_overloads(torch):
    def calls(m):
        mean, std = m.arange(20.), m.arange(20.) / 3
        return [m.normal(mean, 2.0), m.normal(1.0, std), m.normal(mean, std), m.normal(1.0, 3.0, (20,)),
                m.normal(m.arange(5.), m.arange(5.) / 3), m.normal(2.0, 0.5, size=(3,), dtype=m.float64),
                m.normal(mean.double(), 1.5)]
    run_both(torch, calls, seed=2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_other_inplace_distributions(torch, dtype):
    def calls(m):
        dt = getattr(m, dtype)
        return [m.empty(50, dtype=dt).exponential_(1.5), m.empty(50, dtype=dt).geometric_(0.3),
                m.empty(50, dtype=dt).log_normal_(0.5, 0.7), m.empty(50, dtype=dt).cauchy_(0.5, 2.0),
                m.empty(50, dtype=dt).bernoulli_(0.3), m.empty(50, dtype=dt).uniform_()]
    run_both(torch, calls, seed=9)


def test_bernoulli(torch):
    def calls(m):
        return [m.bernoulli(m.rand(100)), m.bernoulli(m.rand(30, dtype=m.float64)), m.bernoulli(m.rand(10), 0.2),
                m.rand(4, 4).bernoulli(), m.empty(12, dtype=m.int64).bernoulli_(m.rand(12)),
                m.empty(3, 4).bernoulli_(m.rand(4, dtype=m.float64))]
    run_both(torch, calls, seed=4)


@pytest.mark.parametrize("dtype", FLOATS)
def test_multinomial(torch, dtype):
    def calls(m):
        p = m.tensor([0.1, 0.2, 0.3, 0.4, 0.0, 1.5], dtype=getattr(m, dtype))
        return [m.multinomial(p, 1), m.multinomial(p, 3), m.multinomial(p, 50, replacement=True),
                m.multinomial(m.rand(4, 7, dtype=getattr(m, dtype)), 20, True),
                m.multinomial(m.rand(4, 7, dtype=getattr(m, dtype)), 5), p.multinomial(2)]
    run_both(torch, calls, seed=6)


def test_poisson(torch):
    run_both(torch, lambda m: [m.poisson(m.rand(50) * 5), m.poisson(m.rand(50) * 100 + 10),
                               m.poisson(m.rand(20, dtype=m.float64) * 40), m.poisson(m.zeros(3))], seed=8)


# -- memory order: *_like and non-contiguous in-place ------------------------------------------------

def test_like_factories_follow_memory_order(torch):
    def calls(m):
        base = m.zeros(8, 5).t()
        return [m.rand_like(base), m.randn_like(base), m.randint_like(base, 10), m.randint_like(base, 3, 9),
                m.randn_like(m.zeros(40)), m.rand_like(m.zeros(3, dtype=m.float64)),
                m.randn_like(m.zeros(4), dtype=m.float64)]
    run_both(torch, calls, seed=10)


def test_inplace_on_views(torch):
    def calls(m):
        a = m.zeros(8, 6)
        a.t().normal_()
        b = m.zeros(10, 4)
        b[:, 1].uniform_(-1, 1)
        c = m.zeros(40)
        c[::2].normal_()
        return [a, b, c]
    run_both(torch, calls, seed=12)


# -- generator state ------------------------------------------------------------------------------

def test_state_bytes_equal_after_seed_and_draws(torch):
    for seed in SEEDS:
        torch.manual_seed(seed)
        core.manual_seed(seed)
        assert_same_state(torch)
        for t_call, c_call in [(lambda: torch.rand(1), lambda: core.rand(1)),
                               (lambda: torch.randn(3, dtype=torch.float64), lambda: core.randn(3, dtype=core.float64)),
                               (lambda: torch.rand(700), lambda: core.rand(700))]:
            t_call()
            c_call()
            assert_same_state(torch)


def test_set_rng_state_round_trip_and_cross_load(torch):
    core.manual_seed(3)
    core.randn(3, dtype=core.float64)          # leaves a cached normal in the state
    st = core.get_rng_state()
    a = core.randn(5, dtype=core.float64)._data.copy()
    core.set_rng_state(st)
    np.testing.assert_array_equal(a, core.randn(5, dtype=core.float64)._data)
    torch.manual_seed(99)
    torch.randn(5, dtype=torch.float64)
    torch.rand(7)
    core.set_rng_state(core.tensor(torch.get_rng_state().numpy()))
    assert_same_state(torch)
    assert_bits(core.randn(9, dtype=core.float64), torch.randn(9, dtype=torch.float64))
    assert core.initial_seed() == torch.initial_seed() == 99


def test_fork_rng_restores_state(torch):
    def calls(m):
        with m.random.fork_rng():
            m.rand(4)
        return m.rand(3)
    run_both(torch, calls, seed=1)


def test_generator_objects(torch):
    gc, gt = core.Generator(), torch.Generator()
    assert gc.initial_seed() == gt.initial_seed()
    assert str(gc.device) == str(gt.device)
    assert gc.manual_seed(17) is gc
    gt.manual_seed(17)
    core.manual_seed(0)
    torch.manual_seed(0)
    assert_bits(core.rand(5, generator=gc), torch.rand(5, generator=gt))
    assert_bits(core.randn(20, generator=gc), torch.randn(20, generator=gt))
    assert_bits(core.randint(0, 9, (4,), generator=gc), torch.randint(0, 9, (4,), generator=gt))
    assert_bits(core.randperm(6, generator=gc), torch.randperm(6, generator=gt))
    assert_bits(core.empty(5).normal_(generator=gc), torch.empty(5).normal_(generator=gt))
    assert_bits(gc.get_state(), gt.get_state())
    assert_same_state(torch)                  # the default generator was not touched
    state = gc.get_state()
    x = core.rand(3, generator=gc)._data.copy()
    gc.set_state(state)
    np.testing.assert_array_equal(x, core.rand(3, generator=gc)._data)


@pytest.mark.parametrize("seed", [-1, -2 ** 63, 2 ** 64 - 1, 0])
def test_manual_seed_range(torch, seed):
    run_both(torch, lambda m: m.rand(3), seed)
    assert core.initial_seed() == torch.initial_seed()


def test_seed_returns_the_new_seed():
    s = core.seed()
    assert core.initial_seed() == s


# -- dropout's mask ---------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_bernoulli_mask_is_torch_dropout_mask(torch, p):
    torch.manual_seed(5)
    core.manual_seed(5)
    t = torch.nn.functional.dropout(torch.ones(6, 7), p) != 0
    c = bernoulli_mask((6, 7), 1 - p, core.float32)._data != 0
    np.testing.assert_array_equal(c, t.numpy())
    assert_same_state(torch)


# -- errors -------------------------------------------------------------------------------------------

ERRORS = [
    lambda m: m.randint(5, 1, (2,)),
    lambda m: m.rand(-1),
    lambda m: m.randn(2, -3),
    lambda m: m.rand(2, dtype=m.int64),
    lambda m: m.randn(2, dtype=m.bool),
    lambda m: m.randperm(-1),
    lambda m: m.randint(0, 300, (2,), dtype=m.uint8),
    lambda m: m.ones(2).uniform_(1, 0),
    lambda m: m.ones(2, dtype=m.long).uniform_(),
    lambda m: m.ones(2).normal_(0, -1),
    lambda m: m.ones(2, dtype=m.long).normal_(),
    lambda m: m.ones(2).exponential_(-1),
    lambda m: m.ones(2, dtype=m.int64).exponential_(),
    lambda m: m.ones(2).bernoulli_(1.5),
    lambda m: m.ones(2).geometric_(0),
    lambda m: m.ones(2).random_(3, 2),
    lambda m: m.normal(m.zeros(2), -1.0),
    lambda m: m.normal(0.0, -m.ones(2)),
    lambda m: m.normal(0, -1, (2,)),
    lambda m: m.multinomial(m.tensor([0.5, 0.5]), 3),
    lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    lambda m: m.multinomial(m.tensor([-1.0, 2.0]), 2, True),
    lambda m: m.set_rng_state(m.zeros(10, dtype=m.uint8)),
    lambda m: m.set_rng_state(m.zeros(5056)),
    lambda m: m.Generator().set_state(m.zeros(5056, dtype=m.uint8)),
    lambda m: m.manual_seed(2 ** 64),
    lambda m: m.poisson(-m.ones(2)),
    lambda m: m.randn(),
    lambda m: m.rand(2, size=(2,)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(torch, i):
    ec, et = same_error(lambda: ERRORS[i](core), lambda: ERRORS[i](torch))
    assert str(ec) == str(et)


def test_inplace_random_on_leaf_requiring_grad_raises_like_torch(torch):
    ec, et = same_error(lambda: core.zeros(3, requires_grad=True).uniform_(),
                        lambda: torch.zeros(3, requires_grad=True).uniform_())
    assert str(ec) == str(et)
    with core.no_grad():
        w = core.zeros(3, requires_grad=True)
        assert w.normal_() is w


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_functional_dropout_values_equal_torch(torch, p):
    """F.dropout draws its mask as torch's bernoulli_(1 - p) does (through the default generator)."""
    def f(m):
        nn = m.nn if m is not core else cnn
        x = m.arange(60.).reshape(6, 10)
        return [nn.functional.dropout(x, p), nn.functional.dropout(x, p, training=False), m.rand(3)]
    run_both(torch, f, seed=21)


@pytest.mark.parametrize("p", [0.1, 0.5, 1 / 3, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_masks_bit_for_bit(torch, p, dtype):
    """dropout / dropout2d / nn.Dropout: `noise = empty_like(x).bernoulli_(1 - p).div_(1 - p)`, with
    feature noise of shape (N, C, 1, 1); empty_like keeps a transposed input's strides."""
    def f(m):
        nn = m.nn if m is not core else cnn
        dt = getattr(m, dtype)
        out = []
        for shape in [(5,), (3, 7), (17,), (40,), (2, 3, 4, 5)]:
            out.append(nn.functional.dropout(m.randn(*shape, dtype=dt), p))
        x = m.randn(2, 3, 4, 5, dtype=dt)
        out += [nn.functional.dropout(x.transpose(1, 3), p), nn.functional.dropout2d(x, p),
                nn.Dropout(p)(m.ones(4, 8, dtype=dt)), nn.functional.dropout(x.clone(), p, inplace=True)]
        return out + [m.rand(3)]
    run_both(torch, f, seed=3)


def test_from_keyword_of_inplace_samplers(torch):
    run_both(torch, lambda m: [m.empty(3).uniform_(**{"from": 2, "to": 3}),
                               m.empty(3, dtype=m.int64).random_(**{"from": 2, "to": 9})])
    ec, et = same_error(lambda: core.empty(2, dtype=core.int16).random_(**{"from": 5}),
                        lambda: torch.empty(2, dtype=torch.int16).random_(**{"from": 5}))
    assert str(ec) == str(et)
