"""Outputs that lose nothing (issue 23): `-o`, `--junit` and `--svg` refuse a path the same run
reads (compared by device and inode, so another spelling, a symlink or a hard link is caught) and
a path that is not a regular file; a replaced file keeps its mode; temporary names fit NAME_MAX;
a missing directory or a full disk is one line, exit 2. Nothing is overwritten by a refusal."""
from __future__ import annotations

import os
import stat
import textwrap

import numpy as np
import pytest

from hostile import assert_refused, invoke, run_bounded
from tensorcli.io import npyfile

ALSO_INPUT = "is also an input of this command"


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "a.npy", np.arange(6.0, dtype=np.float32).reshape(2, 3))
    return tmp_path


def unchanged(path, before):
    assert path.read_bytes() == before, f"{path} was overwritten"


@pytest.mark.parametrize("argv", [
    ["neg", "a.npy", "-o", "a.npy"],
    ["neg", "a.npy", "-o", "./a.npy"],
    ["neg", "a.npy", "-o", "LINK"],
    ["neg", "a.npy", "-o", "HARD"],
    ["add", "[1.0]", "--other", "a.npy", "-o", "a.npy"],
    ["show", "a.npy", "-o", "a.npy"],
    ["eval", "x * 2", "--let", "x=a.npy", "-o", "a.npy"],
    ["neg", "a.npy", "--grid", "--svg", "a.npy"],
])
def test_an_output_never_overwrites_an_input(work, argv):
    (work / "link.npy").symlink_to(work / "a.npy")
    os.link(work / "a.npy", work / "hard.npy")
    argv = [{"LINK": "link.npy", "HARD": "hard.npy"}.get(a, a) for a in argv]
    before = (work / "a.npy").read_bytes()
    code, out, err = invoke(argv)
    assert_refused(code, err, "--svg" if "--svg" in argv else "--out", ALSO_INPUT)
    unchanged(work / "a.npy", before)
    assert not [p for p in os.listdir(work) if p.endswith(".part")]


def test_two_outputs_of_one_run_never_share_a_path(work):
    code, out, err = invoke(["neg", "a.npy", "-o", "r.npy", "--grid", "--svg", "r.npy"])
    assert_refused(code, err, "--svg", "r.npy is already written by this command")
    assert np.array_equal(np.load(work / "r.npy"), -np.load(work / "a.npy"))
    code, out, err = invoke(["neg", "a.npy", "-o", "r.npy", "--grid", "--svg", "r.svg"])
    assert code == 0, err   # a new run: r.npy is an ordinary existing file again


CASE = """
[[case]]
name = "reads data"
expr = "x + 1"
let = {x = "a.npy"}
expect_shape = [2, 3]
"""


def test_junit_never_overwrites_the_case_file_or_its_data(work):
    c = work / "c.toml"
    c.write_text(CASE)
    for target in ("c.toml", "a.npy"):
        before = (work / target).read_bytes()
        code, out, err = invoke(["check", c, "--junit", target])
        assert_refused(code, err, "--junit", ALSO_INPUT)
        unchanged(work / target, before)
    code, out, err = invoke(["check", c, "--junit", "report.xml"])
    assert code == 0, err
    assert "<testcase" in (work / "report.xml").read_text()


def test_a_malformed_case_file_is_not_overwritten_by_its_junit_report(work):
    c = work / "c.toml"
    c.write_text("[[case]]\nname = 1\n")
    code, out, err = invoke(["check", c, "--junit", c])
    assert_refused(code, err, ALSO_INPUT)
    assert c.read_text() == "[[case]]\nname = 1\n"


@pytest.mark.parametrize("argv, arg", [
    (["neg", "a.npy", "-o", "out.npy"], "--out"),
    (["neg", "a.npy", "-o", "out.json"], "--out"),
    (["neg", "a.npy", "--grid", "--svg", "out.svg"], "--svg"),
    (["check", "c.toml", "--junit", "out.xml"], "--junit"),
])
def test_a_replaced_file_keeps_its_mode(work, argv, arg):
    (work / "c.toml").write_text(CASE)
    target = work / argv[-1]
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    code, out, err = invoke(argv)
    assert code == 0, err
    assert target.read_bytes() != b"old"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_new_file_gets_the_umask_mode(work):
    old = os.umask(0o027)
    try:
        code, out, err = invoke(["neg", "a.npy", "-o", "new.npy"])
    finally:
        os.umask(old)
    assert code == 0, err
    assert stat.S_IMODE((work / "new.npy").stat().st_mode) == 0o640


@pytest.mark.parametrize("length", [249, 255])
def test_long_output_names_fit_name_max(work, length):
    name = "x" * (length - 4) + ".npy"
    code, out, err = invoke(["neg", "a.npy", "-o", name])
    assert code == 0, err
    assert np.array_equal(np.load(work / name), -np.load(work / "a.npy"))


def test_temporary_names_fit_name_max_in_bytes(tmp_path):
    name = "é" * 125 + ".npy"   # 254 bytes in UTF-8
    with npyfile.atomic_output(str(tmp_path / name)) as tmp:
        assert len(os.fsencode(os.path.basename(tmp))) <= 255
        open(tmp, "wb").close()
    assert (tmp_path / name).exists()


@pytest.mark.parametrize("argv, words", [
    (["neg", "a.npy", "--grid", "--svg", "nodir/x.svg"], ["--svg", "cannot write nodir/x.svg: No such file or directory"]),
    (["neg", "a.npy", "-o", "nodir/x.npy"], ["--out", "cannot write nodir/x.npy: No such file or directory"]),
    (["check", "c.toml", "--junit", "nodir/r.xml"], ["--junit", "cannot write nodir/r.xml"]),
    (["neg", "a.npy", "-o", "sub.npy"], ["--out", "sub.npy is a directory"]),
    (["neg", "a.npy", "-o", "null.npy"], ["--out", "null.npy is not a regular file"]),
    (["check", "c.toml", "--junit", "/dev/null"], ["--junit", "/dev/null is not a regular file"]),
])
def test_unwritable_outputs_are_one_line(work, argv, words):
    (work / "c.toml").write_text(CASE)
    (work / "sub.npy").mkdir()
    (work / "null.npy").symlink_to("/dev/null")
    code, out, err = invoke(argv)
    assert_refused(code, err, *words)
    assert os.path.islink(work / "null.npy") and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_full_disk_is_one_line(work):
    (work / "c.toml").write_text(CASE)
    with open("/dev/full", "wb") as full:
        results = run_bounded([["neg", "a.npy", "-o", "-"],
                               ["neg", "a.npy", "--json"],
                               ["check", "c.toml", "--junit", "-"]], cwd=work, stdout=full)
    for (code, err), arg in zip(results, ["--out: cannot write stdout", "cannot write the output",
                                          "--junit: cannot write stdout"]):
        assert_refused(code, err, arg, "No space left on device")


def test_check_output_refuses_recorded_inputs(tmp_path):
    p = tmp_path / "in.npy"
    np.save(p, np.zeros(2))
    npyfile.forget_inputs()
    try:
        npyfile.record_input(os.stat(p), str(p))
        with pytest.raises(npyfile.OutputError, match=ALSO_INPUT):
            with npyfile.atomic_output(str(p)):
                pass
    finally:
        npyfile.forget_inputs()
    with npyfile.atomic_output(str(p)) as tmp, open(tmp, "wb") as f:   # a new command: nothing recorded
        np.save(f, np.ones(2))
    assert np.load(p).tolist() == [1.0, 1.0]
