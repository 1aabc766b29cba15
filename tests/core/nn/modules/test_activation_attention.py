"""nn.MultiheadAttention (core/nn/modules/activation_attention.py) side by side with torch: which path runs
for a query row whose every key is masked (0 from SDPA, NaN from softmax and the eval fast path), is_causal on
the fast and slow paths, F._mha_shape_check and the key / value / mask dtype checks."""
from __future__ import annotations

import itertools

import pytest

import core
from conftest import assert_same, same_error


MHA_CASES = list(itertools.product([True, False], [True, False], [True, False], [True, False], [True, False],
                                   [None, "bool", "float"]))


def _mha(L, training, batch_first, need_weights, grad, self_attn, mask):
    """One MultiheadAttention call with batch 1 fully padded: (output, weights, input grad or None)."""
    L.manual_seed(0)
    m = L.nn.MultiheadAttention(8, 2, batch_first=batch_first).train(training)
    for p in m.parameters():
        p.requires_grad_(grad)
    x = L.randn(3, 3, 8, requires_grad=grad)
    kpm = L.tensor([[False] * 3, [True] * 3, [False, False, True]])
    attn_mask = None
    if mask == "bool":
        attn_mask = L.tensor([[False, True, False], [False] * 3, [True, False, False]])
    elif mask == "float":
        attn_mask, kpm = L.zeros(3, 3), L.zeros(3, 3).masked_fill(kpm, float("-inf"))
    key = x if self_attn else x * 1.0
    with L.set_grad_enabled(grad):
        out, w = m(x, key, key, key_padding_mask=kpm, need_weights=need_weights, attn_mask=attn_mask)
    if grad:
        out.nan_to_num(0.0).sum().backward()
    return out, w, x.grad


def _mha_call(L, case):
    L.manual_seed(0)
    m = L.nn.MultiheadAttention(8, 2)
    m2 = L.nn.MultiheadAttention(8, 2, kdim=4, vdim=6)
    x, x2 = L.randn(3, 2, 8), L.randn(3, 8)
    b = L.bool
    return {
        "q3_k2": lambda: m(x, x2, x2), "q2_k3": lambda: m(x2, x, x),
        "q4": lambda: m(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0)),
        "unbatched_kpm_2d": lambda: m(x2, x2, x2, key_padding_mask=L.zeros(1, 3, dtype=b)),
        "batched_kpm_1d": lambda: m(x, x, x, key_padding_mask=L.zeros(3, dtype=b)),
        "unbatched_mask_3d": lambda: m(x2, x2, x2, attn_mask=L.zeros(2, 3, 3, dtype=b)),
        "unbatched_mask_3d_bad": lambda: m(x2, x2, x2, attn_mask=L.zeros(3, 3, 3, dtype=b)),
        "unbatched_mask_1d": lambda: m(x2, x2, x2, attn_mask=L.zeros(3, dtype=b)),
        "batched_mask_4d": lambda: m(x, x, x, attn_mask=L.zeros(1, 4, 3, 3, dtype=b)),
        "kdim_value_len": lambda: m2(x, L.randn(5, 2, 4), L.randn(4, 2, 6)),
        "key_value_shape": lambda: m(x, L.randn(5, 2, 8), L.randn(4, 2, 8)),
        "float_kpm_f64": lambda: m(x, x, x, key_padding_mask=L.zeros(2, 3, dtype=L.float64)),
        "float_kpm_f64_sdpa": lambda: m(x, x, x, key_padding_mask=L.zeros(2, 3, dtype=L.float64), need_weights=False),
        "float_mask_f32_query_f64_sdpa": lambda: m.double()(x.double(), x.double(), x.double(), need_weights=False,
                                                             attn_mask=L.zeros(3, 3)),
    }[case]()


@pytest.mark.parametrize("training,batch_first,need_weights,grad,self_attn,mask", MHA_CASES)
def test_mha_fully_masked_row_path(torch, training, batch_first, need_weights, grad, self_attn, mask):
    """torch: need_weights=False runs SDPA (0 in a dead row), need_weights=True the softmax (NaN), and the
    eval fast path (batch_first self-attention, no grad, bool masks) NaN whatever need_weights."""
    c, t = _mha(core, training, batch_first, need_weights, grad, self_attn, mask), \
        _mha(torch, training, batch_first, need_weights, grad, self_attn, mask)
    for a, b in zip(c, t):
        assert (a is None) == (b is None)
        if b is not None:
            assert_same(a, b, atol=1e-5)


def test_mha_fast_path_ignores_is_causal_without_mask(torch):
    """torch's fast path never reads is_causal (the slow path raises without attn_mask)."""
    def run(L):
        L.manual_seed(0)
        m = L.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = L.randn(2, 3, 8)
        with L.no_grad():
            return m(x, x, x, is_causal=True, need_weights=False)[0]
    assert_same(run(core), run(torch))


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_is_causal_replaces_mask_in_sdpa_path(torch, need_weights):
    """Slow path with is_causal and no key_padding_mask: need_weights=False drops attn_mask for SDPA's own causal
    mask (so a wrong mask is ignored); need_weights=True adds the mask given."""
    def run(L):
        L.manual_seed(0)
        m = L.nn.MultiheadAttention(8, 2)
        x = L.randn(4, 2, 8)
        out, _ = m(x, x, x, attn_mask=L.zeros(4, 4), is_causal=True, need_weights=need_weights)
        return out
    assert_same(run(core), run(torch), atol=1e-5)


@pytest.mark.parametrize("case", ["q3_k2", "q2_k3", "q4", "unbatched_kpm_2d", "batched_kpm_1d", "unbatched_mask_3d",
                                  "unbatched_mask_3d_bad", "unbatched_mask_1d", "batched_mask_4d", "kdim_value_len",
                                  "key_value_shape", "float_kpm_f64", "float_kpm_f64_sdpa",
                                  "float_mask_f32_query_f64_sdpa"])
def test_mha_checks_like_torch(torch, case):
    ec, et = same_error(lambda: _mha_call(core, case), lambda: _mha_call(torch, case))
    if et is not None:
        assert str(ec) == str(et)
        return
    for a, b in zip(_mha_call(core, case), _mha_call(torch, case), strict=True):
        assert (a is None) == (b is None)
        if b is not None:
            assert_same(a, b, atol=1e-5)

