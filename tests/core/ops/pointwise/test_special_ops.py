"""core/ops/pointwise/special_ops.py side by side with torch: polygamma, zeta and mvlgamma at infinities and
NaN."""
from __future__ import annotations

import pytest

import core
from agreement import agree


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_and_zeta_at_infinities_and_nan(torch, n):
    values = [float("inf"), -float("inf"), float("nan"), -3.0, 2.0]
    want = torch.polygamma(n, torch.tensor(values, dtype=torch.float64))
    got = core.polygamma(n, core.tensor(values, dtype=core.float64))
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)
    q = [-float("inf"), float("inf")]
    torch.testing.assert_close(torch.from_numpy(core.special.zeta(core.tensor([n + 1.0] * 2), core.tensor(q)).numpy()),
                               torch.special.zeta(torch.tensor([n + 1.0] * 2), torch.tensor(q)), equal_nan=True)


@pytest.mark.parametrize("p", [1, 3, 5])
def test_mvlgamma_at_infinities_and_nan(torch, p):
    values = [float("inf"), -float("inf"), float("nan"), 2.5, 4.0]
    want = torch.mvlgamma(torch.tensor(values, dtype=torch.float64), p)
    got = core.mvlgamma(core.tensor(values, dtype=core.float64), p)
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)


@pytest.mark.parametrize("dts", [("float32", "int32"), ("float64", "int32"), ("float32", "int64")])
def test_frexp_out(torch, dts):
    def fn(m):
        o = (m.empty(3, dtype=getattr(m, dts[0])), m.empty(3, dtype=getattr(m, dts[1])))
        r = m.frexp(m.tensor([1.0, 2.0, 3.0]), out=o)
        assert r[0] is o[0] and r[1] is o[1] and type(r).__name__ == "frexp_out"
        return o
    agree(torch, fn)
