"""Hostile tensor inputs (issue 23): files, headers, JSON and expressions an attacker can put in a
pull request. Each is refused before anything is allocated or read past its limit, with exit 2 and
one line naming the argument and what is wrong: no traceback, no "internal error", and never a
byte of the data file quoted."""
from __future__ import annotations

import io
import os
import struct
import zipfile

import numpy as np
import pytest

from hostile import SECRET, assert_refused, invoke, run_bounded


def npy_bytes(header: str, *, version=(1, 0), data=b""):
    """A .npy file with `header` as written (no checks: hostile headers are the point)."""
    h = header.encode("latin1")
    fmt = "<H" if version == (1, 0) else "<I"
    pad = 64 - (8 + struct.calcsize(fmt) + len(h) + 1) % 64
    h += b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(h)) + h + data


def put(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


F32 = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }"


# -- .npy headers ------------------------------------------------------------------------------

def test_header_claiming_750m_floats_in_a_small_file_is_refused_before_allocating(tmp_path):
    p = put(tmp_path, "lie.npy", npy_bytes(F32 % "(750000000,)", data=b"\0" * 16))
    assert p.stat().st_size <= 160
    code, out, err = invoke(["show", p])
    assert_refused(code, err, "TENSOR", "truncated: header says 3000000000 bytes, file has 16")


def test_npz_member_header_larger_than_the_member_is_refused(tmp_path):
    p = tmp_path / "lie.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", npy_bytes(F32 % "(750000000,)", data=b"\0" * 16))
    code, out, err = invoke(["show", p])
    assert_refused(code, err, "truncated: header says 3000000000 bytes, the archive member has 16")


@pytest.mark.parametrize("header, version, words", [
    (F32 % "(-1,)", (1, 0), "'shape' (-1,) has a negative dimension"),
    (F32 % "(2, -3)", (1, 0), "negative dimension"),
    (F32 % "(1,)", (9, 0), "unsupported .npy format version 9.0"),
    (F32 % "(1,)", (1, 7), "unsupported .npy format version 1.7"),
    (f"{SECRET} is not a dict", (1, 0), "the header is not a Python dict literal"),
    ("{'descr': '<f4', 'shape': (1,), 'fortran_order': False, 'x': '%s'}" % SECRET, (1, 0),
     "exactly the keys"),
    ("{'descr': 5, 'fortran_order': False, 'shape': (1,), }", (1, 0), "'descr' is not a NumPy dtype"),
    ("{'descr': '%s', 'fortran_order': False, 'shape': (1,), }" % SECRET, (1, 0), "'descr' is not a NumPy dtype"),
    ("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (1,), }", (1, 0), "'fortran_order' is not True or False"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }", (1, 0), "'shape' is not a tuple of integers"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': '1', }", (1, 0), "'shape' is not a tuple of integers"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "(" * 300 + ")" * 300 + ",), }", (2, 0),
     "not a Python dict literal"),
    ("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", (1, 0), "never unpickles"),
    ("{'descr': [('%s', '<f4')], 'fortran_order': False, 'shape': (1,), }" % SECRET, (1, 0),
     "unsupported structured dtype"),
])
def test_bad_npy_headers_are_named_without_quoting_them(tmp_path, header, version, words):
    p = put(tmp_path, "bad.npy", npy_bytes(header, version=version, data=b"\0" * 16))
    code, out, err = invoke(["show", p])
    header_error = "pickle" not in words and "unsupported" not in words
    assert_refused(code, err, "TENSOR", "invalid .npy header" if header_error else "", words)


def test_header_longer_than_numpy_allows_is_refused(tmp_path):
    p = put(tmp_path, "long.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 10 ** 9) + b"{")
    code, out, err = invoke(["show", p])
    assert_refused(code, err, "header of 1000000000 bytes is longer than 10000")


def test_stdin_npy_with_a_lying_header_costs_what_it_holds():
    code, out, err = invoke(["show", "-"], input=npy_bytes(F32 % "(750000000,)", data=b"\0" * 16))
    assert_refused(code, err, "truncated: header says 3000000000 bytes, stdin has 16")


# -- pickles and PyTorch files: named, never loaded ---------------------------------------------

def test_a_zip_of_a_torch_pickle_is_named_a_pt_file(tmp_path):
    p = tmp_path / "model.pt"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("model/data.pkl", b"\x80\x02cos\nsystem\nq\x00.")
        z.writestr("model/version", "3\n")
    code, out, err = invoke(["show", p])
    assert_refused(code, err, "a PyTorch .pt file: not loaded (tensorcli never unpickles)")


def test_torch_save_files_are_named_and_never_loaded(tmp_path, torch):
    new, legacy = tmp_path / "t.pt", tmp_path / "legacy.pt"
    torch.save(torch.zeros(3), new)
    torch.save(torch.zeros(3), legacy, _use_new_zipfile_serialization=False)
    assert_refused(*invoke(["show", new])[::2], "a PyTorch .pt file: not loaded (tensorcli never unpickles)")
    assert_refused(*invoke(["show", legacy])[::2], "a Python pickle", "never unpickles")


def test_a_pickle_on_stdin_is_named():
    import pickle
    code, out, err = invoke(["show", "-"], input=pickle.dumps([1.0, 2.0], protocol=4))
    assert_refused(code, err, "stdin is a Python pickle")


# -- JSON --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("[" + "9" * 5000 + "]", "too long (integers have at most 4300 digits)"),
    ("(" + "9" * 5000 + ",)", "a number of 5000 digits"),
    ('{"data": [], "shape": [0, 1e300]}', '"shape"[1] must be an integer, got a number'),
    ('{"data": [1, 2], "shape": [2.7]}', '"shape"[0] must be an integer, got a number'),
    ('{"data": [1], "shape": "1"}', '"shape" must be a list of integers'),
    ('{"data": [1], "shape": [true]}', '"shape"[0] must be an integer, got a boolean'),
    ('{"data": [1], "shape": [-1]}', '"shape"[0] must be between 0 and 2**63-1'),
    ('{"data": [], "shape": [0, ' + "9" * 30 + ']}', '"shape"[1] must be between 0 and 2**63-1'),
    ('{"data": [1], "dtype": 5}', '"dtype" must be a string such as "float32", got an integer'),
    ('{"data": [1], "dtype": ["float32"]}', '"dtype" must be a string'),
])
def test_bad_json_is_named(text, words):
    code, out, err = invoke(["show", text])
    assert_refused(code, err, "TENSOR", words)


@pytest.mark.parametrize("text, words", [
    ('{"data": [1, 2], "shape": [2.7]}', '"shape"[0] must be an integer'),
    ('{"data": [1], "dtype": 5}', '"dtype" must be a string'),
    ("[" + "9" * 5000 + "]", "too long"),
    (f'{{"data": ["{SECRET}"]}}', "not a numeric tensor: a string"),
    (f'{{"data": [1], "dtype": "{SECRET}"}}', 'unknown "dtype"'),
    (f"[1, 2, {SECRET}]", "a name that is not a literal"),
    (f"[1, 2]\n{SECRET}", "unexpected text after the value"),
    (f"[1, 2, '{SECRET}']", "unexpected character"),
])
def test_json_files_are_named_and_never_quoted(tmp_path, text, words):
    p = put(tmp_path, "t.json", text)
    code, out, err = invoke(["show", p])
    assert_refused(code, err, "t.json", words)


def test_max_json_bytes_must_be_a_size(tmp_path):
    code, out, err = invoke(["show", "[1, 2]"], env={"TENSORCLI_MAX_JSON_BYTES": "abc"})
    assert_refused(code, err, "TENSORCLI_MAX_JSON_BYTES", "expected a byte count")
    big = put(tmp_path, "big.json", "[" + "1, " * 400 + "1]")
    code, out, err = invoke(["show", big], env={"TENSORCLI_MAX_JSON_BYTES": "1KiB"})
    assert_refused(code, err, "exceeds the limit of 1024")


# -- expressions whose failure is torch's own ---------------------------------------------------

def test_cuda_on_a_cpu_build_is_torchs_assertion_in_one_line(torch):
    with pytest.raises(AssertionError) as e:
        torch.zeros(2).cuda()
    code, out, err = invoke(["eval", "torch.zeros(2).cuda()"])
    assert_refused(code, err, "EXPR", f"AssertionError: {e.value}")


@pytest.mark.parametrize("source, words", [
    ("torch.nn.UninitializedParameter()", "the result is an UninitializedParameter"),
    ("torch.nn.UninitializedBuffer()", "the result is an UninitializedBuffer"),
    ("p = torch.nn.UninitializedParameter(); torch.ones(1)", "'p' is an UninitializedParameter"),
])
def test_uninitialized_parameters_are_named(source, words):
    code, out, err = invoke(["eval", source])
    assert_refused(code, err, "EXPR", words)


# -- devices, FIFOs, /proc: refused from the file type, in a bounded child process -----------

def test_devices_fifos_and_proc_files_are_refused_before_reading(tmp_path):
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    (tmp_path / "zero.npy").symlink_to("/dev/zero")
    (tmp_path / "environ.json").symlink_to("/proc/self/environ")
    argvs = [
        ["show", "/dev/zero"],
        ["show", "/dev/urandom"],
        ["show", str(fifo)],
        ["show", str(tmp_path / "zero.npy")],
        ["show", "/proc/self/environ"],
        ["show", str(tmp_path / "environ.json")],
        ["show", "/proc/self/status"],
        ["neg", "/dev/zero"],
        ["eval", "x + 1", "--let", "x=/dev/zero"],
    ]
    words = ["a character device", "a character device", "a named pipe (FIFO)", "a character device",
             "a kernel pseudo-file", "a kernel pseudo-file", "a kernel pseudo-file", "a character device",
             "a character device"]
    for sys_file in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/fs/cgroup/cpu/tasks",
                     "/sys/fs/cgroup/cgroup.procs"):   # /sys and file systems mounted under it
        if os.path.isfile(sys_file):
            argvs.append(["show", sys_file])
            words.append("a kernel pseudo-file")
    results = run_bounded(argvs, address_space=3 << 30, alarm=60)
    assert len(results) == len(words)
    for (code, err), w in zip(results, words):
        assert_refused(code, err, w)
        assert "IS_SANDBOX" not in err and "PATH=" not in err
