"""A 1 GiB memory-mapped .npy processed in a process whose memory limit is half the file:
`tensorcli show`, `tensorcli sum --dim 1` and `tensorcli gather --dim 1` through the console
script (the op commands stream: services/run_op.stream_request -> services/stream.py).

The limit is RLIMIT_DATA (private writable memory: heap, anonymous maps), set in a preexec_fn.
RLIMIT_AS cannot express "less memory than the file": it counts address space, and a memory map
of a 1 GiB file takes 1 GiB of address space while holding next to none of it in memory.
The file is generated once per module and deleted after; skipped below 3 GB of free disk."""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys

import numpy as np
import pytest

import core

ROWS, COLS = 1 << 20, 256                       # 2**28 float32 = 1 GiB
LIMIT = 512 * 1024 * 1024                       # half the file
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script():
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    return here if os.path.exists(here) else shutil.which("tensorcli")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("big")
    if shutil.disk_usage(d).free < 3 * 1024**3:
        pytest.skip("less than 3 GB of free disk")
    path = str(d / "big.npy")
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(ROWS, COLS))
    step = 1 << 15
    base = np.random.default_rng(16).standard_normal((step, COLS), dtype=np.float32)
    for r in range(0, ROWS, step):   # cheap to write: one random block, scaled per step
        out[r:r + step] = base * np.float32(1 + r / ROWS)
    out[5, 7] = np.nan
    out.flush()
    del out
    yield path
    os.unlink(path)


def _limited():
    resource.setrlimit(resource.RLIMIT_DATA, (LIMIT, LIMIT))


def _run(args, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run(args, capture_output=True, text=True, timeout=600, preexec_fn=_limited, env=env, **kw)


def _reference_stats(path):
    """Chunked float64 sums in this process (the oracle for a file too big to hand to torch here)."""
    x = np.load(path, mmap_mode="r").reshape(-1)
    n = s = 0
    for i in range(0, x.size, 1 << 24):
        b = x[i:i + (1 << 24)]
        b = b[np.isfinite(b)]
        n, s = n + b.size, s + b.astype(np.float64).sum()
    return n, s


def test_the_limit_is_real(big):
    p = _run([sys.executable, "-c", "import numpy as np; np.ones(%d, np.uint8)" % (LIMIT * 2)])
    assert p.returncode != 0 and "MemoryError" in p.stderr


@pytest.mark.skipif(_script() is None, reason="tensorcli console script not installed")
def test_show_big_file_under_memory_limit(big):
    p = _run([_script(), "show", big])
    assert p.returncode == 0, p.stderr[-2000:]
    assert "nan 1  inf 0" in p.stdout and f"{ROWS * COLS} elements" in p.stdout
    n, s = _reference_stats(big)
    mean = float(np.float32(np.float32(s) / np.float32(n)))
    assert f"mean {mean:.6g}" in p.stdout


def _index(rows):
    return np.stack([np.arange(rows) % COLS, (np.arange(rows) * 7) % COLS], 1)


@pytest.mark.parametrize("op", ["sum", "gather"])
@pytest.mark.skipif(_script() is None, reason="tensorcli console script not installed")
def test_streaming_command_big_file_under_memory_limit(big, tmp_path, op):
    """`tensorcli sum/gather BIG.npy --dim 1 -o out.npy` stream (services/run_op.stream_request)."""
    out = str(tmp_path / f"{op}.npy")
    if op == "sum":
        args = ["sum", big, "--dim", "1", "-o", out]
    else:
        np.save(tmp_path / "idx.npy", _index(ROWS))          # 16 MiB: read, not mapped
        args = ["gather", big, "--dim", "1", "--index", str(tmp_path / "idx.npy"), "-o", out]
    p = _run([_script(), *args])
    assert p.returncode == 0 and p.stderr == "", p.stderr[-2000:]
    got = np.load(out)
    x = np.load(big, mmap_mode="r")
    rows = np.r_[0:3, 5, 4096:4100, ROWS - 3:ROWS]
    if op == "sum":
        assert got.shape == (ROWS,) and got.dtype == np.float32
        np.testing.assert_array_equal(got[rows], core.from_numpy(np.asarray(x[rows])).sum(1).numpy())
        assert np.isnan(got[5]) and np.isfinite(np.delete(got, 5)).all()
    else:
        assert got.shape == (ROWS, 2)
        idx = _index(ROWS)
        np.testing.assert_array_equal(got[rows], np.take_along_axis(np.asarray(x[rows]), idx[rows], 1))
