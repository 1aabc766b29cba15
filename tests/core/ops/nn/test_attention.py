"""F.scaled_dot_product_attention (core/ops/nn/attention.py) side by side with torch: ATen's input
validation and grouped-query attention."""
from __future__ import annotations

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

