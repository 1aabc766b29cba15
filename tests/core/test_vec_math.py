"""core/_vec_math.py: SLEEF's exp/log as ATen's Vectorized<T> runs them, checked through torch kernels that apply
them to every element (softmax along the last dim: every exp through Vectorized::exp; log_softmax: the log of each
row's sum), and the vector width assumed against torch's CPU capability."""
import numpy as np
import pytest

import core
from core import _cpu
from core import _vec_math as vm


def test_assumed_isa_is_torchs(torch):
    assert _cpu.capability() == torch.backends.cpu.get_cpu_capability().lower()
    w = {"avx512": 16}.get(_cpu.capability(), 8)
    assert vm.lanes(np.float32) == w and vm.lanes(np.float64) == w // 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorized_exp_is_torchs(torch, dtype):
    torch.set_num_threads(1)
    # rows [x, 0] with x <= 0: torch's softmax is exp(x - 0) * (1 / (exp(x) + exp(0))), every exp Vectorized
    rng = np.random.default_rng(0)
    x = -np.abs(rng.standard_normal(1003) * 20).astype(dtype)           # includes the underflow range
    x[:3] = (0.0, -104.5, -1000.0)
    rows = np.stack([x, np.zeros_like(x)], 1)
    t = torch.softmax(torch.from_numpy(rows), 1).numpy()
    ex = vm.vexp(rows)
    s = ex[:, 0] + ex[:, 1]
    mine = ex * (np.ones_like(s) / s)[:, None]
    assert np.array_equal(mine.view(np.uint8), t.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorized_log_is_torchs(torch, dtype):
    torch.set_num_threads(1)
    rng = np.random.default_rng(1)
    # rows [0, -inf, ..., -inf] plus a value v: log_softmax's log(sum) is log(1 + exp(v)); with x0 = 0 as the max,
    # out[0] = 0 - 0 - log(sum) = -vlog(sum)
    v = -np.abs(rng.standard_normal(999) * 3).astype(dtype)
    rows = np.stack([np.zeros_like(v), v], 1)
    t = torch.log_softmax(torch.from_numpy(rows), 1).numpy()[:, 0]
    ex = vm.vexp(rows)
    mine = -vm.vlog(ex[:, 0] + ex[:, 1])
    assert np.array_equal(mine, t)


def test_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, 89.0, -200.0], np.float32)
    e = vm.expf(x)
    assert np.isnan(e[0]) and e[1] == np.inf and e[2] == 0 and e[3] == 1 and e[4] == np.inf and e[5] == 0
    lg = vm.logf(np.array([0.0, -1.0, np.inf, 1.0, 1e-40], np.float32))
    assert lg[0] == -np.inf and np.isnan(lg[1]) and lg[2] == np.inf and lg[3] == 0
    assert abs(float(lg[4]) - np.log(1e-40)) < 1e-4        # denormal input scaled by 2**64 first
    d = vm.logd(np.array([0.0, 2.0 ** -1070, 1.0]))
    assert d[0] == -np.inf and abs(d[1] - np.log(2.0 ** -1070)) < 1e-12 and d[2] == 0
    assert vm.expd(np.array([710.0, -1001.0, np.nan]))[:2].tolist() == [np.inf, 0.0]


def test_horizontal_sum_order():
    a = np.arange(1, 9, dtype=np.float32)[None]
    # ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)) on float, sequential on double
    assert vm.hsum(a)[0] == 36
    big = np.array([[1e8, 1, -1e8, 1, 1, 1, 1, 1]], np.float32)
    assert vm.hsum(big)[0] == ((big[0, 0] + big[0, 4]) + (big[0, 2] + big[0, 6])) + ((big[0, 1] + big[0, 5]) + (big[0, 3] + big[0, 7]))
    assert vm.hseq(big.astype(np.float64), 8)[0] == 6.0


# Inputs whose float64 polynomial sums land exactly on a float32 midpoint in expf's / logf's fast paths (found by
# search over all floats near them): those lanes are recomputed by the exact paths
_EXPF_MIDPOINT_INPUTS = (-0.09765625, -0.20009763538837433, -0.297332763671875, -0.3216552734375,
                         -0.349770188331604, -0.37453028559684753)
_LOGF_MIDPOINT_SUMS_OF = (-3.801393985748291, -1.2308878898620605, -1.242426872253418, -1.090984582901001,
                          -0.1264733076095581)


def test_fast_paths_meet_float32_midpoints_and_stay_torchs(torch):
    torch.set_num_threads(1)
    rng = np.random.default_rng(2)
    x = np.concatenate([np.array(_EXPF_MIDPOINT_INPUTS, np.float32), -np.abs(rng.standard_normal(37) * 9)]).astype(np.float32)
    sq = lambda a: np.stack([np.ascontiguousarray(a), np.zeros_like(a)], 1)
    mids = vm._midpoints
    flagged = []
    vm._midpoints = lambda p: flagged.append(mids(p)) or flagged[-1]
    try:
        rows = sq(x)
        ex = vm.vexp(rows)
        v = np.array(_LOGF_MIDPOINT_SUMS_OF, np.float32)
        lrows = sq(v)
        lg = -vm.vlog(vm.vexp(lrows).sum(1, dtype=np.float32))
    finally:
        vm._midpoints = mids
    if _cpu.capability() == "default":
        pytest.skip("the DEFAULT build maps std::exp / std::log")
    # expf's last FMA met midpoint lanes; logf's normal path rounds its FMAs once (no midpoint check), and the
    # sums that were float64 midpoints in its former emulation still give torch's bits below
    assert flagged[0] is not None
    s = ex[:, 0] + ex[:, 1]
    mine = ex * (np.ones_like(s) / s)[:, None]
    assert np.array_equal(mine.view(np.uint32), torch.softmax(torch.from_numpy(rows), 1).numpy().view(np.uint32))
    t = torch.log_softmax(torch.from_numpy(lrows), 1).numpy()[:, 1]     # rows [v, 0]: 0 - 0 - log(sum)
    assert np.array_equal(lg.view(np.uint32), t.view(np.uint32))


def test_fast_paths_equal_the_exact_ones():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-104, 100, 3000), -np.abs(rng.standard_normal(3000) * 30),
                        rng.uniform(-104, -86, 3000), [-104, 100, -87.3365, 88.72]]).astype(np.float32)
    with np.errstate(all="ignore"):
        assert np.array_equal(vm._expf_fast(x).view(np.uint32), vm._expf_exact(x).view(np.uint32))
    y = np.exp(rng.uniform(-87, 88, 5000)).astype(np.float32)
    y = np.concatenate([y, rng.uniform(1, 2, 5000).astype(np.float32), [np.finfo(np.float32).tiny]])
    assert np.array_equal(vm._logf_normal(y).view(np.uint32), vm._logf_exact(y).view(np.uint32))


def test_c_library_exp_is_glibcs_on_every_lane():
    # cexp rounds the float64 exp except near float32 midpoints and outside [-87, 88]: those lanes call expf
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-90, 90, 20000), -np.abs(rng.standard_normal(20000)), [np.nan, np.inf, -np.inf,
                        -87.5, 88.5, -104, 0.0]]).astype(np.float32)
    d = np.exp(x.astype(np.float64))
    near = np.abs((d.view(np.uint64) & np.uint64((1 << 29) - 1)).astype(np.int64) - (1 << 28)) < (1 << 24)
    assert near.sum() > 100                                        # the midpoint branch runs
    one_by_one = vm._scalar(x, None, vm._exp64, "expf")           # glibc's expf through ctypes, lane by lane
    assert np.array_equal(vm.cexp(x).view(np.uint32), one_by_one.view(np.uint32))


def test_softmax_scalar_tail_is_torchs(torch):
    torch.set_num_threads(1)
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((9, 5, 23)) * 4).astype(np.float32)     # inner 23: 7 positions of the std::exp tail
    for dim in (0, 1):
        for fn in ("softmax", "log_softmax"):
            mine = getattr(core, fn)(core.tensor(x), dim).numpy()
            theirs = getattr(torch, fn)(torch.from_numpy(x), dim).numpy()
            assert np.array_equal(mine.view(np.uint32), theirs.view(np.uint32)), (fn, dim)


def test_out_of_range_lanes_take_the_fast_path_too(torch):
    torch.set_num_threads(1)
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((16, 21)) * 3).astype(np.float32)
    x[::3, 4] = -np.inf                                             # masked logits
    x[1::5, 7] = -300.0                                              # gaps beyond exp's range
    x[2, :] = np.nan
    mine = core.softmax(core.tensor(x), 1).numpy()
    assert np.array_equal(mine.view(np.uint32), torch.softmax(torch.from_numpy(x), 1).numpy().view(np.uint32))
    y = np.concatenate([x.ravel(), [np.inf, 100.5, -104.5, 88.5, np.nan]]).astype(np.float32)
    assert np.array_equal(vm.expf(y).view(np.uint32), vm._expf_exact(y).view(np.uint32))
