"""F.scaled_dot_product_attention (core/ops/nn/attention.py) side by side with torch: ATen's input
validation and grouped-query attention."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error


SDPA_CASES = {
    "dtype_mismatch": lambda L: (L.randn(1, 3, 4), L.randn(1, 3, 4, dtype=L.float64), L.randn(1, 3, 4)),
    "one_dim": lambda L: (L.randn(4), L.randn(4), L.randn(4)),
    "mask_long": lambda L: (*[L.randn(1, 3, 4)] * 3, {"attn_mask": L.zeros(3, 3, dtype=L.long)}),
    "mask_f64_query_f32": lambda L: (*[L.randn(1, 3, 4)] * 3, {"attn_mask": L.zeros(3, 3, dtype=L.float64)}),
    "mask_f32_query_f64": lambda L: (*[L.randn(1, 3, 4, dtype=L.float64)] * 3, {"attn_mask": L.randn(3, 3)}),
    "gqa_4d": lambda L: (L.randn(1, 4, 3, 4), L.randn(1, 2, 3, 4), L.randn(1, 2, 3, 4), {"enable_gqa": True}),
    "gqa_value_heads_equal": lambda L: (L.randn(1, 4, 3, 4), L.randn(1, 2, 3, 4), L.randn(1, 4, 3, 4),
                                        {"enable_gqa": True}),
    "gqa_3d": lambda L: (L.randn(4, 3, 4), L.randn(2, 3, 4), L.randn(2, 3, 4), {"enable_gqa": True}),
    "gqa_not_dividing": lambda L: (L.randn(1, 4, 3, 4), L.randn(1, 3, 3, 4), L.randn(1, 3, 3, 4),
                                   {"enable_gqa": True}),
    "gqa_off": lambda L: (L.randn(1, 4, 3, 4), L.randn(1, 2, 3, 4), L.randn(1, 2, 3, 4)),
}


@pytest.mark.parametrize("name", list(SDPA_CASES))
def test_sdpa_validation_and_gqa_like_torch(torch, name):
    def run(L):
        L.manual_seed(0)
        args = SDPA_CASES[name](L)
        kwargs = args[-1] if isinstance(args[-1], dict) else {}
        q, k, v = (t.requires_grad_() if t.is_floating_point() else t for t in args[:3])
        out = L.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
        return (out, *L.autograd.grad(out.sum(), (q, k, v), allow_unused=True))
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if et is not None:
        assert str(ec) == str(et)
        return
    for a, b in zip(run(core), run(torch), strict=True):
        assert_same(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mask", ["bool", "float"])
def test_sdpa_row_that_may_attend_to_nothing_is_zero_as_torch(torch, mask):
    """torch's CPU attention kernels return 0 (and a zero gradient) for a query whose keys are all masked."""
    res = []
    keep = [[True, False, True], [False, False, False]]
    for L in (core, torch):
        q = L.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 1, 2, 4), requires_grad=True)
        k = L.tensor(np.linspace(0, 1, 12, dtype=np.float32).reshape(1, 1, 3, 4))
        m = L.tensor(keep) if mask == "bool" else L.zeros(2, 3).masked_fill(~L.tensor(keep), float("-inf"))
        out = L.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=m)
        out.sum().backward()
        res.append((out.detach().numpy(), q.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

