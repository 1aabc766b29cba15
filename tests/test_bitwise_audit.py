"""The bit-exact set only grows: every op pinned in tests/bitwise_exact.json (per dtype) still matches torch
bit for bit, values and gradients, on scripts/bitwise_audit.py's pin audit (small shapes, contiguous and
transposed). `python scripts/bitwise_audit.py --write-pins` adds newly exact ops."""
import json
import math
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import bitwise_audit  # noqa: E402

with open(os.path.join(HERE, "bitwise_exact.json")) as _f:
    PINS = json.load(_f)


@pytest.mark.parametrize("dtype", sorted(PINS))
def test_pinned_ops_stay_bit_exact(torch, dtype):
    rows = bitwise_audit.pin_rows(PINS[dtype], dtype)
    audited = {r["name"] for r in rows}
    assert audited == set(PINS[dtype]), sorted(set(PINS[dtype]) - audited)
    broken = [(r["name"], r["differ"], r["max_ulp"], r["grad_differ"], r.get("error")) for r in rows if not r["exact"]]
    assert broken == []


def test_audit_measures_ulp_distance():
    import numpy as np
    a = np.array([1.0, -0.0, 2.0, np.nan], np.float32)
    b = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, 2.0, np.nan], np.float32)
    assert bitwise_audit.compare_arrays(a, b) == (4, 2, 1)
    assert bitwise_audit.compare_arrays(a[:1].astype(np.float64), np.array([np.nan]))[2] == math.inf
