"""--max-bytes bounds what a command allocates in all (services/budget.py: the process's RLIMIT_DATA),
for allocations no per-op estimate sees: issue 23's examples, each refused with exit 2 and one line
(or run within the budget), with resident growth at most the budget + SLACK.

The commands run in a child process (tests/budget_child.py), never in the test process."""
from __future__ import annotations

from paths import ROOT

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tensorcli.services import budget

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or budget.vm_data() is None,
                                reason="RLIMIT_DATA and /proc/self/status are Linux's")

MiB = 1024 ** 2
ERROR_PATH = 16 * MiB   # the error path itself (traceback objects, formatting) after a refusal


def run_child(commands, tmp_path, env=None):
    """[{argv, code, stderr, growth}] for `commands` run one after another in a child process."""
    cmd, res = tmp_path / "commands.json", tmp_path / "results.json"
    cmd.write_text(json.dumps(commands))
    e = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", NO_COLOR="1")
    e.pop("TENSORCLI_MAX_BYTES", None)
    e.update(env or {})
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "budget_child.py"), str(cmd), str(res)],
                       capture_output=True, text=True, timeout=300, env=e, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(res.read_text())


def assert_bounded(r, budget_bytes):
    """Exit 0, or exit 2 with one line; resident growth within the budget + SLACK."""
    assert r["code"] in (0, 2), r
    if r["code"] == 2:
        lines = r["stderr"].strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tensorcli: error:"), r
        assert "internal error" not in lines[0] and "Traceback" not in r["stderr"], r
    assert r["growth"] <= budget_bytes + budget.SLACK + ERROR_PATH, (r["argv"], r["growth"] / MiB)


V = "v.npy"   # 20,000 float32: an outer product of it is 1.5 GiB

EXPRESSIONS = [
    "torch.zeros(1).as_strided((20000,20000),(0,0)).double()",
    "torch.zeros(1).as_strided((20000,20000),(0,0)) + 1",
    "torch.zeros(1).as_strided((20000,20000),(0,0)).contiguous()",
    "torch.zeros(1).as_strided((20000,20000),(0,0)).exp()",
    "torch.einsum('i,j->ij', v, v)",
    "torch.tensordot(v, v, dims=0)",
    "torch.addr(torch.zeros(1, 1), v, v)",
    "torch.linalg.multi_dot([v[:, None], v[None, :]])",
    "torch.zeros(1, 20000).index_select(0, torch.zeros(20000, dtype=torch.long))",
    "torch.zeros(1, 20000)[torch.zeros(20000, dtype=torch.long)]",
    "torch.nn.functional.embedding(torch.zeros(20000, dtype=torch.long), torch.zeros(1, 20000))",
    "torch.zeros(0, 10**8).sum(0)",
    "torch.multinomial(torch.ones(2), 10**8, True)",
    "torch.bincount(torch.tensor([0]), minlength=10**9)",
    "torch.pdist(torch.zeros(20000, 1))",
    "torch.cov(torch.zeros(20000, 2))",
    "torch.corrcoef(torch.zeros(20000, 2))",
    "torch.combinations(torch.arange(20000.))",
    "torch.zeros(10**6, 0).tolist()",
    "torch.zeros(10**6, 0).unbind()",
    "torch.nn.UninitializedParameter().materialize((10**5, 10**5))",
]


CASES = """
[[case]]
name = "outer past the budget"
expr = "torch.outer(v, v)"
let = {v = "v.npy"}
expect_shape = [20000, 20000]

[[case]]
name = "a view made dense"
expr = "torch.zeros(1).as_strided((20000,20000),(0,0)).double()"
expect_shape = [20000, 20000]

[[case]]
name = "small"
expr = "x + 1"
let = {x = [1.0]}
expect = [2.0]
"""

DENSE = CASES.split("[[case]]")[2]   # the 3 GB case alone


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every command of this module, in one child process: {label: result}."""
    d = tmp_path_factory.mktemp("budget")
    np.save(d / V, np.arange(20000, dtype=np.float32))
    np.save(d / "w.npy", np.arange(2000, dtype=np.float32))     # outer: 15 MiB
    (d / "c.toml").write_text(CASES)
    (d / "dense.toml").write_text("[[case]]" + DENSE)
    lim = ["--max-bytes", "10MiB"]
    cmds = {f"eval {e}": ["eval", e, "--let", f"v={V}", *lim] for e in EXPRESSIONS}
    rest = {
        "outer": ["outer", V, "--vec2", V, *lim], "kron": ["kron", V, "--other", V, *lim],
        "cartesian-prod": ["cartesian-prod", V, V, *lim],
        "grad": ["grad", "torch.outer(v, v).sum()", "--let", f"v={V}", "--requires-grad", "v", *lim],
        "graph": ["graph", "torch.outer(v, v).sum()", "--let", f"v={V}", "--requires-grad", "v", *lim],
        "modes": ["modes", "torch.outer(v, v).sum()", "--let", f"v={V}", "--requires-grad", "v", *lim],
        "memory": ["memory", "torch.outer(v, v).sum()", "--let", f"v={V}", *lim],
        "memory model": ["memory", "--model", "ConvTranspose2d(1,1,1,stride=20000)", "--input-shape", "1,1,4,4",
                         *lim],
        "env": {"argv": ["eval", "torch.zeros(1).as_strided((20000,20000),(0,0)).double()"],
                "env": {"TENSORCLI_MAX_BYTES": "10MiB"}},
        "within eval": ["eval", "torch.outer(w, w).sum()", "--let", "w=w.npy", "--max-bytes", "64MiB"],
        "within outer": ["outer", "w.npy", "--vec2", "w.npy", "--max-bytes", "64MiB", "-o", "o.npy"],
        "check": ["check", "c.toml", "--max-bytes", "10MiB", "--json"],
        "check default": ["check", "dense.toml", "--json"],
        # last: it imports torch into the child (with the limit lifted), which the commands above must not see
        "check against torch": ["check", "c.toml", "--max-bytes", "10MiB", "--against-torch", "--json"],
    }
    cmds.update(rest)
    out = run_child(list(cmds.values()), d)
    return d, dict(zip(cmds, out))


REFUSED = [f"eval {e}" for e in EXPRESSIONS] + ["outer", "kron", "cartesian-prod", "grad", "graph", "modes",
                                                "memory", "memory model", "env"]


@pytest.mark.parametrize("label", REFUSED)
def test_each_example_is_refused_in_one_line_within_the_budget(results, label):
    r = results[1][label]
    assert_bounded(r, 10 * MiB)
    assert r["code"] == 2, r   # each of them needs far more than 10 MiB


def test_the_refusal_names_the_budget(results):
    rs = results[1]
    oom = [r for r in rs.values() if "out of memory" in r["stderr"]]
    assert len(oom) > 10, rs
    assert all("--max-bytes 10 MiB" in r["stderr"] for r in oom), oom
    assert "--max-bytes 10 MiB" in rs["env"]["stderr"]    # TENSORCLI_MAX_BYTES is the same budget


def test_work_within_the_budget_still_runs(results):
    d, rs = results
    assert rs["within eval"]["code"] == 0 and rs["within outer"]["code"] == 0, rs
    v = np.arange(2000, dtype=np.float32)
    np.testing.assert_array_equal(np.load(d / "o.npy"), np.outer(v, v))


def test_check_cases_are_bounded_by_the_budget_and_the_run_goes_on(results):
    r = results[1]["check"]
    assert r["code"] == 1, r                      # two cases fail, the third passes
    status = {c["name"]: c["status"] for c in json.loads(r["stdout"])["cases"]}
    assert status == {"outer past the budget": "error", "a view made dense": "error", "small": "passed"}
    assert_bounded(dict(r, code=0), 10 * MiB)


def test_check_default_budget_is_a_gib(results):
    """Without --max-bytes, check's cases get 1 GiB in all (services/cases.MAX_BYTES): the 3 GB case
    errors instead of running."""
    from tensorcli.services import cases
    assert cases.MAX_BYTES == 1024 ** 3
    r = results[1]["check default"]
    assert r["code"] == 1 and r["growth"] < 256 * MiB, r


def test_in_process_runs_give_the_limit_back():
    """budget.enforced restores the process's RLIMIT_DATA (tests and main() run in-process)."""
    import resource
    before = resource.getrlimit(resource.RLIMIT_DATA)
    with budget.enforced(64 * MiB):
        assert budget.active() == 64 * MiB
        soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
        assert soft <= budget.vm_data() + 64 * MiB + budget.SLACK
        with pytest.raises(MemoryError):
            np.ones(256 * MiB, np.uint8)
    assert resource.getrlimit(resource.RLIMIT_DATA) == before and budget.active() is None


def test_check_against_torch_is_bounded_and_torchs_import_is_not_counted(results):
    """torch's import (~120 MiB of data) happens with the limit lifted; a case's allocations on
    either engine count: the 3 GB case errors on core and is not retried on torch. (Run last in the
    module's child process, so no other command shares its interpreter start.)"""
    pytest.importorskip("torch")
    r = results[1]["check against torch"]
    assert r["code"] == 1 and "Traceback" not in r["stderr"], r
    status = {c["name"]: (c["status"], (c["torch"] or {}).get("status")) for c in json.loads(r["stdout"])["cases"]}
    assert status["small"] == ("passed", "agree"), status
    assert status["a view made dense"][0] == "error" and status["outer past the budget"][0] == "error", status
    assert r["growth"] <= 10 * MiB + budget.SLACK + ERROR_PATH + 200 * MiB, r["growth"] / MiB   # + torch
