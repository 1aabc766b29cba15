"""The exit-code contract (tensorcli/errors.py) through the installed console script, in real
processes: 0 ok (also when stdout's reader went away), 1 only for a failed check, 2 for bad usage,
bad input, refused allocations and out of memory (one line), 130 for Ctrl-C without a traceback."""
from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest


def _script():
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    return here if os.path.exists(here) else shutil.which("tensorcli")


SCRIPT = _script()
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="tensorcli console script not installed (pip install -e .)")
ENV = {**{k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}, "NO_COLOR": "1"}


def run(*args, env=None, **kw):
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, timeout=120,
                          env={**ENV, **(env or {})}, **kw)


def one_error_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert text.count("\n") == 1 and text.startswith("tensorcli: error: "), text
    assert "Traceback" not in text and "internal error" not in text, text
    return text


def test_ok_is_0():
    assert run("gather", "[[1,2],[3,4]]", "--dim", "1", "--index", "[[0],[1]]").returncode == 0


@pytest.mark.parametrize("args", [
    ("gather", "[[1,2]]", "--dim", "1", "--index", "[[5]]"),       # bad input (core refuses)
    ("gather", "[[1,2]]", "--dim", "1"),                             # missing option
    ("gather", "[[1,2]", "--dim", "1", "--index", "[[0]]"),         # malformed literal
    ("no-such-command",),
    ("show", "/nonexistent.npy"),
])
def test_bad_usage_and_bad_input_are_2(args):
    r = run(*args)
    assert r.returncode == 2
    one_error_line(r.stderr)


def test_refused_allocation_is_2_and_names_the_flag():
    r = run("repeat", "[1.0]", "--sizes", "60000,60000", env={"TENSORCLI_MAX_BYTES": "1GiB"})
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert "--max-bytes" in line and "set_allocation_limit" not in line


def test_out_of_memory_is_2_one_line():
    """NumPy's MemoryError (the limit raised above what the process may map) -> 2, one line."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    r = run("repeat", "[1.0]", "--sizes", "60000,60000", env={"TENSORCLI_MAX_BYTES": "100GiB"},
            preexec_fn=limit)
    assert r.returncode == 2
    assert "out of memory" in one_error_line(r.stderr)


def test_malformed_max_bytes_environment_is_2():
    r = run("show", "[1]", env={"TENSORCLI_MAX_BYTES": "lots"})
    assert r.returncode == 2 and "TENSORCLI_MAX_BYTES" in one_error_line(r.stderr)


def test_check_failure_is_1_malformed_case_file_is_2(tmp_path):
    good = tmp_path / "ok.toml"
    good.write_text('[[case]]\nname = "g"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\n'
                    'expect = [[2]]\n')
    bad = tmp_path / "bad.toml"
    bad.write_text('[[case]]\nname = "g"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\n'
                   'expect = [[1]]\n')
    broken = tmp_path / "broken.toml"
    broken.write_text('[[case]]\nname = \n')
    assert run("check", good).returncode == 0
    assert run("check", bad).returncode == 1
    assert run("check", broken).returncode == 2


@pytest.mark.parametrize("args", [
    ("--help",), ("gather", "--help"), ("ops",), ("--man",),
    ("show", "[[1,2],[3,4]]"),
    ("flip", "[1.0, 2.0, 3.0]", "--dims", "0", "-o", "-"),
    ("gather", "[[1,2],[3,4]]", "--dim", "1", "--index", "[[0],[1]]", "--json"),
])
def test_closed_stdout_pipe_is_0_and_quiet(args):
    """`tensorcli ... | head -1`: the reader left before the output was written."""
    p = subprocess.Popen([SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p.stdout.close()   # every write now fails with EPIPE
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0, err
    assert err == b""


def _numpy_loaded(pid) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "_multiarray_umath" in f.read()
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc")
@pytest.mark.parametrize("extra_delay", [0.0, 0.05, 0.3, 1.0])
def test_ctrl_c_is_130_without_traceback(extra_delay):
    """SIGINT once tensorcli's code runs (the interpreter's own start-up, site and .pth files, is
    before any of it): while the command imports core, computes, or finishes."""
    args = ["memory", "--model", "Linear(300,300) -> ReLU() -> Linear(300,300)", "--input-shape", "200,300",
            "--batches", "40", "--backward"]
    p = subprocess.Popen([SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    deadline = time.monotonic() + 60
    while not _numpy_loaded(p.pid) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(extra_delay)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the command finished before the signal")
    assert p.returncode == 130, err
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err, err
    assert err.strip() == b"", err


def test_python_dash_m_is_the_same_program():
    r = subprocess.run([sys.executable, "-m", "tensorcli", "--version"], capture_output=True, env=ENV, timeout=60)
    assert r.returncode == 0 and r.stdout.decode().startswith("tensorcli ")
    r = subprocess.run([sys.executable, "-m", "tensorcli", "gather", "[[1]]", "--dim", "1", "--index", "[[3]]"],
                       capture_output=True, env=ENV, timeout=60)
    assert r.returncode == 2
