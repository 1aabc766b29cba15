"""binary_cross_entropy_with_logits bit for bit with torch (values, input and target gradients)."""
from __future__ import annotations

import pytest

from tests.core.ops.nn.test_loss import _loss_bits


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("kw", [{"reduction": "none"}, {"reduction": "mean"}, {"reduction": "sum"},
                                {"pos_weight": True}, {"weight": True, "reduction": "sum"}])
def test_bce_with_logits_is_torchs_bit_for_bit(torch, dtype, transposed, kw):
    """log_sigmoid's and sigmoid's kernels (SLEEF exp / log1p), Loss.cpp's order and the backward formulas."""
    def call(L, x, y, z):
        extra = {"pos_weight": z[0].detach().abs()} if kw.get("pos_weight") else {}
        extra.update({"weight": z.detach()} if kw.get("weight") else {})
        return L.nn.functional.binary_cross_entropy_with_logits(x * 4, y, reduction=kw.get("reduction", "mean"),
                                                                **extra)
    _loss_bits(torch, call, dtype, transposed=transposed)
