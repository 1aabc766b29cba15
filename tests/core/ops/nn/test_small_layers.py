"""The small layers of issue #14 vs torch: pdist, pixel_shuffle / pixel_unshuffle, channel_shuffle,
bilinear, rms_norm, local_response_norm, alpha_dropout, feature_alpha_dropout, dropout3d (values, dtypes,
grad_fn names, gradients, errors, the random stream), their modules (reprs, init under a seed, forward)
and their CLI examples."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF
from tests.core.ops.nn.test_activation_variants import run_cli_example

RNG = np.random.default_rng(23)
M = RNG.standard_normal((5, 4))
M[3] = M[1]                                 # a zero distance (pdist's subgradient at 0)
IMG = RNG.standard_normal((2, 8, 3, 4))
VOL = RNG.standard_normal((2, 3, 2, 3, 2))
X1 = RNG.standard_normal((2, 3, 4))
X2 = RNG.standard_normal((2, 3, 5))
WB = RNG.standard_normal((6, 4, 5))
BB = RNG.standard_normal(6)
W34 = RNG.random((3, 4)) + 0.5

# (id, inputs (requires grad), fn(L, F, *inputs), double backward in torch?)
CASES = [
    ("pdist_p2", (M,), lambda L, F, x: F.pdist(x), False),
    ("pdist_p1", (M,), lambda L, F, x: L.pdist(x, 1), False),
    ("pdist_p0", (M,), lambda L, F, x: F.pdist(x, 0), False),
    ("pdist_p1.5", (M,), lambda L, F, x: F.pdist(x, 1.5), False),
    ("pdist_p0.5", (M,), lambda L, F, x: F.pdist(x, 0.5), False),
    ("pdist_p3", (M,), lambda L, F, x: F.pdist(x, 3), False),
    ("pdist_inf", (M,), lambda L, F, x: F.pdist(x, float("inf")), False),
    ("pdist_one_row", (M[:1],), lambda L, F, x: F.pdist(x), False),
    ("pixel_shuffle", (IMG,), lambda L, F, x: F.pixel_shuffle(x, 2), True),
    ("pixel_shuffle_batch_dims", (IMG.reshape(1, 2, 8, 3, 4),), lambda L, F, x: L.pixel_shuffle(x, 2), True),
    ("pixel_unshuffle", (IMG[:, :, :2],), lambda L, F, x: F.pixel_unshuffle(x, 2), True),
    ("pixel_unshuffle_3d", (IMG[0, :, :2],), lambda L, F, x: L.pixel_unshuffle(x, 1), True),
    ("channel_shuffle", (IMG,), lambda L, F, x: F.channel_shuffle(x, 4), True),
    ("channel_shuffle_3d", (X1,), lambda L, F, x: L.channel_shuffle(x, 3), True),
    ("bilinear", (X1, X2, WB, BB), lambda L, F, a, b, w, c: F.bilinear(a, b, w, c), True),
    ("bilinear_nobias", (X1[0], X2[0], WB), lambda L, F, a, b, w: L.bilinear(a, b, w), True),
    ("bilinear_1d", (X1[0, 0], X2[0, 0], WB), lambda L, F, a, b, w: F.bilinear(a, b, w), True),
    ("rms_norm", (IMG,), lambda L, F, x: F.rms_norm(x, (3, 4)), True),
    ("rms_norm_weight_eps", (IMG, W34), lambda L, F, x, w: L.rms_norm(x, [3, 4], w, 0.5), True),
    ("rms_norm_list_shape", (X1, X1[0, 0]), lambda L, F, x, w: F.rms_norm(x, [4], w), True),
    ("local_response_norm_3d", (X1,), lambda L, F, x: F.local_response_norm(x, 2), True),
    ("local_response_norm_4d", (IMG,), lambda L, F, x: F.local_response_norm(x, 3, 0.1, 0.5, 2.0), True),
    ("local_response_norm_5d", (VOL,), lambda L, F, x: F.local_response_norm(x, 4, 1.0), True),
    ("alpha_dropout_eval", (IMG,), lambda L, F, x: F.alpha_dropout(x, 0.3) * 1, True),
    ("feature_alpha_dropout_eval", (IMG,), lambda L, F, x: F.feature_alpha_dropout(x, 0.3, False) * 1, True),
    ("dropout3d_eval", (VOL,), lambda L, F, x: F.dropout3d(x, 0.3, False) * 1, True),
    ("alpha_dropout_p1", (IMG,), lambda L, F, x: F.alpha_dropout(x, 1.0, True), True),
]


def _leaves(L, arrays):
    return [L.tensor(a, requires_grad=True) for a in arrays]


def _np(t):
    if t is None:
        return None
    return t.detach().numpy(force=True) if hasattr(t, "_is_zerotensor") else t.detach().numpy()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch, case):
    _, arrays, fn, double = case
    ic, it = _leaves(core, arrays), _leaves(torch, arrays)
    oc, ot = fn(core, CF, *ic), fn(torch, torch.nn.functional, *it)
    assert tuple(oc.shape) == tuple(ot.shape) and str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(_np(oc), _np(ot), rtol=1e-12, atol=1e-12)
    assert oc.grad_fn.name() == ot.grad_fn.name()
    w = RNG.standard_normal(tuple(oc.shape))
    gc = core.autograd.grad((oc * core.tensor(w)).sum(), ic, create_graph=double, allow_unused=True)
    gt = torch.autograd.grad((ot * torch.tensor(w)).sum(), it, create_graph=double, allow_unused=True)
    for a, b in zip(gc, gt, strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)
    if not double:   # torch: "the derivative for '_pdist_backward' is not implemented"
        return
    sc = sum((g * g).sum() for g in gc if g.requires_grad)
    st = sum((g * g).sum() for g in gt if g.requires_grad)
    hc = [None] * len(ic) if isinstance(sc, int) else core.autograd.grad(sc, ic, allow_unused=True)
    ht = [None] * len(it) if isinstance(st, int) else torch.autograd.grad(st, it, allow_unused=True)
    for a, b in zip(hc, ht):
        a, b = _np(a), _np(b)
        if a is not None or b is not None:
            np.testing.assert_allclose(a if a is not None else np.zeros_like(b),
                                       b if b is not None else np.zeros_like(a), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
@pytest.mark.parametrize("call", [
    lambda L, F, x: F.pixel_shuffle(x, 2), lambda L, F, x: F.pixel_unshuffle(x[:, :, :2], 2),
    lambda L, F, x: F.channel_shuffle(x, 2), lambda L, F, x: L.native_channel_shuffle(x, 4),
], ids=["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"])
def test_shuffles_keep_any_dtype(torch, call, dtype):
    a = (IMG * 3).astype(dtype)
    oc, ot = call(core, CF, core.tensor(a)), call(torch, torch.nn.functional, torch.tensor(a))
    assert str(oc.dtype) == str(ot.dtype) and oc.is_contiguous() == ot.is_contiguous()
    np.testing.assert_array_equal(oc.numpy(), ot.numpy())


def test_float32_close_to_torch(torch):
    for fn in (lambda L, F, x: F.pdist(x[0, 0]), lambda L, F, x: F.rms_norm(x, (3, 4)),
               lambda L, F, x: F.local_response_norm(x, 3), lambda L, F, x: F.pdist(x[0, 0], 0.7),
               lambda L, F, x: F.bilinear(x[0], x[1], L.ones(2, 4, 4))):
        a = fn(core, CF, core.tensor(IMG.astype(np.float32)))
        b = fn(torch, torch.nn.functional, torch.tensor(IMG.astype(np.float32)))
        assert str(a.dtype) == str(b.dtype) == "torch.float32"
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-6)


ERRORS = [
    lambda L, F: F.pdist(L.ones(3)), lambda L, F: F.pdist(L.ones(3, 2, dtype=L.int64)),
    lambda L, F: F.pdist(L.ones(3, 2), -1.0),
    lambda L, F: F.pixel_shuffle(L.ones(4, 2), 2), lambda L, F: F.pixel_shuffle(L.ones(3, 2, 2), 0),
    lambda L, F: F.pixel_shuffle(L.ones(3, 2, 2), 2),
    lambda L, F: F.pixel_unshuffle(L.ones(4, 2), 2), lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 4), -1),
    lambda L, F: F.pixel_unshuffle(L.ones(1, 3, 4), 2), lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 3), 2),
    lambda L, F: F.channel_shuffle(L.ones(4, 2), 2), lambda L, F: F.channel_shuffle(L.ones(1, 4, 2), 0),
    lambda L, F: F.channel_shuffle(L.ones(1, 3, 2), 2),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(4), L.ones(1, 3, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(3, 4), L.ones(1, 3, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 2, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 3, 5)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 3, 4), L.ones(2)),
    lambda L, F: F.rms_norm(L.ones(2, 3), (2,)), lambda L, F: F.rms_norm(L.ones(2, 3), (3,), L.ones(2)),
    lambda L, F: F.rms_norm(L.ones(2, 3), ()), lambda L, F: F.rms_norm(L.ones(2, 3), (2, 4)),
    lambda L, F: F.rms_norm(L.ones(2, 3), 3), lambda L, F: F.rms_norm(L.ones(2, 3, dtype=L.int64), (3,)),
    lambda L, F: F.local_response_norm(L.ones(2, 3), 2),
    lambda L, F: F.alpha_dropout(L.ones(3), 1.5), lambda L, F: F.feature_alpha_dropout(L.ones(3), -0.1),
    lambda L, F: F.feature_alpha_dropout(L.ones(3), 0.5, True), lambda L, F: F.dropout3d(L.ones(2, 2, 2, 2), 2.0),
    lambda L, F: F.dropout1d(L.ones(3), 0.5), lambda L, F: F.dropout1d(L.ones(2, 2, 2, 2), 0.5),
    lambda L, F: F.dropout1d(L.ones(2, 2), -0.5),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch, call):
    msgs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.raises(Exception) as e:
            call(L, F)
        msgs.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", [
    lambda L, F, t: F.alpha_dropout(t, 0.3, True),
    lambda L, F, t: F.alpha_dropout(t.transpose(1, 3), 0.6, True),
    lambda L, F, t: F.feature_alpha_dropout(t, 0.4, True),
    lambda L, F, t: F.dropout3d(t, 0.5),
    lambda L, F, t: F.dropout3d(t[0], 0.5),
    lambda L, F, t: L.alpha_dropout(t, 0.2, True),
    lambda L, F, t: L.feature_alpha_dropout(t, 0.2, True),
    lambda L, F, t: L.feature_dropout(t, 0.2, True),
    lambda L, F, t: L.alpha_dropout_(t * 1, 0.2, True),
    lambda L, F, t: F.alpha_dropout(t * 1, 0.5, True, True),
    lambda L, F, t: F.dropout3d(t * 1, 0.5, True, True),
    lambda L, F, t: F.dropout1d(t[0, 0], 0.5),
    lambda L, F, t: F.dropout1d(t[0, 0, 0], 0.5),
    lambda L, F, t: F.dropout1d(t[0, 0] * 1, 0.5, True, True),
], ids=["alpha", "alpha_strided", "feature_alpha", "dropout3d", "dropout3d_unbatched", "torch_alpha",
        "torch_feature_alpha", "torch_feature", "torch_alpha_", "alpha_inplace", "dropout3d_inplace", "dropout1d",
        "dropout1d_unbatched", "dropout1d_inplace"])
def test_dropouts_follow_torchs_stream(torch, call, dtype):
    """The keep mask is noise.bernoulli_(1 - p) from the default generator, as ATen's _dropout_impl: the
    same seed gives the same output bit for bit, the same grad_fn and the same gradient."""
    res = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        L.manual_seed(7)
        t = L.tensor(VOL.astype(dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(L, F, t)
        out.backward(L.ones_like(out))
        res.append((out.detach().numpy(), t.grad.numpy(), out.grad_fn.name(), L.rand(2).numpy()))
    for a, b in zip(res[0], res[1]):
        np.testing.assert_array_equal(a, b)


def test_dropout3d_warns_for_other_ranks_as_torch(torch):
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input"):
            F.dropout3d(L.ones(2, 3, 4), 0.5, False)


# -- modules ----------------------------------------------------------------------------------------

MODULES = [
    ("PairwiseDistance", (), {}, (X1, X1 * 2)), ("PairwiseDistance", (1.0, 1e-3, True), {}, (X1, X1 * 2)),
    ("CosineSimilarity", (2,), {}, (X1, X1 + 1)), ("PixelShuffle", (2,), {}, (IMG,)),
    ("PixelUnshuffle", (1,), {}, (IMG,)), ("ChannelShuffle", (2,), {}, (IMG,)),
    ("Bilinear", (4, 5, 6), {}, (X1, X2)), ("Bilinear", (4, 5, 2), {"bias": False}, (X1, X2)),
    ("RMSNorm", (4,), {}, (X1,)), ("RMSNorm", ([3, 4],), {"eps": 1e-3, "elementwise_affine": False}, (IMG,)),
    ("LocalResponseNorm", (3,), {"k": 2.0}, (IMG,)), ("AlphaDropout", (), {}, (IMG,)),
    ("FeatureAlphaDropout", (0.2, True), {}, (IMG,)), ("Dropout3d", (), {}, (VOL,)),
    ("Dropout1d", (0.4,), {}, (IMG[0],)),
]


@pytest.mark.parametrize("case", MODULES, ids=[f"{c[0]}{c[1]}" for c in MODULES])
def test_modules_repr_init_and_forward(torch, case):
    """Parameters drawn under the same seed equal torch's (Bilinear: uniform(-1/sqrt(in1), ...))."""
    name, args, kwargs, inputs = case
    core.manual_seed(3)
    torch.manual_seed(3)
    mc = getattr(core.nn, name)(*args, **kwargs).double()
    mt = getattr(torch.nn, name)(*args, **kwargs).double()
    assert repr(mc) == repr(mt)
    for (nc, pc), (nt, pt) in zip(mc.named_parameters(), mt.named_parameters(), strict=True):
        assert nc == nt
        np.testing.assert_array_equal(pc.detach().numpy(), pt.detach().numpy())
    mc.eval()
    mt.eval()
    oc = mc(*(core.tensor(a) for a in inputs))
    ot = mt(*(torch.tensor(a) for a in inputs))
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_bilinear_module_rejects_zero_in1_as_torch(torch):
    msgs = []
    for L in (core, torch):
        with pytest.raises(ValueError) as e:
            L.nn.Bilinear(0, 2, 3)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


CLI_REFERENCE = {
    "pdist": lambda T: T.pdist(T.tensor([[0.0, 0], [3, 4], [6, 8]]), 2),
    "pixel_shuffle": lambda T: T.pixel_shuffle(T.arange(1, 17).reshape(4, 2, 2), 2),
    "pixel_unshuffle": lambda T: T.pixel_unshuffle(T.tensor([[[1, 2], [3, 4]]]), 2),
    "channel_shuffle": lambda T: T.channel_shuffle(T.tensor([[[1], [2], [3], [4]]]), 2),
    "bilinear": lambda T: T.bilinear(T.tensor([[1.0, 2]]), T.tensor([[3.0, 4, 5]]),
                                     T.tensor([[[1.0, 0, 0], [0, 1, 0]]])),
    "rms_norm": lambda T: T.rms_norm(T.tensor([[1.0, 2, 3], [2, 4, 9]]), [3]),
    "local_response_norm": lambda T: T.nn.functional.local_response_norm(T.tensor([[[1.0, 2], [3, 4], [5, 6]]]), 2),
    "alpha_dropout": lambda T: T.nn.functional.alpha_dropout(T.tensor([[1.0, 2, 3, 4]]), 0.5, False),
    "feature_alpha_dropout": lambda T: T.nn.functional.feature_alpha_dropout(T.tensor([[[1.0, 2]], [[3, 4]]]), 0.5,
                                                                             False),
    "dropout3d": lambda T: T.nn.functional.dropout3d(T.tensor([[[[[1.0, 2]]]]]), 0.5, False),
    "dropout1d": lambda T: T.nn.functional.dropout1d(T.tensor([[[1.0, 2, 3]]]), 0.5, False),
    "affine_grid": lambda T: T.nn.functional.affine_grid(T.tensor([[[1.0, 0.2, 0.1], [0.3, 0.9, -0.2]]]), [1, 1, 2, 3],
                                                         align_corners=True),
}


@pytest.mark.parametrize("name", sorted(CLI_REFERENCE))
def test_cli_example_matches_torch(torch, name):
    run_cli_example(torch, name, CLI_REFERENCE[name])


# -- affine_grid -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(2, 1, 3, 4), (1, 3, 5, 1), (2, 2, 1, 1), (1, 1, 7, 9), (2, 1, 2, 3, 4),
                                  (1, 1, 1, 5, 2)])
def test_affine_grid_and_its_gradient_are_torchs_bit_for_bit(torch, dtype, align, size):
    """ATen's base grid (linspace scaled by (n - 1) / n unless align_corners) times theta^T by bmm."""
    nd = len(size) - 2
    theta = RNG.standard_normal((size[0], nd, nd + 1)).astype(dtype)
    res = []
    for L in (core, torch):
        t = L.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = L.nn.functional.affine_grid(t, size, align_corners=align)
        grid.backward(L.tensor(np.linspace(-1, 1, grid.numel()).reshape(tuple(grid.shape)).astype(dtype)))
        res.append((grid.detach().numpy(), t.grad.numpy(), grid.grad_fn.name()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3, dtype=L.int64), (1, 1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 2, 2), align_corners=False),
    lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 2, 0), align_corners=False),
    lambda L: L.affine_grid_generator(L.ones(1, 2, 3), [1, 2, 2], False),
])
def test_affine_grid_errors_are_torchs(torch, call):
    msgs = []
    for L in (core, torch):
        with pytest.raises(Exception) as e:
            call(L)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("kwargs, match", [({}, "Default grid_sample and affine_grid behavior"),
                                           ({"align_corners": True}, "unit-size grids")])
def test_affine_grid_warns_as_torch(torch, kwargs, match):
    for L in (core, torch):
        with pytest.warns(UserWarning, match=match):
            L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 1, 3), **kwargs)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_draws_torchs_noise(torch, hard, dim):
    """g = -log(Exponential(1)) from the default generator (torch's exponential_ bit for bit; log to the last
    bit), softmax((logits + g) / tau); hard: the one-hot argmax with the soft sample's gradient."""
    res = []
    for L in (core, torch):
        L.manual_seed(5)
        x = L.tensor(RNG_FIXED.astype(np.float32), requires_grad=True)
        y = L.nn.functional.gumbel_softmax(x, tau=0.5, hard=hard, dim=dim)
        (y * L.arange(24.0).reshape(4, 6)).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name(), L.rand(3).numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-5)
    assert res[0][2] == res[1][2]
    np.testing.assert_array_equal(res[0][3], res[1][3])   # the stream advanced exactly as torch's


RNG_FIXED = np.random.default_rng(1).standard_normal((4, 6))


def test_gumbel_softmax_eps_is_deprecated_as_in_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            L.nn.functional.gumbel_softmax(L.ones(2, 3), eps=1e-5)


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
