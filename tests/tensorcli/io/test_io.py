"""tensorcli.io: tensor arguments in (JSON, .npy, .npz[:key], .json, stdin), results out."""
from __future__ import annotations

from paths import TESTS

import io
import json
import os
import sys

import numpy as np
import pytest

import core
from tensorcli import io as tio
from tensorcli.errors import CliError

DATA = os.path.join(TESTS, "data")


def data(name):
    return os.path.join(DATA, name)


class FakeStdin:
    def __init__(self, payload: bytes, tty=False):
        self.buffer = io.BytesIO(payload)
        self._tty = tty

    def isatty(self):
        return self._tty


@pytest.fixture
def stdin(monkeypatch):
    def set_(payload, tty=False):
        monkeypatch.setattr(sys, "stdin", FakeStdin(payload, tty))
    return set_


def load(spec, **kw):
    return tio.load_tensor(spec, arg="INPUT", **kw)


# -- JSON literals ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,dtype,shape", [
    ("[[1,2,3],[4,5,6]]", "int64", (2, 3)),
    ("[1.5, 2]", "float32", (2,)),
    ("3", "int64", ()),
    ("true", "bool", ()),
    ("[true, false]", "bool", (2,)),
    ("[]", "float32", (0,)),
    ("[[]]", "float32", (1, 0)),
])
def test_json_literal_infers_dtype_like_torch_tensor(torch, text, dtype, shape):
    t = load(text)
    ref = torch.tensor(json.loads(text))
    assert str(t.dtype) == str(ref.dtype) == f"torch.{dtype}"
    assert tuple(t.shape) == tuple(ref.shape) == shape


def test_json_nan_and_infinity_literals_and_strings():
    t = load('[NaN, Infinity, -Infinity, "NaN", "-inf", 1]')
    a = t.numpy()
    assert np.isnan(a[0]) and np.isnan(a[3])
    assert a[1] == np.inf and a[2] == -np.inf and a[4] == -np.inf and a[5] == 1


def test_json_object_with_dtype_and_shape():
    t = load('{"data": [[1, 2], [3, 4]], "dtype": "int32"}')
    assert str(t.dtype) == "torch.int32"
    empty = load('{"data": [], "dtype": "float64", "shape": [0, 3]}')
    assert tuple(empty.shape) == (0, 3) and str(empty.dtype) == "torch.float64"


def test_json_output_of_a_command_reads_back():
    obj = {"op": "gather", "result": {"shape": [2], "dtype": "int16", "data": [7, 8]}}
    t = load(json.dumps(obj))
    assert t.tolist() == [7, 8] and str(t.dtype) == "torch.int16"


def test_dtype_option_casts():
    t = load("[1, 2]", dtype="float64")
    assert str(t.dtype) == "torch.float64"


@pytest.mark.parametrize("text,needle", [
    ("[[1,2],[3]]", "ragged"),
    ("[1, 2", "invalid JSON"),
    ("[1, null]", "null"),
    ('["a"]', "string"),
    ("[" * 40 + "1" + "]" * 40, "nested"),
    ('{"dtype": "int32"}', '"data"'),
    ('{"data": [1], "dtype": "complex64"}', "unknown dtype"),
    ('{"data": [1, 2], "shape": [3]}', '"shape"'),
    ("", "empty"),
])
def test_bad_json_is_a_cli_error_naming_the_argument(text, needle):
    with pytest.raises(CliError) as e:
        load(text)
    assert e.value.arg == "INPUT"
    assert needle in e.value.message


def test_json_size_limit(monkeypatch):
    monkeypatch.setenv("TENSORCLI_MAX_JSON_BYTES", "10")
    with pytest.raises(CliError, match="exceeds the limit"):
        load("[1, 2, 3, 4, 5, 6]")


# -- files -------------------------------------------------------------------------------------

def test_npy_file():
    t = load(data("x.npy"))
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]] and str(t.dtype) == "torch.int64"


def test_npy_fortran_order_and_big_endian():
    assert load(data("fortran.npy")).tolist() == [[0, 1, 2], [3, 4, 5]]
    t = load(data("big_endian.npy"))
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]] and str(t.dtype) == "torch.int32"


def test_npy_result_is_writable_and_owns_its_data():
    t = load(data("x.npy"))
    assert t.numpy().flags.writeable


def test_npz_with_key_and_single_array_without_key():
    assert load(data("pair.npz") + ":index").tolist() == [[0, 2], [1, 0]]
    assert load(data("single.npz")).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_npz_without_key_among_several_lists_the_keys():
    with pytest.raises(CliError, match="index, x"):
        load(data("pair.npz"))


def test_npz_unknown_key():
    with pytest.raises(CliError, match="no array 'nope'"):
        load(data("pair.npz") + ":nope")


def test_json_file():
    assert load(data("x.json")).tolist() == [[1, 2, 3], [4, 5, 6]]


@pytest.mark.parametrize("name,needle", [
    ("object.npy", "never unpickles"),
    ("complex.npy", "unsupported dtype"),
    ("strings.npy", "unsupported dtype"),
    ("truncated.npy", "truncated"),
    ("huge_header.npy", "above the allocation limit"),
    ("empty.npy", "empty"),
    ("corrupt.npz", "corrupt"),
    ("not_zip.npz", "corrupt"),
    ("ragged.json", "ragged"),
    ("garbage.bin", "not .npy, .npz or JSON"),
    ("missing.npy", "no such file"),
])
def test_bad_files_are_refused(name, needle):
    with pytest.raises(CliError) as e:
        load(data(name))
    assert needle in e.value.message


def test_directory_is_refused():
    with pytest.raises(CliError, match="directory"):
        load(DATA)


# -- stdin -------------------------------------------------------------------------------------

def _npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def test_stdin_npy(stdin):
    stdin(_npy_bytes(np.arange(4, dtype=np.int16)))
    t = load("-")
    assert t.tolist() == [0, 1, 2, 3] and str(t.dtype) == "torch.int16"


def test_stdin_npz_with_key(stdin):
    b = io.BytesIO()
    np.savez(b, a=np.ones(2), b=np.zeros(3))
    stdin(b.getvalue())
    assert load("-:b").tolist() == [0, 0, 0]


def test_stdin_json(stdin):
    stdin(b"  [[1, 2]]\n")
    assert load("-").tolist() == [[1, 2]]


def test_stdin_read_once(stdin):
    stdin(b"[1]")
    used = []
    load("-", stdin_used=used)
    with pytest.raises(CliError, match="only be read once"):
        tio.load_tensor("-", arg="--index", stdin_used=used)


def test_stdin_terminal_is_refused(stdin):
    stdin(b"", tty=True)
    with pytest.raises(CliError, match="terminal"):
        load("-")


@pytest.mark.parametrize("payload,needle", [
    (b"", "empty"),
    (bytes(range(256)), "not .npy, .npz or JSON"),
    (b"\x93NUMPY\x01\x00", "invalid .npy header"),
    (b"PK\x03\x04junk", "corrupt"),
])
def test_bad_stdin(stdin, payload, needle):
    stdin(payload)
    with pytest.raises(CliError) as e:
        load("-")
    assert needle in e.value.message


# -- small parsers -----------------------------------------------------------------------------

def test_parse_ints_forms():
    assert tio.parse_ints("1,0,2", arg="--dims") == (1, 0, 2)
    assert tio.parse_ints("[3, -1]", arg="--shape") == (3, -1)
    assert tio.parse_ints("(2,)", arg="--shape") == (2,)
    assert tio.parse_ints("", arg="--at") == ()
    with pytest.raises(CliError, match="integers"):
        tio.parse_ints("1,x", arg="--dims")


def test_parse_number_forms():
    assert tio.parse_number("3", arg="--value") == 3
    assert tio.parse_number("-2.5", arg="--value") == -2.5
    assert tio.parse_number("inf", arg="--value") == float("inf")
    assert tio.parse_number("True", arg="--value") is True
    with pytest.raises(CliError):
        tio.parse_number("abc", arg="--value")


def test_parse_dtype_aliases_and_error():
    assert tio.parse_dtype("long") is core.int64
    assert tio.parse_dtype("torch.float16") is core.float16
    with pytest.raises(CliError, match="unknown dtype 'complex64'"):
        tio.parse_dtype("complex64")


# -- results out -------------------------------------------------------------------------------

def test_result_json_encodes_nonfinite_as_strings():
    t = core.tensor([1.0, float("nan"), float("inf"), float("-inf")])
    obj = tio.result_json(t)
    assert obj == {"shape": [4], "dtype": "float32", "data": [1.0, "NaN", "Infinity", "-Infinity"]}
    json.loads(tio.dumps(obj))  # strict JSON
    back = load(tio.dumps(obj)).numpy()
    assert np.isnan(back[1]) and back[2] == np.inf


def test_save_and_reload_every_format(tmp_path):
    t = core.tensor([[1.5, 2.0]], dtype=core.float64)
    for ext in ("npy", "npz", "json"):
        p = str(tmp_path / f"out.{ext}")
        tio.save_result(t, p)
        back = load(p)
        assert back.tolist() == [[1.5, 2.0]] and str(back.dtype) == "torch.float64"


def test_save_tuple_needs_npz_or_json(tmp_path):
    pair = (core.tensor([1]), core.tensor([2, 3]))
    with pytest.raises(CliError, match="2 tensors"):
        tio.save_result(pair, str(tmp_path / "x.npy"))
    tio.save_result(pair, str(tmp_path / "x.npz"))
    assert load(str(tmp_path / "x.npz") + ":out1").tolist() == [2, 3]


def test_save_unknown_extension(tmp_path):
    with pytest.raises(CliError, match="unknown output extension"):
        tio.save_result(core.tensor([1]), str(tmp_path / "x.txt"))


def test_save_to_stdout_refuses_a_terminal(monkeypatch):
    monkeypatch.setattr(tio, "stdout_is_terminal", lambda: True)
    with pytest.raises(CliError, match="terminal"):
        tio.save_result(core.tensor([1]), "-")


# -- property: every supported dtype and shape survives every format -------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DTYPES), st.lists(st.integers(0, 3), max_size=3), st.sampled_from(["npy", "npz", "json"]),
       st.integers(0, 2 ** 16))
def test_round_trip_property(tmp_path_factory, dtype, shape, ext, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(np.abs(rng.standard_normal(shape)) * 50).astype(dtype)
    if a.dtype.kind == "f" and a.size:
        a.flat[0] = np.nan
    t = core.from_numpy(a)
    path = str(tmp_path_factory.mktemp("rt") / f"t.{ext}")
    tio.save_result(t, path)
    back = load(path)
    assert str(back.dtype) == f"torch.{dtype}" and tuple(back.shape) == a.shape
    np.testing.assert_array_equal(back.numpy(), a)
