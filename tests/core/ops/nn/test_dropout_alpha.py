"""The dropouts of core/ops/nn/dropout_alpha.py (alpha, feature alpha, dropout1d/3d) against torch: the keep
mask drawn from torch's generator stream (same output, grad_fn and gradient bit for bit), rank warnings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF
from tests.core.ops.nn.test_small_layers import VOL


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

