"""Op commands over a memory-mapped .npy INPUT (>= 64 MiB) stream in blocks (services/stream.py via
services/run_op.stream_request), through the installed console script: results equal torch's
(values, dtype, shape) and core's in-memory op bit for bit; errors are the in-memory ones; the
progress bar (render/progress.py) shows only on a terminal, not with --quiet, uncoloured under
NO_COLOR. The 1 GiB run under a memory limit is in tests/tensorcli/services/test_stream_big.py."""
from __future__ import annotations

from paths import ROOT

import io as _io
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import core
from tensorcli.io.npyfile import MMAP_MIN_BYTES

SHAPE = (1 << 17, 8, 16)                         # float32: 64 MiB of data, memory-mapped


def _command():
    """The console script (resolves to this tree through PYTHONPATH), else python -m tensorcli."""
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    script = here if os.path.exists(here) else shutil.which("tensorcli")
    return [script] if script else [sys.executable, "-m", "tensorcli"]


ENV = {**{k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")},
       "PYTHONPATH": ROOT, "OPENBLAS_NUM_THREADS": "1"}


def cli(*args, **kw):
    return subprocess.run(_command() + [str(a) for a in args], capture_output=True, timeout=300, env=ENV, **kw)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("stream")
    rng = np.random.default_rng(16)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    paths = {"x": d / "x.npy", "i1": d / "i1.npy", "i0": d / "i0.npy", "v": d / "v.npy"}
    np.save(paths["x"], x)
    np.save(paths["i1"], rng.integers(0, SHAPE[1], (SHAPE[0], 3, SHAPE[2])))        # gather/take along dim 1
    np.save(paths["i0"], rng.integers(0, SHAPE[0], (1000, SHAPE[1], SHAPE[2])))     # gather along dim 0
    np.save(paths["v"], rng.integers(0, SHAPE[0], 777))                              # index_select dim 0
    assert os.path.getsize(paths["x"]) >= MMAP_MIN_BYTES
    yield {k: str(v) for k, v in paths.items()}, x
    shutil.rmtree(d, ignore_errors=True)


# (command arguments after INPUT, the same op on torch tensors: t (torch), x, loaded files)
CASES = {
    "sum-dim2": (["sum", "--dim", "2"], lambda t, x, f: t.sum(x, 2)),
    "mean-dim0-keepdim": (["mean", "--dim", "0", "--keepdim"], lambda t, x, f: t.mean(x, 0, keepdim=True)),
    "gather-dim1": (["gather", "--dim", "1", "--index", "i1"], lambda t, x, f: t.gather(x, 1, f["i1"])),
    "gather-dim0": (["gather", "--dim", "0", "--index", "i0"], lambda t, x, f: t.gather(x, 0, f["i0"])),
    "index-select-dim0": (["index-select", "--dim", "0", "--index", "v"],
                          lambda t, x, f: t.index_select(x, 0, f["v"])),
    "narrow": (["narrow", "--dim", "0", "--start", "-100000", "--length", "70000"],
               lambda t, x, f: t.narrow(x, 0, -100000, 70000)),
    "flip": (["flip", "--dims", "0,2"], lambda t, x, f: t.flip(x, (0, 2))),
    "take-along-dim": (["take-along-dim", "--indices", "i1", "--dim", "1"],
                       lambda t, x, f: t.take_along_dim(x, f["i1"], 1)),
    "permute": (["permute", "--dims", "1,0,2"], lambda t, x, f: t.permute(x, (1, 0, 2))),
    "transpose": (["transpose", "--dim0", "2", "--dim1", "-1"], lambda t, x, f: t.transpose(x, 2, -1)),
}


def _args(rest, paths):
    return [paths.get(a, a) if a in ("i0", "i1", "v") else a for a in rest]


@pytest.mark.parametrize("case", list(CASES))
def test_streamed_command_equals_torch_and_in_memory_core(torch, files, tmp_path, case):
    paths, x = files
    rest, ref = CASES[case]
    out = tmp_path / "out.npy"
    p = cli(rest[0], paths["x"], *_args(rest[1:], paths), "-o", out)
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b"", p.stderr
    got = np.load(out)
    loaded = {k: np.load(v) for k, v in paths.items() if k != "x"}
    want = ref(torch, torch.from_numpy(x), {k: torch.from_numpy(v) for k, v in loaded.items()})
    assert got.shape == tuple(want.shape) and str(got.dtype) == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
    mem = ref(core, core.from_numpy(x), {k: core.from_numpy(v) for k, v in loaded.items()})
    assert np.array_equal(got, mem.numpy())           # the in-memory op, bit for bit


@pytest.mark.parametrize("dim", [0, 2])
def test_cat_of_files_streams_and_promotes_as_torch(torch, files, tmp_path, dim):
    paths, x = files
    other = np.arange(5 * 8 * 16, dtype=np.int32).reshape(5, 8, 16) if dim == 0 else \
        np.arange(SHAPE[0] * 8 * 3).reshape(SHAPE[0], 8, 3)                      # int32 / int64 -> float32
    np.save(tmp_path / "o.npy", other)
    out = tmp_path / "cat.npy"
    p = cli("cat", paths["x"], tmp_path / "o.npy", paths["x"], "--dim", dim, "-o", out)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    got = np.load(out)
    want = torch.cat([torch.from_numpy(x), torch.from_numpy(other), torch.from_numpy(x)], dim)
    assert got.shape == tuple(want.shape) and str(got.dtype) == str(want.dtype).replace("torch.", "")
    assert np.array_equal(got, want.numpy())


def test_stdout_stream_is_np_save_bytes(files, tmp_path):
    paths, x = files
    p = cli("narrow", paths["x"], "--dim", "1", "--start", "2", "--length", "3", "-o", "-")
    assert p.returncode == 0, p.stderr
    ref = tmp_path / "ref.npy"
    np.save(ref, np.ascontiguousarray(x[:, 2:5]))
    assert p.stdout == ref.read_bytes()


def test_reduction_result_is_printed_and_json(torch, files):
    """A reduction's small result comes back in memory: printed, or as JSON."""
    paths, x = files
    p = cli("sum", paths["x"], "--dim", "0", "--json", "--full-data")
    assert p.returncode == 0, p.stderr
    import json
    res = json.loads(p.stdout)["result"]
    want = torch.from_numpy(x).sum(0)
    assert res["shape"] == list(want.shape) and res["dtype"] == "float32"
    got = np.array(res["data"], np.float32)
    assert np.array_equal(got, core.from_numpy(x).sum(0).numpy())   # the in-memory op, bit for bit
    # torch sums 131072 float32 values in another order than NumPy's row by row (core in memory too)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-3, atol=1e-2)
    p = cli("mean", paths["x"], "--dim", "1")
    assert p.returncode == 0 and p.stdout.startswith(b"mean(dim=1) -> float32 [131072, 16]"), p.stderr


def test_streamed_errors_are_the_in_memory_errors(files, tmp_path):
    """--dtype float32 (a no-op cast here) turns streaming off: the same command in memory."""
    paths, _ = files
    out = tmp_path / "e.npy"
    for rest in (["gather", "--dim", "5", "--index", paths["i1"]], ["sum", "--dim", "-4"], ["cat", paths["v"]],
                 ["narrow", "--dim", "0", "--start", "5", "--length", str(SHAPE[0])],
                 ["permute", "--dims", "0,0,1"], ["flip", "--dims", "1,1"]):
        streamed = cli(rest[0], paths["x"], *rest[1:], "-o", out)
        in_memory = cli(rest[0], paths["x"], *rest[1:], "-o", out, "--dtype", "float32")
        assert streamed.returncode == in_memory.returncode == 2
        assert streamed.stderr == in_memory.stderr and streamed.stderr.count(b"\n") == 1
        assert not out.exists()


def _main(app, argv):
    with pytest.raises(SystemExit) as e:
        app.main(argv)
    assert e.value.code in (0, None)


def test_commands_stream_instead_of_loading(files, tmp_path, monkeypatch, capsys):
    """In process: INPUT is never loaded for a streamed command; --explain and a movement printed
    to the terminal fall back to the in-memory op (they need the whole result)."""
    from tensorcli import app, io
    from tensorcli.services import stream
    paths, _ = files
    loaded, ran = [], []
    real_load, real_run = io.load_tensor, stream.run
    monkeypatch.setattr(io, "load_tensor", lambda spec, **kw: loaded.append(spec) or real_load(spec, **kw))
    monkeypatch.setattr(stream, "run", lambda *a, **kw: ran.append(a[0]) or real_run(*a, **kw))
    _main(app, ["gather", paths["x"], "--dim", "1", "--index", paths["i1"], "-o", str(tmp_path / "g.npy")])
    assert ran == ["gather"] and paths["x"] not in loaded
    ran.clear()
    _main(app, ["narrow", paths["x"], "--dim", "0", "--start", "0", "--length", "2"])
    assert ran == [] and paths["x"] in loaded
    capsys.readouterr()


# -- the progress bar ---------------------------------------------------------------------------

class _Tty(_io.StringIO):
    def isatty(self):
        return True


def _bar_output(monkeypatch, *, no_color=False, quiet=False, tty=True, delay=0.0):
    from tensorcli.render.progress import progress_bar
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TENSORCLI_QUIET", "1" if quiet else "")
    s = _Tty() if tty else _io.StringIO()
    with progress_bar("gather", no_color=no_color, stream=s, delay=delay) as update:
        if update is not None:
            for k in range(1, 5):
                update(k, 5)
    return update, s.getvalue()


def test_progress_bar_on_a_terminal(monkeypatch):
    update, text = _bar_output(monkeypatch)
    assert update is not None and "gather" in text and "━" in text


def test_progress_bar_without_colour_still_draws(monkeypatch):
    _, text = _bar_output(monkeypatch, no_color=True)
    assert "gather" in text and "━" in text and "\x1b[3" not in text   # no colour codes


def test_progress_bar_silent_off_terminal_quiet_or_short(monkeypatch):
    assert _bar_output(monkeypatch, tty=False) == (None, "")
    assert _bar_output(monkeypatch, quiet=True) == (None, "")
    update, text = _bar_output(monkeypatch, delay=60.0)   # work shorter than the delay: nothing shown
    assert update is not None and text == ""


def test_quiet_command_prints_nothing_on_stderr(files, tmp_path):
    paths, _ = files
    p = cli("-q", "sum", paths["x"], "--dim", "1", "-o", tmp_path / "q.npy")
    assert p.returncode == 0 and p.stderr == b""
