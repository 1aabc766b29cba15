"""Every seed snippet (tests/seeds/, taken from ../shared/seeds/) runs unchanged with
`import core as torch` and prints exactly what PyTorch prints. The torch side is
tests/golden/seeds.json (made by scripts/make_seed_golden.py), so this runs without torch;
test_golden_matches_live_torch re-checks the golden file when torch is installed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden", "seeds.json")
sys.path.insert(0, HERE)
from seed_runner import snippets  # noqa: E402


def _run(backend):
    r = subprocess.run([sys.executable, os.path.join(HERE, "seed_runner.py"), backend],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def core_outputs():
    return _run("core")


@pytest.fixture(scope="module")
def golden():
    with open(GOLDEN, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", snippets())
def test_seed_snippet_prints_what_torch_prints(name, core_outputs, golden):
    if name not in golden:
        pytest.fail(f"no golden output for {name}: run scripts/make_seed_golden.py")
    got = core_outputs[name]
    assert got["error"] is None, got["error"]
    assert got["stdout"] == golden[name]["stdout"]


def test_golden_matches_live_torch(golden, torch):
    live = _run("torch")
    for name, rec in live.items():
        assert rec["error"] is None, f"{name}: {rec['error']}"
        assert golden.get(name, {}).get("stdout") == rec["stdout"], f"golden output of {name} is stale"
