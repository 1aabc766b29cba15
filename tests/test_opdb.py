"""PyTorch's own operator database as a differential test: every OpInfo core has a counterpart for,
its samples (capped), method and in-place variants, gradients and error inputs, compared with torch.

Known disagreements are recorded per OpInfo in tests/opdb_baseline.json (written by
`python scripts/opdb_report.py --cap 5 --write-baseline`, each listed with its reason in the
README); a test fails when an OpInfo disagrees on more samples than its baseline allows, so a
regression fails CI and a fix shows up as a baseline that can be lowered."""
from __future__ import annotations

import json
import pathlib

import pytest

import opdb

CAP = 5
BASELINE = json.loads((pathlib.Path(__file__).parent / "opdb_baseline.json").read_text())
_DB = opdb.load_op_db()
_OPS = [op for op in (_DB or ()) if not opdb.OUT_OF_SCOPE.match(op.name) and opdb.core_counterpart(op)]


@pytest.mark.skipif(_DB is None, reason="torch with expecttest not installed")
@pytest.mark.parametrize("op", _OPS, ids=[opdb.opinfo_id(op) for op in _OPS])
def test_opinfo_agrees_with_torch(op, torch):
    res = opdb.run_opinfo(op, torch, cap=CAP)
    allowed = BASELINE.get(res.id, {})
    by_kind = {}
    for kind, dtype, detail in res.failures:
        by_kind.setdefault(kind, []).append(f"{dtype} {detail}")
    over = {k: v for k, v in by_kind.items() if len(v) > allowed.get(k, 0)}
    assert not over, "\n".join(f"{k} ({len(v)} > baseline {allowed.get(k, 0)}): " + " | ".join(v[:3])
                               for k, v in over.items())


@pytest.mark.skipif(_DB is None, reason="torch with expecttest not installed")
def test_op_db_has_core_counterparts_for_at_least_468_opinfos():
    assert len(_OPS) >= 468
