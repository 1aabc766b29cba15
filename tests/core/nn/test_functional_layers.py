"""The functional ops of issue #13 vs torch.nn.functional: values, shapes, dtypes, grad_fn names,
gradients (plain backward and create_graph double backward), torch-namespace twins, and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF

RNG = np.random.default_rng(7)
X4 = RNG.standard_normal((2, 4, 5, 6))
X3 = RNG.standard_normal((3, 4, 5))
T3 = RNG.standard_normal((3, 4, 5))
P3 = RNG.random((3, 4, 5))
W4 = RNG.random(4) + 0.5
B4 = RNG.standard_normal(4)

# (id, x, y or None, fn(L, F, x, y)); x and y require grad
CASES = [
    ("silu", X3, None, lambda L, F, x, y: F.silu(x)),
    ("elu", X3, None, lambda L, F, x, y: F.elu(x, 0.7)),
    ("softplus", X3 * 8, None, lambda L, F, x, y: F.softplus(x, 2.0, 5.0)),
    ("hardtanh", X3, None, lambda L, F, x, y: F.hardtanh(x, -0.5, 0.8)),
    ("logsigmoid", X3 * 30, None, lambda L, F, x, y: F.logsigmoid(x)),
    ("adaptive_avg_pool2d", X4, None, lambda L, F, x, y: F.adaptive_avg_pool2d(x, (3, 4))),
    ("adaptive_avg_pool2d_none", X4, None, lambda L, F, x, y: F.adaptive_avg_pool2d(x, (None, 4))),
    ("adaptive_avg_pool2d_unbatched", X3, None, lambda L, F, x, y: F.adaptive_avg_pool2d(x, 2)),
    ("adaptive_avg_pool1d", X3, None, lambda L, F, x, y: F.adaptive_avg_pool1d(x, 3)),
    ("adaptive_max_pool2d", X4, None, lambda L, F, x, y: F.adaptive_max_pool2d(x, (4, 3))),
    ("adaptive_max_pool2d_idx", X4, None, lambda L, F, x, y: F.adaptive_max_pool2d(x, 3, True)),
    ("adaptive_max_pool1d", X3, None, lambda L, F, x, y: F.adaptive_max_pool1d(x, 2, True)),
    ("torch_adaptive_max_pool1d", X3, None, lambda L, F, x, y: L.adaptive_max_pool1d(x, 4)),
    ("conv1d", X3, RNG.standard_normal((6, 2, 3)), lambda L, F, x, w: F.conv1d(x, w, None, 2, 1, 1, 2)),
    ("conv1d_same", X3, RNG.standard_normal((2, 4, 3)), lambda L, F, x, w: F.conv1d(x, w, padding="same", dilation=2)),
    ("conv1d_unbatched", X3[0], RNG.standard_normal((2, 4, 2)), lambda L, F, x, w: L.conv1d(x, w)),
    ("conv_transpose2d", X4, RNG.standard_normal((4, 3, 3, 2)),
     lambda L, F, x, w: F.conv_transpose2d(x, w, None, 2, 1, 1)),
    ("conv_transpose2d_groups", X4, RNG.standard_normal((4, 1, 2, 2)),
     lambda L, F, x, w: F.conv_transpose2d(x, w, L.tensor(B4[:2]), 1, 0, 0, 2, 2)),
    ("group_norm", X4, None, lambda L, F, x, y: F.group_norm(x, 2, L.tensor(W4), L.tensor(B4))),
    ("group_norm_3d", X3, None, lambda L, F, x, y: F.group_norm(x, 4)),
    ("torch_group_norm", X3, None, lambda L, F, x, y: L.group_norm(x, 2, None, None, 1e-3, True)),
    ("instance_norm", X4, None, lambda L, F, x, y: F.instance_norm(x, weight=L.tensor(W4), bias=L.tensor(B4))),
    ("bce_logits", X3, P3, lambda L, F, x, t: F.binary_cross_entropy_with_logits(x, t)),
    ("bce_logits_weights", X3, P3, lambda L, F, x, t: F.binary_cross_entropy_with_logits(
        x, t, L.tensor(P3[0]), reduction="sum", pos_weight=L.tensor(W4[:, None] * np.ones(5)))),
    ("torch_bce_logits", X3, P3, lambda L, F, x, t: L.binary_cross_entropy_with_logits(x, t, None, None, 0)),
    ("smooth_l1", X3, T3, lambda L, F, x, t: F.smooth_l1_loss(x, t, beta=0.5)),
    ("smooth_l1_none", X3, T3, lambda L, F, x, t: F.smooth_l1_loss(x, t, reduction="none")),
    ("smooth_l1_beta0", X3, T3, lambda L, F, x, t: F.smooth_l1_loss(x, t, beta=0.0)),
    ("huber", X3, T3, lambda L, F, x, t: F.huber_loss(x, t, delta=0.6, reduction="sum")),
    ("huber_weight", X3, T3, lambda L, F, x, t: F.huber_loss(x, t, weight=L.tensor(P3))),
    ("kl_div_batchmean", X3, P3, lambda L, F, x, t: F.kl_div(x, t, reduction="batchmean")),
    ("kl_div_none", X3, P3, lambda L, F, x, t: F.kl_div(x, t, reduction="none")),
    ("kl_div_log_target", X3, T3, lambda L, F, x, t: F.kl_div(x, t, reduction="sum", log_target=True)),
    ("torch_kl_div", X3, P3, lambda L, F, x, t: L.kl_div(x, t, 2)),
    ("cosine_similarity", X3, T3, lambda L, F, x, t: F.cosine_similarity(x, t)),
    ("cosine_similarity_bcast", X3, T3[:1], lambda L, F, x, t: L.cosine_similarity(x, t, -1, 1e-4)),
    ("pairwise_distance", X3, T3, lambda L, F, x, t: F.pairwise_distance(x, t, 3.0, keepdim=True)),
    ("dropout2d_eval", X4, None, lambda L, F, x, y: F.dropout2d(x, 0.4, training=False) * 2),
]


def _run(lib, F, x, y, fn):
    xs = lib.tensor(x, requires_grad=True)
    ys = None if y is None else lib.tensor(y, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, F, xs, ys)
    return xs, ys, (list(out) if isinstance(out, tuple) else [out])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch, case):
    _, x, y, fn = case
    xc, yc, oc = _run(core, CF, x, y, fn)
    xt, yt, ot = _run(torch, torch.nn.functional, x, y, fn)
    for a, b in zip(oc, ot, strict=True):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert (a.grad_fn is None) == (b.grad_fn is None)
        if a.grad_fn is not None and "pairwise" not in case[0]:   # core's norm node is LinalgVectorNorm
            assert a.grad_fn.name() == b.grad_fn.name()
    diff = [i for i, o in enumerate(ot) if o.requires_grad]
    wc = [core.tensor(RNG.standard_normal(tuple(oc[i].shape))) for i in diff]
    wt = [torch.tensor(w.numpy()) for w in wc]
    lc = sum((oc[i] * w).sum() for i, w in zip(diff, wc))
    lt = sum((ot[i] * w).sum() for i, w in zip(diff, wt))
    ins_c = [t for t in (xc, yc) if t is not None]
    ins_t = [t for t in (xt, yt) if t is not None]
    gc = core.autograd.grad(lc, ins_c, create_graph=True, allow_unused=True)
    gt = torch.autograd.grad(lt, ins_t, create_graph=True, allow_unused=True)
    for a, b in zip(gc, gt):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-11)
    # double backward: d/dx of sum(grad^2)
    sc = sum((g * g).sum() for g in gc if g is not None and g.requires_grad)
    st = sum((g * g).sum() for g in gt if g is not None and g.requires_grad)
    hc = [None] * len(ins_c) if isinstance(sc, int) else core.autograd.grad(sc, ins_c, allow_unused=True)
    ht = [None] * len(ins_t) if isinstance(st, int) else torch.autograd.grad(st, ins_t, allow_unused=True)
    for a, b in zip(hc, ht):   # None (no path), zeros and torch's ZeroTensor are the same second derivative
        a = None if a is None else a.numpy()
        b = None if b is None else b.numpy(force=True)
        if a is not None or b is not None:
            np.testing.assert_allclose(a if a is not None else np.zeros_like(b),
                                       b if b is not None else np.zeros_like(a), rtol=1e-7, atol=1e-9)


def test_plain_backward_matches_torch(torch):
    """The NumPy backward paths (no create_graph) of the new Ops."""
    for name, x, y, fn in CASES:
        xc, yc, oc = _run(core, CF, x, y, fn)
        xt, yt, ot = _run(torch, torch.nn.functional, x, y, fn)
        if not ot[0].requires_grad:
            continue
        (oc[0] * oc[0]).sum().backward()
        (ot[0] * ot[0]).sum().backward()
        np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name)


def test_float32(torch):
    x = X4.astype(np.float32)
    for fn in (lambda L, F: F.silu(L.tensor(x)), lambda L, F: F.adaptive_avg_pool2d(L.tensor(x), 3),
               lambda L, F: F.group_norm(L.tensor(x), 2), lambda L, F: F.softplus(L.tensor(x))):
        a, b = fn(core, CF), fn(torch, torch.nn.functional)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=2e-6)


def test_instance_norm_running_stats(torch):
    rc, vc, rt, vt = core.zeros(4), core.ones(4), torch.zeros(4), torch.ones(4)
    CF.instance_norm(core.tensor(X4), rc, vc, momentum=0.3)
    torch.nn.functional.instance_norm(torch.tensor(X4), rt, vt, momentum=0.3)
    np.testing.assert_allclose(rc.numpy(), rt.numpy(), rtol=1e-6)
    np.testing.assert_allclose(vc.numpy(), vt.numpy(), rtol=1e-6)


def test_dropout2d_zeroes_whole_channels():
    core.manual_seed(0)
    out = CF.dropout2d(core.ones(8, 16, 3, 3), 0.5)
    per_channel = out.numpy().reshape(8, 16, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert per_channel.min() == 0.0 and per_channel.max() == 2.0


def test_kl_div_mean_warns_like_torch(torch):
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size") as wc:
        CF.kl_div(core.tensor(X3), core.tensor(P3))
    with pytest.warns(UserWarning) as wt:
        torch.nn.functional.kl_div(torch.tensor(X3), torch.tensor(P3))
    assert str(wc[0].message) == str(wt[0].message)


def _z(L, *shape, dtype=None):
    return L.zeros(*shape, dtype=dtype or L.float32)


ERRORS = [
    lambda L, F: F.adaptive_avg_pool2d(_z(L, 5), 2),
    lambda L, F: F.adaptive_max_pool2d(_z(L, 5), 2),
    lambda L, F: F.adaptive_max_pool2d(_z(L, 2, 0, 3, 3), 2),
    lambda L, F: F.adaptive_avg_pool2d(_z(L, 2, 3, 3), (2, 2, 2)),
    lambda L, F: F.adaptive_avg_pool1d(_z(L, 5), 2),
    lambda L, F: F.adaptive_max_pool1d(_z(L, 5), 2),
    lambda L, F: F.adaptive_avg_pool2d(_z(L, 1, 2, 3, dtype=L.long), 2),
    lambda L, F: F.conv1d(_z(L, 5), _z(L, 3, 4, 2)),
    lambda L, F: F.conv1d(_z(L, 2, 5, 7), _z(L, 3, 4, 2)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 3), _z(L, 3, 4, 5)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2), _z(L, 4)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2), stride=0),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2, 2)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2), padding="same", stride=2),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 2, 2), groups=2),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2), stride=(1, 2)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7, dtype=L.float64), _z(L, 3, 4, 2)),
    lambda L, F: F.conv1d(_z(L, 2, 4, 7), _z(L, 3, 4, 2), padding=-1),
    lambda L, F: F.conv_transpose2d(_z(L, 5), _z(L, 4, 3, 2, 2)),
    lambda L, F: F.conv_transpose2d(_z(L, 2, 5, 3, 3), _z(L, 4, 3, 2, 2)),
    lambda L, F: F.conv_transpose2d(_z(L, 2, 4, 3, 3), _z(L, 4, 3, 2, 2), _z(L, 4)),
    lambda L, F: F.conv_transpose2d(_z(L, 2, 4, 3, 3), _z(L, 4, 3, 2, 2), output_padding=2),
    lambda L, F: F.group_norm(_z(L, 2, 6, 3), 4),
    lambda L, F: F.group_norm(_z(L, 2, 6, 3), 3, _z(L, 5)),
    lambda L, F: F.group_norm(_z(L, 6), 3),
    lambda L, F: F.group_norm(_z(L, 1, 2), 2),
    lambda L, F: F.group_norm(_z(L, 2, 6, 3, dtype=L.long), 3),
    lambda L, F: F.instance_norm(_z(L, 2, 3, 1)),
    lambda L, F: F.instance_norm(_z(L, 2, 3, 4), _z(L, 2), _z(L, 3)),
    lambda L, F: F.binary_cross_entropy_with_logits(_z(L, 3), _z(L, 4)),
    lambda L, F: F.binary_cross_entropy_with_logits(_z(L, 3), _z(L, 3), reduction="x"),
    lambda L, F: F.binary_cross_entropy_with_logits(_z(L, 3, dtype=L.long), _z(L, 3, dtype=L.long)),
    lambda L, F: F.smooth_l1_loss(_z(L, 3), _z(L, 3), beta=-1),
    lambda L, F: F.smooth_l1_loss(_z(L, 3, dtype=L.long), _z(L, 3, dtype=L.long)),
    lambda L, F: F.huber_loss(_z(L, 3), _z(L, 3), delta=0),
    lambda L, F: F.huber_loss(_z(L, 3, dtype=L.long), _z(L, 3, dtype=L.long)),
    lambda L, F: F.kl_div(_z(L, 3), _z(L, 3), reduction="foo"),
    lambda L, F: F.cosine_similarity(_z(L, 3), _z(L, 4)),
    lambda L, F: F.cosine_similarity(_z(L, 3, dtype=L.long), _z(L, 3, dtype=L.long)),
    lambda L, F: F.pairwise_distance(_z(L, 2, 3), _z(L, 2, 4)),
    lambda L, F: F.silu(_z(L, 3, dtype=L.long)),
    lambda L, F: F.elu(_z(L, 3, dtype=L.long)),
    lambda L, F: F.softplus(_z(L, 3, dtype=L.long)),
    lambda L, F: F.logsigmoid(_z(L, 3, dtype=L.long)),
    lambda L, F: F.dropout2d(_z(L, 2, 3, 4), 1.5),
    lambda L, F: F.embedding_bag(L.tensor([0, 1]), _z(L, 3, 2)),
    lambda L, F: F.embedding_bag(L.tensor([[0, 1]]), _z(L, 3, 2), L.tensor([0])),
    lambda L, F: F.embedding_bag(L.tensor([0, 1]), _z(L, 3, 2), L.tensor([0]), mode="prod"),
    lambda L, F: F.embedding_bag(L.tensor([0, 1]), _z(L, 3, 2), L.tensor([0]), mode="max",
                                 per_sample_weights=_z(L, 2)),
    lambda L, F: F.embedding_bag(L.tensor([0, 1]), _z(L, 3), L.tensor([0])),
    lambda L, F: F.embedding_bag(L.tensor([[[0, 1]]]), _z(L, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch, i):
    fn = ERRORS[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as et:
            fn(torch, torch.nn.functional)
        with pytest.raises(type(et.value)) as ec:
            fn(core, CF)
    assert str(ec.value) == str(et.value)


def test_hardtanh_keeps_integer_dtype(torch):
    a = CF.hardtanh(core.tensor([3, -2, 0]))
    b = torch.nn.functional.hardtanh(torch.tensor([3, -2, 0]))
    assert str(a.dtype) == str(b.dtype) and a.tolist() == b.tolist()


def test_inplace_activations(torch):
    for name in ("silu", "elu", "hardtanh"):
        a = core.tensor(X3).clone()
        b = torch.tensor(X3).clone()
        ra = getattr(CF, name)(a, inplace=True)
        rb = getattr(torch.nn.functional, name)(b, inplace=True)
        assert ra is a and rb is b
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
