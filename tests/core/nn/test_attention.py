"""scaled_dot_product_attention, MultiheadAttention and TransformerEncoderLayer vs torch: repr, parameter
layout, outputs, attention weights and gradients with torch's weights loaded, masks, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.nn as cnn
import core.nn.functional as CF

RNG = np.random.default_rng(5)
MASK = np.triu(np.ones((5, 5), bool), 1)
KPM = np.array([[False] * 5, [False, False, False, True, True], [False] * 5])


def _pair(torch, src):
    tm, cm = eval("torch.nn." + src, {"torch": torch}).double(), eval("cnn." + src, {"cnn": cnn}).double()
    assert repr(cm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in cm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return cm, tm


CASES = [
    ("MultiheadAttention(8, 2)", "self_masks", (5, 3, 8)),
    ("MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True, add_zero_attn=True)", "qkv_per_head", (3, 5, 8)),
    ("MultiheadAttention(8, 4, kdim=6, vdim=5, bias=False)", "kdim", (5, 3, 8)),
    ("MultiheadAttention(8, 2)", "float_mask_unbatched", (5, 8)),
    ("TransformerEncoderLayer(8, 2, 16, dropout=0.0)", "enc", (5, 3, 8)),
    ("TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True, activation='gelu')", "enc",
     (3, 5, 8)),
]


def _call(L, m, kind, x):
    if kind == "self_masks":
        return m(x, x, x, attn_mask=L.tensor(MASK), key_padding_mask=L.tensor(KPM))
    if kind == "qkv_per_head":
        other = L.tensor(RNG_FIXED[0])
        return m(x, other, other, average_attn_weights=False)
    if kind == "kdim":
        return m(x, L.tensor(RNG_FIXED[1]), L.tensor(RNG_FIXED[2]))
    if kind == "float_mask_unbatched":
        return m(x, x, x, attn_mask=L.tensor(RNG_FIXED[3]))
    return (m(x, src_mask=L.tensor(MASK), src_key_padding_mask=L.tensor(KPM)),)


RNG_FIXED = [RNG.standard_normal((3, 4, 8)), RNG.standard_normal((4, 3, 6)), RNG.standard_normal((4, 3, 5)),
             RNG.standard_normal((5, 5))]


def test_transformer_encoder(torch):
    with pytest.warns(UserWarning) as wt:
        te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                         norm=torch.nn.LayerNorm(8)).double()
    with pytest.warns(UserWarning) as wc:
        ce = cnn.TransformerEncoder(cnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                    norm=cnn.LayerNorm(8)).double()
    assert [str(w.message) for w in wc] == [str(w.message) for w in wt]
    assert repr(ce) == repr(te)
    assert [n for n, _ in ce.named_parameters()] == [n for n, _ in te.named_parameters()]
    ce.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in te.state_dict().items()})
    x = RNG.standard_normal((5, 3, 8))
    xc, xt = core.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    oc = ce(xc, mask=core.tensor(MASK), src_key_padding_mask=core.tensor(KPM))
    ot = te(xt, mask=torch.tensor(MASK), src_key_padding_mask=torch.tensor(KPM))
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-9, atol=1e-12)
    oc.pow(2).sum().backward()
    ot.pow(2).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (n, a), (_, b) in zip(ce.named_parameters(), te.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-11, err_msg=n)


@pytest.mark.parametrize("src,kind,shape", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_matches_torch(torch, src, kind, shape):
    cm, tm = _pair(torch, src)
    x = RNG.standard_normal(shape)
    res = []
    for L, m in ((core, cm), (torch, tm)):
        xs = L.tensor(x, requires_grad=True)
        out = _call(L, m, kind, xs)
        (out[0] * out[0]).sum().backward()
        res.append((out, xs.grad, [p.grad for p in m.parameters()]))
    (oc, gc, pc), (ot, gt, pt) = res
    for a, b in zip(oc, ot):
        assert (a is None) == (b is None)
        if a is not None:
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gc.numpy(), gt.numpy(), rtol=1e-9, atol=1e-12)
    for a, b in zip(pc, pt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


def test_need_weights_false_returns_none(torch):
    cm, tm = _pair(torch, "MultiheadAttention(4, 2)")
    x = RNG.standard_normal((3, 2, 4))
    oc = cm(core.tensor(x), core.tensor(x), core.tensor(x), need_weights=False)
    ot = tm(torch.tensor(x), torch.tensor(x), torch.tensor(x), need_weights=False)
    assert oc[1] is None and ot[1] is None
    np.testing.assert_allclose(oc[0].detach().numpy(), ot[0].detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"}, {"scale": 0.3}])
def test_scaled_dot_product_attention(torch, kw):
    q, k, v = (RNG.standard_normal((2, 3, 4, 5)) for _ in range(3))
    m = {"bool": RNG.random((4, 4)) > 0.3, "float": RNG.standard_normal((4, 4))}.get(kw.get("mask"))
    outs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        ts = [L.tensor(a, requires_grad=True) for a in (q, k, v)]
        o = F.scaled_dot_product_attention(*ts, attn_mask=None if m is None else L.tensor(m),
                                           is_causal=kw.get("is_causal", False), scale=kw.get("scale"))
        (o * o).sum().backward()
        outs.append([o] + [t.grad for t in ts])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.MultiheadAttention(6, 4),
    lambda L: L.nn.MultiheadAttention(0, 2),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            attn_mask=L.zeros(2, 2)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            attn_mask=L.zeros(5, 3, 3)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            attn_mask=L.zeros(3, 3, dtype=L.long)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4), is_causal=True),
    lambda L: L.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
])
def test_errors(torch, case):
    with pytest.raises(Exception) as et:
        case(torch)
    with pytest.raises(type(et.value)) as ec:
        case(core)
    assert str(ec.value) == str(et.value)
