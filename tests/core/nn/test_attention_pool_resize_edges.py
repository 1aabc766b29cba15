"""Known gaps closed, core vs torch side by side: which attention path runs for a query row whose every key is
masked (0 from SDPA, NaN from softmax / the fused fast paths); lp_pool / 1-D pooling argument forms and errors;
double-backward errors of the ops whose second derivative torch does not implement."""
from __future__ import annotations

import itertools

import numpy as np
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


@pytest.mark.parametrize("training,batch_first,grad,case", itertools.product(
    [True, False], [True, False], [True, False], ["kpm", "mask", "both", "causal"]))
def test_encoder_layer_fully_masked_row_path(torch, training, batch_first, grad, case):
    """TransformerEncoderLayer: its fused eval fast path gives NaN in a dead row, the slow path 0."""
    def run(L):
        L.manual_seed(0)
        layer = L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first).train(training)
        x = L.randn(3, 3, 8)
        kw = {}
        if case in ("kpm", "both"):
            kw["src_key_padding_mask"] = L.tensor([[False] * 3, [True] * 3, [False, False, True]])
        if case in ("mask", "both"):
            kw["src_mask"] = L.tensor([[False] * 3, [True] * 3, [False, True, False]])
        if case == "causal":
            kw.update(src_mask=L.nn.Transformer.generate_square_subsequent_mask(3), is_causal=True)
        with L.set_grad_enabled(grad):
            return layer(x, **kw)
    assert_same(run(core), run(torch), atol=1e-5)


# -- lp_pool*: kernel sizes unpacked as torch's _pair / _triple; 1-D sizes checked by torch's own messages ----------

LP_CALLS = [(fn, k, st) for fn, x in (("lp_pool1d", 1), ("lp_pool2d", 2), ("lp_pool3d", 3))
            for k in (2, [2], (2, 2), [2, 2, 2], (1, 2, 2), [2, 2, 2, 2]) for st in (None, 1, [1], (1, 1))]


def _lp(L, fn, k, st):
    x = L.arange(1.0, 65.0).view(1, 1, 4, 4, 4)
    x = {"lp_pool1d": x.view(1, 1, 64)[..., :8], "lp_pool2d": x[0, :, 0].unsqueeze(0), "lp_pool3d": x}[fn]
    return getattr(L.nn.functional, fn)(x, 2, k, st)


@pytest.mark.parametrize("fn,k,st", LP_CALLS)
def test_lp_pool_kernel_and_stride_forms(torch, fn, k, st):
    ec, et = same_error(lambda: _lp(core, fn, k, st), lambda: _lp(torch, fn, k, st))
    if et is None:
        assert_same(_lp(core, fn, k, st), _lp(torch, fn, k, st))
    elif not (isinstance(et, TypeError) and "mul()" in str(et)):   # Tensor.mul's argument position: not here
        assert str(ec) == str(et)


@pytest.mark.parametrize("fn", ["avg_pool1d", "max_pool1d", "max_pool1d_idx"])
@pytest.mark.parametrize("args", [((2, 2), None, 0, 1), (2, (1, 1), 0, 1), (2, 1, (0, 0), 1), ([], None, 0, 1),
                                  (2, [], 0, 1), (2, (), 0, 1), (2, [1, 1, 1], 0, 1), (2, 1, 0, (1, 1))])
def test_pool1d_size_errors(torch, fn, args):
    """avg_pool1d (and max_pool1d with indices) check int[1] sizes in torch's argument parser; max_pool1d in
    max_pool1d_impl, with its own wording per argument."""
    def run(L):
        x = L.arange(1.0, 9.0).view(1, 1, 8)
        k, st, p, d = args
        if fn == "avg_pool1d":
            return L.nn.functional.avg_pool1d(x, k, st, p)
        return L.nn.functional.max_pool1d(x, k, st, p, d, return_indices=fn == "max_pool1d_idx")
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if et is not None:
        assert str(ec) == str(et)


# -- second derivatives torch does not implement ------------------------------------------------------------------

DOUBLE_BACKWARD = {
    "multi_margin": lambda L, x: L.nn.functional.multi_margin_loss(x, L.tensor([0, 2, 1])),
    "multi_margin_none_p2_weight": lambda L, x: L.nn.functional.multi_margin_loss(
        x, L.tensor([0, 2, 1]), p=2, weight=L.ones(4, dtype=L.float64), reduction="none"),
    "multilabel_margin": lambda L, x: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[0, 2, -1, 0], [1, -1, 0, 0], [3, 2, 1, 0]])),
    "multilabel_margin_sum": lambda L, x: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[0, 2, -1, 0], [1, -1, 0, 0], [3, 2, 1, 0]]), reduction="sum"),
    "pdist": lambda L, x: L.nn.functional.pdist(x),
    "pdist_p1": lambda L, x: L.pdist(x, p=1),
    "pdist_pinf": lambda L, x: L.pdist(x, p=float("inf")),
    "hardsigmoid": lambda L, x: L.nn.functional.hardsigmoid(x * 3),
    "hardsigmoid_": lambda L, x: L.nn.functional.hardsigmoid(x * 3, inplace=True),
    "hardsigmoid_module": lambda L, x: L.nn.Hardsigmoid()(x),
}


@pytest.mark.parametrize("name", list(DOUBLE_BACKWARD))
def test_double_backward_not_implemented_like_torch(torch, name):
    """The first gradient matches torch's (values, grad_fn name, requires_grad under create_graph); the second
    raises torch's error (class and text)."""
    def first(L):
        L.manual_seed(0)
        x = L.randn(3, 4, dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(DOUBLE_BACKWARD[name](L, x).sum(), x, create_graph=True)
        return x, g
    (xc, gc), (xt, gt) = first(core), first(torch)
    assert_same(gc, gt, rtol=1e-12, atol=1e-12)
    assert (gc.requires_grad, gc.grad_fn.name()) == (gt.requires_grad, gt.grad_fn.name())
    ec, et = same_error(lambda: core.autograd.grad(gc.sum(), xc), lambda: torch.autograd.grad(gt.sum(), xt))
    assert et is not None and str(ec) == str(et)


@pytest.mark.parametrize("name", ["multi_margin", "pdist", "hardsigmoid"])
def test_first_gradient_without_graph_unchanged(torch, name):
    def grad(L):
        L.manual_seed(0)
        x = L.randn(3, 4, dtype=L.float64, requires_grad=True)
        DOUBLE_BACKWARD[name](L, x).sum().backward()
        return x.grad
    g = grad(core)
    assert_same(g, grad(torch), rtol=1e-12, atol=1e-12)
    assert g.grad_fn is None and not g.requires_grad


# -- Tensor.resize_: storage semantics (new elements: zeros in core, uninitialised in torch, never compared) ----------

def _geom(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


RESIZE_CASES = {   # each returns (the resized tensor, the number of its leading elements that are defined, others)
    "strided_view_uses_storage": lambda L, np: (L.arange(10.0)[::2].resize_(3), 3, []),
    "offset_view": lambda L, np: (L.arange(10.0)[2:].resize_(2, 2), 4, []),
    "shrink_keeps_storage": lambda L, np: (L.arange(6.0).resize_(2).resize_(6), 6, []),
    "same_shape_keeps_strides": lambda L, np: (L.arange(6.0).view(2, 3).t().resize_(3, 2), 6, []),
    "transposed_to_contiguous": lambda L, np: (L.arange(6.0).view(2, 3).t().resize_(2, 3), 6, []),
    "view_shares_after_shrink": lambda L, np: _shared(L),
    "grow_keeps_contents": lambda L, np: (L.arange(6.0).resize_(8), 6, []),
    "grow_2d": lambda L, np: (L.arange(6.0).resize_(2, 3).resize_(3, 3), 6, []),
    "from_numpy_shrink_regrow": lambda L, np: (L.from_numpy(np.arange(6.0)).resize_(3).resize_(6), 6, []),
    "zero_sizes": lambda L, np: (L.ones(2, 3).resize_(3, 0), 0, [L.ones(2, 3).resize_(0, 3).stride()]),
    "expanded": lambda L, np: (L.arange(4.0).expand(3, 4).resize_(2, 2), 4, []),
    "size_forms": lambda L, np: (L.ones(2, 2).resize_(L.Size([4])).resize_([2, 2]).resize_((1, 4)), 4, []),
    "sliced_2d": lambda L, np: (L.arange(12.0).view(3, 4)[:, 1:3].resize_(2, 2), 4, []),
}


def _shared(L):
    a = L.arange(6.0)
    v = a.view(2, 3).resize_(3)
    v[0] = 100
    return v, 3, [a]


@pytest.mark.parametrize("name", list(RESIZE_CASES))
def test_resize_geometry_and_sharing_like_torch(torch, name):
    (c, nc, oc), (t, nt, ot) = RESIZE_CASES[name](core, np), RESIZE_CASES[name](torch, np)
    assert _geom(c) == _geom(t) and nc == nt
    assert c.reshape(-1)[:nc].tolist() == t.reshape(-1)[:nt].tolist()
    for a, b in zip(oc, ot, strict=True):
        assert (a.tolist() if hasattr(a, "tolist") else a) == (b.tolist() if hasattr(b, "tolist") else b)


@pytest.mark.parametrize("call", ["from_numpy_grow", "as_tensor_grow", "negative", "float_size", "requires_grad",
                                  "requires_grad_no_grad"])
def test_resize_errors_like_torch(torch, call):

    def run(L):
        if call == "from_numpy_grow":
            return L.from_numpy(np.arange(6.0)).resize_(7)
        if call == "as_tensor_grow":
            return L.as_tensor(np.arange(6.0)).resize_(2, 4)
        if call == "negative":
            return L.ones(2).resize_(2, -1)
        if call == "float_size":
            return L.ones(2).resize_(2.5)
        x = L.ones(2, requires_grad=True)
        with L.set_grad_enabled(call == "requires_grad"):
            return x.resize_(3)
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert et is not None and str(ec) == str(et)


def test_resize_version_counter(torch):
    def run(L):
        x = L.ones(2, 3)
        v = x._version
        x.resize_(2, 3)
        same = x._version - v
        x.resize_(6)
        return same, x._version - v
    assert run(core) == run(torch)


# -- F.scaled_dot_product_attention: ATen's input validation and grouped-query attention ------------------------

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


# -- MultiheadAttention: F._mha_shape_check and the key / value / mask dtype checks ---------------------------------

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


# -- grid_sampler_2d / 3d: the argument parser's TypeErrors and the kernel's dtype errors ---------------------------

GRID_CALLS = {
    "float_mode": lambda L, x, g: L.grid_sampler_2d(x, g, 0.0, 0, True),
    "bool_mode": lambda L, x, g: L.grid_sampler_2d(x, g, True, 0, False),
    "float_padding": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 1.0, False),
    "int_align": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 0, 1),
    "none_align": lambda L, x, g: L.grid_sampler_2d(x, g, 0, 0, None),
    "3d_int_align": lambda L, x, g: L.grid_sampler_3d(x, g, 0, 0, 1),
    "generic_float_mode": lambda L, x, g: L.grid_sampler(x, g, 0.0, 0, True),
    "grid_sample_int_align": lambda L, x, g: L.nn.functional.grid_sample(x, g, align_corners=1),
    "long_input": lambda L, x, g: L.grid_sampler_2d(x.long(), g, 0, 0, True),
    "long_grid": lambda L, x, g: L.grid_sampler_2d(x, g.long(), 0, 0, True),
    "double_input": lambda L, x, g: L.grid_sampler_2d(x.double(), g, 0, 0, True),
    "nearest_reflection": lambda L, x, g: L.grid_sampler_2d(x, g, 1, 2, False),
}


@pytest.mark.parametrize("name", list(GRID_CALLS))
def test_grid_sampler_arguments_like_torch(torch, name):
    def run(L):
        L.manual_seed(0)
        return GRID_CALLS[name](L, L.randn(1, 2, 4, 5), L.rand(1, 3, 2, 2) * 2.4 - 1.2)
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if et is not None:
        assert str(ec) == str(et)
    else:
        assert_same(run(core), run(torch))
