"""Vectorized<T>::log1p (SLEEF's log1pf / log1p with FMA) bit for bit against torch.log1p on full vectors."""
import numpy as np
import pytest

from core.ops.nn._vec_log1p import log1pd, log1pf


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log1p_on_log_sigmoids_range_is_torchs(torch, dtype):
    rng = np.random.default_rng(3)
    d = np.concatenate([rng.random(4000), np.exp(-rng.random(4000) * 120), [0.0, 1.0, 0.5, 0.75, 2.0 ** -30]])
    d = d[: d.size - d.size % 16].astype(dtype)          # whole vectors: torch's scalar tail is glibc's log1p
    ours = (log1pf if dtype == "float32" else log1pd)(d)
    ref = torch.log1p(torch.from_numpy(d)).numpy()
    assert np.array_equal(ours.view(np.uint8), ref.view(np.uint8))
