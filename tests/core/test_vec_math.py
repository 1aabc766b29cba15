"""core/_vec_math.py: SLEEF's exp/log as ATen's Vectorized<T> runs them, checked through torch kernels that apply
them to every element (softmax along the last dim: every exp through Vectorized::exp; log_softmax: the log of each
row's sum), and the vector width assumed against torch's CPU capability."""
import numpy as np
import pytest

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
