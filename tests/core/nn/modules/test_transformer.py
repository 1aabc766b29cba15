"""nn.Transformer, nn.TransformerDecoderLayer and nn.TransformerDecoder vs torch side by side: parameters drawn
under the same seed (state_dict keys and values bit for bit), reprs, forward outputs in train mode (dropout
draws) and eval mode, gradients of every parameter, masks of each kind, batch_first / norm_first both ways,
warnings and errors."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import core
from conftest import assert_same

NESTED_ONCE = "The PyTorch API of nested tensors"   # warned once per process: test_nested_warning_once
SMALL = "d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16"


def _run(L, fn):
    """fn(L) -> (result, error, warning messages) with every warning recorded; the generator seeded first."""
    L.manual_seed(0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out, err = fn(L), None
        except Exception as e:  # noqa: BLE001
            out, err = None, e
    return out, err, [(w.category.__name__, str(w.message)) for w in rec
                      if not str(w.message).startswith(NESTED_ONCE)]


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flat(v)]
    if isinstance(x, dict):
        return [(k, y) for k, v in x.items() for y in _flat(v)]
    return [x]


def _both(torch, fn, *, exact=False, rtol=1.3e-6, atol=1e-5):
    """Run fn with torch and with core: the same error (class and message), warnings and results."""
    (t, te, tw), (c, ce, cw) = _run(torch, fn), _run(core, fn)
    assert (type(ce), str(ce)) == (type(te), str(te)) if te is None or ce is None else \
        (type(ce).__name__, str(ce)) == (type(te).__name__, str(te)), (ce, te)
    assert cw == tw
    if te is not None:
        return te
    ct, tt = _flat(c), _flat(t)
    assert len(ct) == len(tt)
    for a, b in zip(ct, tt):
        if isinstance(b, tuple):
            assert a[0] == b[0]
            a, b = a[1], b[1]
        if not isinstance(b, torch.Tensor):
            assert a == b
            continue
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        an, bn = a.detach().numpy(), b.detach().numpy()
        if exact:
            np.testing.assert_array_equal(an, bn)
        else:
            np.testing.assert_allclose(an, bn, rtol=rtol, atol=atol, equal_nan=True)
    return c


def _state(m):
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def _grads(m):
    return {n: p.grad for n, p in m.named_parameters()}


# ---------------------------------------------------------------- construction: seeds, keys, reprs

CONSTRUCT = [
    f"Transformer({SMALL})",
    f"Transformer({SMALL}, batch_first=True, norm_first=True)",
    f"Transformer({SMALL}, activation='gelu', layer_norm_eps=1e-6, dropout=0.3)",
    f"Transformer({SMALL}, activation=L.nn.GELU(approximate='tanh'))",
    f"Transformer({SMALL}, activation=L.nn.functional.gelu)",
    f"Transformer({SMALL}, bias=False)",
    f"Transformer({SMALL}, dtype=L.float64)",
    "Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=4, "
    "custom_encoder=L.nn.Linear(8, 8))",
    "TransformerDecoderLayer(8, 2, 16)",
    "TransformerDecoderLayer(8, 4, 16, 0.2, 'gelu', 1e-3, True, True, False)",
    "TransformerDecoderLayer(8, 2, activation=L.nn.ReLU())",
    "TransformerDecoder(L.nn.TransformerDecoderLayer(8, 2, 16), 3, norm=L.nn.LayerNorm(8))",
    "TransformerDecoder(L.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True), 2)",
]


@pytest.mark.parametrize("src", CONSTRUCT)
def test_same_parameters_keys_and_repr_under_one_seed(torch, src):
    def build(L):
        L.manual_seed(3)
        m = eval("L.nn." + src, {"L": L})
        return repr(m), _state(m), [n for n, _ in m.named_modules()], L.rand(2)   # the stream after init too
    _both(torch, build, exact=True)


def test_default_transformer_matches_torch_bit_for_bit(torch):
    def build(L):
        L.manual_seed(0)
        m = L.nn.Transformer()
        return repr(m), sum(p.numel() for p in m.parameters()), m.d_model, m.nhead, m.batch_first, \
            m.encoder.layers[5].linear2.weight[:4, :4], m.decoder.layers[5].multihead_attn.in_proj_weight[-3:, -3:]
    _both(torch, build, exact=True)


# ---------------------------------------------------------------- forward and backward

def _inputs(L, batch_first, s=5, t=4, n=3, e=8):
    src, tgt = L.randn(s, n, e), L.randn(t, n, e)
    return (src.transpose(0, 1), tgt.transpose(0, 1)) if batch_first else (src, tgt)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("train", [True, False])
def test_transformer_forward_backward(torch, batch_first, norm_first, train):
    def run(L):
        L.manual_seed(1)
        m = L.nn.Transformer(**dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                    dim_feedforward=16, dropout=0.2, batch_first=batch_first,
                                    norm_first=norm_first))
        m.train(train)
        src, tgt = _inputs(L, batch_first)
        src.requires_grad_()
        out = m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(4))
        (out * L.linspace(-1, 1, out.numel()).reshape(out.shape)).sum().backward()
        return out, _grads(m), src.grad, L.rand(3)
    _both(torch, run)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_stack_train_dropout_and_grads(torch, norm_first):
    def run(L):
        L.manual_seed(2)
        layer = L.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.5, activation="gelu", norm_first=norm_first)
        dec = L.nn.TransformerDecoder(layer, 2, norm=L.nn.LayerNorm(8))
        tgt, mem = L.randn(4, 2, 8), L.randn(6, 2, 8, requires_grad=True)
        out = dec(tgt, mem, tgt_mask=L.nn.Transformer.generate_square_subsequent_mask(4))
        out.pow(2).sum().backward()
        return out, _grads(dec), mem.grad
    _both(torch, run)


def test_decoder_layer_unbatched_and_float64(torch):
    def run(L):
        L.manual_seed(4)
        layer = L.nn.TransformerDecoderLayer(6, 3, 10, dropout=0.0, dtype=L.float64)
        tgt, mem = L.randn(4, 6, dtype=L.float64), L.randn(5, 6, dtype=L.float64)
        out = layer(tgt, mem, memory_mask=L.randn(4, 5, dtype=L.float64))
        out.sum().backward()
        return out, _grads(layer)
    _both(torch, run, rtol=1e-10, atol=1e-12)


def test_transformer_unbatched(torch):
    def run(L):
        L.manual_seed(5)
        m = L.nn.Transformer(**dict(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                    dim_feedforward=8, dropout=0.0))
        return m(L.randn(5, 8), L.randn(3, 8), tgt_mask=m.generate_square_subsequent_mask(3))
    _both(torch, run)


# ---------------------------------------------------------------- masks

def _masks(L, kind):
    causal = L.nn.Transformer.generate_square_subsequent_mask(4)
    bool_causal = L.triu(L.ones(4, 4, dtype=L.bool), 1)
    src_kpm = L.tensor([[False] * 5, [False, False, False, True, True], [False, False, False, False, True]])
    tgt_kpm = L.tensor([[False] * 4, [False, False, True, True], [False] * 4])
    return {
        "float_causal": dict(tgt_mask=causal),
        "bool_causal": dict(tgt_mask=bool_causal),
        "causal_hint": dict(tgt_mask=causal, tgt_is_causal=True),
        "all_bool": dict(src_mask=L.rand(5, 5) > 0.7, tgt_mask=bool_causal, memory_mask=L.rand(4, 5) > 0.8,
                         src_key_padding_mask=src_kpm, tgt_key_padding_mask=tgt_kpm,
                         memory_key_padding_mask=src_kpm),
        "all_float": dict(src_mask=L.randn(5, 5), tgt_mask=causal, memory_mask=L.randn(4, 5),
                          src_key_padding_mask=src_kpm.float() * -1e4, tgt_key_padding_mask=tgt_kpm.float() * -50,
                          memory_key_padding_mask=src_kpm.float() * -1e4),
        "mismatched": dict(tgt_mask=causal, tgt_key_padding_mask=tgt_kpm, src_key_padding_mask=src_kpm),
        "padding_only": dict(src_key_padding_mask=src_kpm, memory_key_padding_mask=src_kpm),
        "per_head_3d": dict(tgt_mask=causal.expand(6, 4, 4), src_mask=L.randn(6, 5, 5)),
        "memory_causal_hint": dict(memory_mask=L.triu(L.full((4, 5), float("-inf")), 1), memory_is_causal=True),
        "src_causal_detected": dict(src_mask=L.nn.Transformer.generate_square_subsequent_mask(5)),
    }[kind]


MASK_KINDS = ["float_causal", "bool_causal", "causal_hint", "all_bool", "all_float", "mismatched", "padding_only",
              "per_head_3d", "memory_causal_hint", "src_causal_detected"]


@pytest.mark.parametrize("kind", MASK_KINDS)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mode", ["train", "eval", "eval_no_grad"])
def test_masks(torch, kind, batch_first, mode):
    def run(L):
        L.manual_seed(6)
        m = L.nn.Transformer(**dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                    dim_feedforward=16, dropout=0.1, batch_first=batch_first))
        m.train(mode == "train")
        src, tgt = _inputs(L, batch_first)
        masks = _masks(L, kind)
        with L.set_grad_enabled(mode != "eval_no_grad"):
            out = m(src, tgt, **masks)
        return out, L.rand(2)
    _both(torch, run)


@pytest.mark.parametrize("left_aligned", [True, False])
@pytest.mark.parametrize("grad", [True, False])
def test_encoder_eval_padding_as_torch_nested_fast_path(torch, left_aligned, grad):
    """In eval mode without grad, torch runs batch_first encoders on a nested tensor: padded rows come out 0
    (then the final norm), which core mirrors."""
    def run(L):
        L.manual_seed(7)
        enc = L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                      norm=L.nn.LayerNorm(8)).eval()
        kpm = L.tensor([[False] * 5, [False, False, False, True, True], [False, True, False, False, True]])
        if left_aligned:
            kpm[2] = L.tensor([False, False, False, False, True])
        with L.set_grad_enabled(grad):
            return enc(L.randn(3, 5, 8), src_key_padding_mask=kpm)
    _both(torch, run)


def test_encoder_eval_all_padding_is_torch_error(torch):
    def run(L):
        enc = L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()
        with L.no_grad():
            return enc(L.randn(2, 3, 8), src_key_padding_mask=L.ones(2, 3, dtype=L.bool))
    assert isinstance(_both(torch, run), RuntimeError)


def test_generate_square_subsequent_mask(torch):
    def run(L):
        g = L.nn.Transformer.generate_square_subsequent_mask
        return g(1), g(3), g(4, dtype=L.float64), g(0), g(2, device="cpu"), L.nn.Transformer().__class__.__name__
    _both(torch, run, exact=True)


# ---------------------------------------------------------------- errors and warnings

ERRORS = [
    "L.nn.Transformer(8, 2, 1, 1, 16)(L.randn(5, 3, 8), L.randn(4, 2, 8))",
    "L.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(L.randn(3, 5, 8), L.randn(2, 5, 8))",
    "L.nn.Transformer(8, 2, 1, 1, 16)(L.randn(5, 3, 6), L.randn(4, 3, 8))",
    "L.nn.Transformer(8, 2, 1, 1, 16)(L.randn(5, 3, 8), L.randn(4, 3, 6))",
    "L.nn.Transformer(8, 2, 1, 1, 16, activation='tanh')",
    "L.nn.Transformer(8, 2, 1, 1, 16)(L.randn(8), L.randn(8))",
    "L.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(L.randn(5, 8), L.randn(3, 8)).shape",
    "L.nn.TransformerDecoderLayer(8, 2, activation='swish')",
    "L.nn.Transformer(8, 3, 1, 1, 16)",
    "L.nn.TransformerDecoderLayer(8, 2, 16)(L.randn(4, 3, 8), L.randn(5, 3, 8), tgt_is_causal=True)",
    "L.nn.TransformerDecoderLayer(8, 2, 16)(L.randn(4, 3, 8), L.randn(5, 3, 8), tgt_mask=L.ones(4, 4, dtype=L.int64))",
    "L.nn.TransformerDecoderLayer(8, 2, 16)(L.randn(4, 3, 8), L.randn(5, 3, 8), memory_mask=L.randn(4, 5), "
    "memory_key_padding_mask=L.arange(5).expand(3, 5) > 2)",
    "L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()(L.randn(3, 5, 8), "
    "src_mask=L.zeros(5, 5, dtype=L.int32))",
    "L.nn.Transformer(8, 2, 1, 1, 16)(L.randn(5, 3, 8), L.randn(4, 3, 8), memory_key_padding_mask=L.zeros(3, 5))",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors_and_warnings(torch, src):
    _both(torch, lambda L: eval(src, {"L": L}))


@pytest.mark.parametrize("train", [True, False])
def test_fully_padded_memory_row_is_zero_attention_as_torch(torch, train):
    """The decoder's attention runs with need_weights=False (torch's SDPA): a query whose every key is padded
    attends to nothing (0, not NaN), in values and in every parameter's gradient."""
    def run(L):
        L.manual_seed(10)
        layer = L.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0).train(train)
        kpm = L.tensor([[False] * 5, [True] * 5, [False, False, True, True, True]])
        out = layer(L.randn(4, 3, 8), L.randn(5, 3, 8), memory_key_padding_mask=kpm)
        out.pow(2).sum().backward()
        return out, [(n, p.grad) for n, p in layer.named_parameters()]
    _both(torch, run)


def test_nested_warning_once(torch):
    """torch warns once per process when its eval fast path builds a nested tensor; so does core."""
    import subprocess
    import sys
    code = ("import sys, warnings; warnings.simplefilter('always'); L = __import__(sys.argv[1]); "
            "enc = L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()\n"
            "with L.no_grad():\n"
            "    for _ in range(2):\n"
            "        enc(L.randn(2, 3, 8), src_key_padding_mask=L.tensor([[False] * 3, [False, True, True]]))")
    err = [subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True).stderr
           for name in ("torch", "core")]
    lines = [[ln for ln in e.splitlines() if NESTED_ONCE in ln] for e in err]
    assert len(lines[0]) == 1 and [ln.split("Warning: ")[-1] for ln in lines[1]] == \
        [ln.split("Warning: ")[-1] for ln in lines[0]]


def test_nested_tensor_warning_and_state_dict_round_trip(torch):
    """Transformer(batch_first=False) warns as torch's encoder does; torch's state_dict loads into core."""
    def build(L):
        L.manual_seed(8)
        return L.nn.Transformer(**dict(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                       dim_feedforward=16)).eval()
    tm = _both(torch, lambda L: build(L).__class__.__name__)
    assert tm == "Transformer"
    torch.manual_seed(9)
    tmod = build(torch)
    cmod = build(core)
    cmod.load_state_dict({k: core.tensor(v.numpy()) for k, v in tmod.state_dict().items()})
    src, tgt = torch.randn(5, 2, 8), torch.randn(3, 2, 8)
    with torch.no_grad():
        expected = tmod(src, tgt).numpy()
    got = cmod(core.tensor(src.numpy()), core.tensor(tgt.numpy())).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1.3e-6, atol=1e-5)


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

