"""torch.backends.mha.set_fastpath_enabled: with the fast path off, an eval TransformerEncoderLayer takes the
ordinary path (a float mask is added, not turned into a block mask), as torch's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core


@pytest.mark.parametrize("enabled", [True, False])
def test_fastpath_switch_changes_eval_encoder_results_as_torch(torch, enabled):
    res = []
    for L in (core, torch):
        L.manual_seed(0)
        layer = L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()
        src = L.tensor(np.linspace(-1, 1, 48, dtype=np.float32).reshape(2, 3, 8))
        mask = L.tensor(np.linspace(-0.5, 0.5, 9, dtype=np.float32).reshape(3, 3))
        L.backends.mha.set_fastpath_enabled(enabled)
        try:
            assert L.backends.mha.get_fastpath_enabled() is enabled
            with warnings.catch_warnings(), L.no_grad():
                warnings.simplefilter("ignore")
                res.append(layer(src, src_mask=mask).numpy())
        finally:
            L.backends.mha.set_fastpath_enabled(True)
    assert np.isnan(res[0]).all() == np.isnan(res[1]).all()
    np.testing.assert_allclose(res[0], res[1], rtol=1e-5, atol=1e-5)
