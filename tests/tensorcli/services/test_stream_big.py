"""A 600 MB memory-mapped .npy under an address-space limit (RLIMIT_AS) of the file's size + 256 MiB:
`show` (and --json), reductions over every element (`sum`, `std`), `sum --dim 1` and `gather --dim 1
-o` pass through the console script, with torch's values (sums and show's mean bit for bit: torch's
order, one thread). The op commands stream (services/run_op.stream_request -> services/stream.py);
full sums reduce the map in bounded blocks (core/_sum_order.py).

RLIMIT_AS counts the file's mapping too, so whatever a command allocates beyond it (a float64 copy,
a bool mask, the ordered sum's blocks) must fit in 256 MiB with the interpreter and NumPy: stricter
than a data limit of half the file (RLIMIT_DATA does not count the mapping). The file is sparse
(mostly zeros, written in a few blocks: quick to make); skipped below 2 GB of free disk."""
from __future__ import annotations

from paths import ROOT

import json
import os
import resource
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROWS, COLS = 614400, 256                        # 600 MiB of float32
LIMIT = ROWS * COLS * 4 + 256 * 1024 ** 2


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("as")
    if shutil.disk_usage(d).free < 2 * 1024 ** 3:
        pytest.skip("less than 2 GB of free disk")
    path = d / "big.npy"
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(ROWS, COLS))
    base = np.random.default_rng(23).standard_normal((2048, COLS), dtype=np.float32)
    for r in range(0, ROWS, 2048 * 24):           # one block in 24 written: ~25 MB
        out[r:r + 2048] = base * np.float32(1 + r / ROWS)
    out.flush()
    del out
    np.save(d / "idx.npy", np.stack([np.arange(ROWS) % COLS, (np.arange(ROWS) * 7) % COLS], 1))
    yield d
    os.unlink(path)


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _run(d, *args):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "tensorcli", *args], capture_output=True, text=True, timeout=600,
                       preexec_fn=_limited, env=env, cwd=d)
    assert p.returncode == 0 and p.stderr == "", p.stderr[-2000:]
    return p.stdout


@pytest.fixture(scope="module")
def want(big):
    """torch's results, once, with one thread: its sum order is the one core reproduces."""
    torch = pytest.importorskip("torch")
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x = torch.from_numpy(np.load(big / "big.npy", mmap_mode="c"))   # copy-on-write: torch wants writable
        idx = torch.from_numpy(np.load(big / "idx.npy"))
        return {"sum": x.sum().item(), "mean": x.mean().item(), "std": x.std().item(), "min": x.min().item(),
                "max": x.max().item(), "sum1": x.sum(1).numpy().copy(), "gather": torch.gather(x, 1, idx).numpy()}
    finally:
        torch.set_num_threads(n)


def test_the_limit_is_real(big):
    p = subprocess.run([sys.executable, "-c", "import numpy as np; np.ones(%d, np.uint8)" % LIMIT],
                       capture_output=True, text=True, preexec_fn=_limited)
    assert p.returncode != 0 and "MemoryError" in p.stderr


def test_full_sum_is_torchs_bit_for_bit(big, want):
    got = json.loads(_run(big, "sum", "big.npy", "--json"))["result"]["data"]
    assert np.float32(got).tobytes() == np.float32(want["sum"]).tobytes(), (got, want["sum"])


def test_std_over_every_element(big, want):
    got = json.loads(_run(big, "std", "big.npy", "--unbiased", "--json"))["result"]["data"]
    assert got == pytest.approx(want["std"], rel=1e-6)


def test_show_json(big, want):
    """The statistics (stats) and the result's summary: every pass `show` makes, and more."""
    s = json.loads(_run(big, "show", "big.npy", "--json"))
    assert s["stats"]["numel"] == ROWS * COLS and s["stats"]["mean"] == want["mean"]
    assert s["stats"]["std"] == pytest.approx(want["std"], rel=1e-6)
    summ = s["result"]["summary"]
    assert s["result"]["truncated"] and summ["min"] == want["min"] and summ["max"] == want["max"]


def test_sum_over_dim_1_to_a_file(big, want):
    _run(big, "sum", "big.npy", "--dim", "1", "-o", "s1.npy")
    np.testing.assert_array_equal(np.load(big / "s1.npy"), want["sum1"])


def test_gather_over_dim_1_to_a_file(big, want):
    _run(big, "gather", "big.npy", "--dim", "1", "--index", "idx.npy", "-o", "g.npy")
    np.testing.assert_array_equal(np.load(big / "g.npy"), want["gather"])
