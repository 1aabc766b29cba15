"""The installed `tensorcli` console script in real processes: pipes, exit codes, terminals."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from core.ops.registry import OPS
from tensorcli import opspec

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _script():
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    return here if os.path.exists(here) else shutil.which("tensorcli")


SCRIPT = _script()
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="tensorcli console script not installed (pip install -e .)")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "NO_COLOR")}


def need(*ops):
    for op in ops:
        if op not in OPS or not opspec.is_command(op):
            pytest.skip(f"{op} has no command yet")


def run(*args, input=None, env=None):
    return subprocess.run([SCRIPT, *map(str, args)], input=input, capture_output=True, timeout=60,
                          env={**ENV, **(env or {})})


def test_three_step_pipe_matches_torch(torch):
    need("gather", "scatter_add")
    x, i1 = "[[1,2,3],[4,5,6]]", "[[0,2],[1,0]]"
    i2, src = "[[1,1],[0,1]]", "[[10,20],[30,40]]"
    p1 = subprocess.Popen([SCRIPT, "gather", x, "--dim", "1", "--index", i1, "-o", "-"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p2 = subprocess.Popen([SCRIPT, "scatter-add", "-", "--dim", "1", "--index", i2, "--src", src, "-o", "-"],
                          stdin=p1.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p1.stdout.close()
    p3 = subprocess.run([SCRIPT, "show", "-", "--json"], stdin=p2.stdout, capture_output=True, env=ENV,
                        timeout=60)
    p2.stdout.close()
    assert p1.wait(60) == 0 and p2.wait(60) == 0 and p3.returncode == 0, p3.stderr
    assert p1.stderr.read() == b"" and p2.stderr.read() == b""
    ref = torch.tensor([[1, 2, 3], [4, 5, 6]]).gather(1, torch.tensor([[0, 2], [1, 0]]))
    ref = ref.scatter_add(1, torch.tensor([[1, 1], [0, 1]]), torch.tensor([[10, 20], [30, 40]]))
    res = json.loads(p3.stdout)["result"]
    assert res["data"] == ref.tolist() and res["dtype"] == "int64"


def test_json_output_in_a_process_equals_torch(torch):
    need("gather")
    r = run("gather", "[[1.5,2],[3,4]]", "--dim", 0, "--index", "[[1,0]]", "--json")
    assert r.returncode == 0 and r.stderr == b""
    res = json.loads(r.stdout)["result"]
    ref = torch.tensor([[1.5, 2], [3, 4]]).gather(0, torch.tensor([[1, 0]]))
    assert res == {"shape": [1, 2], "dtype": str(ref.dtype).removeprefix("torch."), "numel": ref.numel(),
                   "data": ref.tolist(), "truncated": False, "summary": None}


def test_bad_input_exits_2_with_one_line_and_no_traceback():
    need("gather")
    r = run("gather", "[[1,2],[3,4]]", "--dim", 1, "--index", "[[0,7],[1,0]]")
    err = r.stderr.decode()
    assert r.returncode == 2 and r.stdout == b""
    assert err.count("\n") == 1 and err.startswith("tensorcli: error: gather: ") and "Traceback" not in err


def test_usage_error_is_one_line():
    r = run("show")
    assert r.returncode == 2
    assert ANSI.sub("", r.stderr.decode()) == "tensorcli: error: Missing argument 'TENSOR'. (see 'tensorcli show --help')\n"


def test_version():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.decode().startswith("tensorcli ")


def test_output_to_a_pipe_has_no_colour():
    r = run("show", "[[1,2],[3,4]]")
    assert r.returncode == 0 and not ANSI.search(r.stdout.decode())


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_binary_output_to_a_terminal_is_refused():
    need("transpose")
    master, slave = os.openpty()
    try:
        p = subprocess.run([SCRIPT, "transpose", "[[1,2]]", "--dim0", "0", "--dim1", "1", "-o", "-"],
                           stdout=slave, stderr=subprocess.PIPE, env=ENV, timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    assert p.returncode == 2
    assert b"refusing to write binary .npy data to a terminal" in p.stderr


def test_closed_pipe_is_quiet(tmp_path):
    path = str(tmp_path / "big.npy")
    np.save(path, np.zeros((300, 300)))
    p = subprocess.Popen([SCRIPT, "show", path, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p.stdout.read(10)
    p.stdout.close()
    p.wait(60)
    assert b"Traceback" not in p.stderr.read()
