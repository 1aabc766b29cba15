"""services.stream: ops streamed from a memory-mapped .npy, forced into tiny blocks, give core's
in-memory result bit for bit (values, dtype, shape, errors); outputs are atomic; -o - is np.save's
bytes; io's memory maps, .npz budget and atomic output; show's statistics against torch."""
from __future__ import annotations

import io as _io
import os
import sys
import zipfile

import numpy as np
import pytest

import core
from tensorcli import io as tio
from tensorcli.errors import CliError
from tensorcli.io import npyfile
from tensorcli.services import show, stream

SHAPES = [(7, 5, 3), (9, 4), (11,), (1, 6, 2)]
DTYPES = [np.float32, np.float64, np.int64, np.int32, np.bool_]


def _array(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind == "i":
        return rng.integers(-1000, 1000, shape).astype(dtype)
    a = (rng.standard_normal(shape) * 100).astype(dtype)
    if a.size > 3:
        a.flat[2] = np.nan if a.size % 2 else a.flat[2]
    return a


def _same(got, expected):
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.fixture
def saved(tmp_path):
    def save(a, name="x.npy"):
        p = str(tmp_path / name)
        np.save(p, a)
        return p
    return save


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", stream.REDUCTIONS)
def test_reductions_equal_core(saved, shape, dtype, op):
    rng = np.random.default_rng(abs(hash((shape, op))) % 2**32)
    a = _array(rng, shape, dtype)
    p = saved(a)
    for dim in range(-len(shape), len(shape)):
        for keepdim in (False, True):
            try:
                expected = getattr(core, op)(core.from_numpy(a), dim, keepdim=keepdim)._data
            except RuntimeError as e:
                with pytest.raises(type(e), match=str(e)[:30].replace("(", r"\(").replace(")", r"\)")):
                    stream.run(op, p, dim=dim, keepdim=keepdim, block_bytes=8)
                continue
            got = stream.run(op, p, dim=dim, keepdim=keepdim, block_bytes=8)
            if a.ndim == 1 and op != "amax" and a.dtype.kind == "f":
                # a long vector is summed in float64 partials: the correctly rounded sum
                exact = a.astype(np.float64).sum()
                ref = np.float32(exact) if op == "sum" else np.float32(np.float32(exact) / np.float32(a.size))
                np.testing.assert_array_equal(got, np.asarray(ref, dtype=a.dtype).reshape(expected.shape))
                continue
            _same(got, expected)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_movement_ops_equal_core(saved, shape, dtype):
    rng = np.random.default_rng(len(shape) * 7 + np.dtype(dtype).itemsize)
    a = _array(rng, shape, dtype)
    p = saved(a)
    x = core.from_numpy(a)
    for dim in range(-len(shape), len(shape)):
        n = shape[dim]
        ishape = tuple(max(1, s - 1) if k != dim % len(shape) else s + 2 for k, s in enumerate(shape))
        idx = core.from_numpy(rng.integers(0, n, ishape))
        _same(stream.run("gather", p, dim=dim, index=idx, block_bytes=8), core.gather(x, dim, idx)._data)
        vec = core.from_numpy(rng.integers(0, n, (n + 3,)))
        _same(stream.run("index_select", p, dim=dim, index=vec, block_bytes=8),
              core.index_select(x, dim, vec)._data)
        _same(stream.run("narrow", p, dim=dim, start=1, length=n - 1, block_bytes=8),
              core.narrow(x, dim, 1, n - 1)._data)
        _same(stream.run("narrow", p, dim=dim, start=-n, length=1, block_bytes=8), core.narrow(x, dim, -n, 1)._data)
        _same(stream.run("flip", p, dim=dim, block_bytes=8), core.flip(x, dim)._data)


ERROR_CASES = [   # (op, dim, arguments): each refused by core; the stream must raise the same
    ("gather", 1, {"index": [[0, 9]]}), ("gather", 1, {"index": [[[0]]]}), ("gather", 1, {"index": [[0]] * 12}),
    ("gather", 3, {"index": [[0]]}), ("index_select", 1, {"index": [0, 7]}),
    ("index_select", 0, {"index": [[0]]}), ("narrow", 1, {"start": 2, "length": 9}),
    ("sum", 2, {}), ("mean", 0, {}),
]


@pytest.mark.parametrize("op, dim, args", ERROR_CASES)
def test_errors_are_core_errors(saved, op, dim, args):
    a = np.arange(36, dtype=np.int64 if op == "mean" else np.float32).reshape(9, 4)
    p = saved(a)
    args = {k: core.tensor(v) if k == "index" else v for k, v in args.items()}
    with pytest.raises(Exception) as expected:
        getattr(core, op)(core.from_numpy(a), dim, *args.values())
    with pytest.raises(Exception) as got:
        stream.run(op, p, dim=dim, block_bytes=8, **args)
    if isinstance(got.value, CliError):   # a dim out of range names the --dim option
        assert "Dimension out of range" in got.value.message and str(got.value.message) in str(expected.value)
    else:
        assert type(got.value) is type(expected.value) and str(got.value) == str(expected.value)


def test_output_file_is_np_save_bytes_and_atomic(saved, tmp_path):
    a = np.random.default_rng(0).standard_normal((50, 3, 2)).astype(np.float32)
    p = saved(a)
    out = str(tmp_path / "o.npy")
    assert stream.run("flip", p, out, dim=1, block_bytes=16) == out
    ref = str(tmp_path / "ref.npy")
    np.save(ref, np.flip(a, 1))
    assert open(out, "rb").read() == open(ref, "rb").read()
    with pytest.raises(RuntimeError, match="out of bounds"):   # the failure comes after blocks were written
        stream.run("gather", p, str(tmp_path / "bad.npy"), dim=1,
                   index=core.from_numpy(np.r_[np.zeros((49, 3, 1), np.int64), np.full((1, 3, 1), 7)]), block_bytes=16)
    assert sorted(os.listdir(tmp_path)) == ["o.npy", "ref.npy", "x.npy"]


def test_stdout_is_np_save_bytes(saved, monkeypatch):
    a = np.arange(24, dtype=np.int32).reshape(6, 4)
    p = saved(a)
    buf = _io.BytesIO()
    monkeypatch.setattr(sys, "stdout", type("S", (), {"buffer": buf, "flush": lambda self: None,
                                                     "isatty": lambda self: False})())
    stream.run("sum", p, "-", dim=1, block_bytes=16)
    ref = _io.BytesIO()
    np.save(ref, core.sum(core.from_numpy(a), 1)._data)
    assert buf.getvalue() == ref.getvalue()


def test_progress_reports_every_block(saved):
    p = saved(np.zeros((10, 4), np.float32))
    calls = []
    stream.run("amax", p, dim=1, block_bytes=16, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 10) for k in range(1, 11)]


def test_non_streaming_op_is_refused(saved):
    with pytest.raises(CliError, match="does not stream"):
        stream.run("cumsum", saved(np.zeros(3)), dim=0)


# io: memory maps, .npz budget, atomic output -------------------------------------------------

def test_large_npy_is_memory_mapped_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(npyfile, "MMAP_MIN_BYTES", 0)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = str(tmp_path / "m.npy")
    np.save(p, a)
    t = tio.load_tensor(p, arg="INPUT")
    base = t._data
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert isinstance(base, np.memmap)
    np.testing.assert_array_equal(t.numpy(), a)
    with open(p, "r+b") as f:   # truncated after the header was written
        f.truncate(os.path.getsize(p) - 4)
    with pytest.raises(CliError, match="truncated"):
        tio.load_tensor(p, arg="INPUT")


def test_npz_member_costs_what_it_holds(tmp_path):
    """A member whose header claims more than it holds is refused after reading what it holds."""
    hdr = _io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "<f4", "fortran_order": False, "shape": (10**7,)})
    p = str(tmp_path / "lie.npz")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", hdr.getvalue() + b"\0" * 400)
    with pytest.raises(CliError, match="truncated: header says 40000000 bytes, the archive member has 400"):
        tio.load_tensor(p, arg="INPUT")
    buf = npyfile.read_member(_io.BytesIO(b"\1" * 100), 60, limit=1000)
    assert bytes(buf) == b"\1" * 60
    with pytest.raises(MemoryError):
        npyfile.read_member(_io.BytesIO(b""), 2000, limit=1000)


def test_atomic_output_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "o.npy"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        with npyfile.atomic_output(str(target)) as tmp:
            open(tmp, "wb").write(b"partial")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == ["o.npy"] and target.read_bytes() == b"old"
    with npyfile.atomic_output(str(target)) as tmp:
        open(tmp, "wb").write(b"new")
    assert target.read_bytes() == b"new" and os.stat(target).st_mode & 0o777 == 0o666 & ~_umask()


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def test_save_result_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "o.npy"
    target.write_bytes(b"old")

    def boom(*a, **k):
        raise MemoryError
    monkeypatch.setattr(np.lib.format, "write_array", boom)
    with pytest.raises(MemoryError):
        tio.save_result(core.tensor([1.0]), str(target))
    assert os.listdir(tmp_path) == ["o.npy"] and target.read_bytes() == b"old"


# show: chunked statistics in torch's precision ---------------------------------------------

@pytest.mark.parametrize("n", [10, 1000, 123_457])
def test_show_mean_is_torch_mean_of_the_exact_sum(torch, monkeypatch, n):
    """float32: torch.mean = float32(float32(sum) / n); show uses the correctly rounded sum, which is
    torch's float64 sum rounded (torch's own float32 sum varies with its thread count)."""
    monkeypatch.setattr(show, "CHUNK", 1000)
    a = (np.random.default_rng(n).standard_normal(n) + 3).astype(np.float32)
    t = torch.from_numpy(a)
    s = show.stats(core.from_numpy(a))
    exact_sum = torch.sum(t.double()).float()
    assert s["mean"] == (exact_sum / n).item()
    assert abs(s["mean"] - torch.mean(t).item()) <= np.spacing(np.float32(s["mean"]))
    assert s["std"] == pytest.approx(torch.std(t).item(), rel=1e-6)
    assert (s["min"], s["max"]) == (torch.min(t).item(), torch.max(t).item())


def test_show_counts_nan_inf_across_chunks(torch, monkeypatch):
    monkeypatch.setattr(show, "CHUNK", 3)
    a = np.array([1, np.nan, 2, np.inf, 5, 6, 7, -np.inf, 9, 10, 11, 12], np.float32)
    t = torch.from_numpy(a)
    s = show.stats(core.from_numpy(a))
    finite = t[torch.isfinite(t)]
    assert (s["nan"], s["inf"]) == (torch.isnan(t).sum().item(), torch.isinf(t).sum().item())
    assert s["mean"] == torch.mean(finite).item() and s["std"] == pytest.approx(torch.std(finite).item(), rel=1e-6)


def test_show_progress(saved, monkeypatch):
    monkeypatch.setattr(show, "CHUNK", 4)
    calls = []
    show.stats(core.from_numpy(np.arange(10, dtype=np.float32)), progress=lambda d, t: calls.append((d, t)))
    assert calls == [(4, 10), (8, 10), (10, 10)]


def test_which_op_commands_stream(saved, monkeypatch):
    """services/run_op.stream_request: a large .npy INPUT, no --dtype, and -o FILE.npy / -o - (not
    with --json) for movements, a reduction over one int dim for reductions."""
    from core.ops.registry import OPS
    from tensorcli.services import run_op
    from tensorcli.spec import classify
    monkeypatch.setattr(run_op, "MMAP_MIN_BYTES", 0)
    p = saved(np.zeros((4, 4), np.float32))
    idx = "[[0],[1],[2],[3]]"

    def req(op, out, **vals):
        specs = classify(OPS[op])
        values = {"p_" + s.name: None for s in specs}
        values.update({"p_input": p, "cli_out": out, "cli_json": False, "cli_dtype": None}, **vals)
        return run_op.stream_request(OPS[op], specs, values)
    assert req("gather", "o.npy", p_dim="1", p_index=idx) is not None and req("flip", "-", p_dims="0") is not None
    assert req("sum", None, p_dim="1") is not None and req("mean", "o.json", p_dim="0") is not None
    assert req("sum", None, p_dim=None) is None and req("sum", None, p_dim="0,1") is None    # not one dim
    assert req("gather", None, p_dim="1", p_index=idx) is None                               # printed
    assert req("gather", "o.json", p_dim="1", p_index=idx) is None
    assert req("gather", "o.npy", p_dim="1", p_index=idx, cli_json=True) is None
    assert req("gather", "o.npy", p_dim="1", p_index=idx, cli_dtype="float64") is None
    assert req("cumsum", "o.npy", p_dim="1") is None
    assert req("gather", "o.npy", p_dim="1", p_index=idx, p_input="[[1.0]]") is None
    monkeypatch.setattr(run_op, "MMAP_MIN_BYTES", 1 << 30)
    assert req("gather", "o.npy", p_dim="1", p_index=idx) is None                            # small: loaded
