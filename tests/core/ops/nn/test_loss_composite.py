"""The torch.* loss entries that take reduction as an enum (margin_ranking_loss, hinge_embedding_loss,
cosine_embedding_loss, triplet_margin_loss, and kl_div / binary_cross_entropy_with_logits from loss.py),
side by side with torch: omitted, the reduction is torch 2.13's binding default (unreduced); 0, 1, 2 given."""
from __future__ import annotations

import numpy as np
import pytest

import core

CALLS = {
    "margin_ranking_loss": ((3,), (3,), "sign3"),
    "hinge_embedding_loss": ((3, 4), "sign34"),
    "cosine_embedding_loss": ((3, 4), (3, 4), "sign3"),
    "triplet_margin_loss": ((3, 4), (3, 4), (3, 4)),
    "kl_div": ((3, 4), (3, 4)),
    "binary_cross_entropy_with_logits": ((3, 4), "unit34"),
}


def _args(spec, rng):
    out = []
    for s in spec:
        if s == "sign3":
            out.append(np.array([1.0, -1.0, 1.0], np.float32))
        elif s == "sign34":
            out.append(np.where(rng.random((3, 4)) < 0.5, -1.0, 1.0).astype(np.float32))
        elif s == "unit34":
            out.append(rng.random((3, 4)).astype(np.float32))
        else:
            out.append(rng.standard_normal(s).astype(np.float32))
    return out


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("reduction", [None, 0, 1, 2])
def test_enum_reduction_default_and_values_are_torchs(torch, name, reduction):
    arrays = _args(CALLS[name], np.random.default_rng(0))
    extra = () if reduction is None else (reduction,)
    if name in ("margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss") and extra:
        extra = (0.5 if name != "hinge_embedding_loss" else 1.0, *extra)
    if name == "triplet_margin_loss" and extra:
        extra = (1.0, 2.0, 1e-6, False, *extra)
    if name == "binary_cross_entropy_with_logits" and extra:
        extra = (None, None, *extra)
    want = getattr(torch, name)(*[torch.from_numpy(a) for a in arrays], *extra)
    got = getattr(core, name)(*[core.from_numpy(a) for a in arrays], *extra)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_triplet_margin_loss_bits(torch, dtype):
    """F.triplet_margin_loss bit for bit, values and the three gradients: pairwise_distance's norm kernel, and
    clamp_min's where(self >= 0, grad, 0) (a negative cotangent leaves +0 in the inactive rows, not -0)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(15)
    arrays = [rng.standard_normal((40, 19)).astype(dtype) for _ in range(3)]
    for reduction, cot in (("mean", -0.7), ("sum", 0.3), ("none", None)):
        res = []
        for lib in (core, torch):
            xs = [lib.from_numpy(v.copy()).requires_grad_(True) for v in arrays]
            out = lib.nn.functional.triplet_margin_loss(*xs, reduction=reduction)
            c = lib.from_numpy(np.linspace(-1, 1, out.numel()).astype(dtype).reshape(tuple(out.shape))) \
                if cot is None else lib.tensor(cot, dtype=out.dtype)
            res.append([out.detach().numpy()] + [g.numpy() for g in lib.autograd.grad(out, xs, c)])
        for o, r in zip(*res):
            assert np.array_equal(np.atleast_1d(o).view(np.uint8), np.atleast_1d(r).view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_soft_margin_loss_is_torchs_bit_for_bit(torch, dtype, reduction):
    """Through log_sigmoid's kernel (contiguous inputs: a transposed input's products take another layout in core,
    so the class sum's order differs)."""
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((7, 37)).astype(dtype) for _ in range(2))
    res = []
    for L in (core, torch):
        xi = L.from_numpy(x.copy()).requires_grad_(True)
        out = L.nn.functional.multilabel_soft_margin_loss(xi * 3, L.from_numpy((y > 0).astype(dtype)),
                                                          reduction=reduction)
        (g,) = L.autograd.grad(out.sum(), xi)
        res.append((out.detach().numpy(), g.numpy()))
    for a, b in zip(*res):
        assert np.array_equal(np.atleast_1d(a).view(np.uint8), np.atleast_1d(b).view(np.uint8))
