"""core/ops/nn/activation.py side by side with torch: hardtanh's argument check."""
from __future__ import annotations

import pytest

import core


def test_hardtanh_refuses_min_above_max(torch):
    for lib in (torch, core):
        with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
            lib.nn.functional.hardtanh(lib.ones(2), 2.0, 1.0)

