"""Hostile data paths in case files (issue 23): a case file sees its own directory. Absolute paths,
'..' and symlinks that lead out of it are refused (exit 2, one line naming the file, case and field)
unless `check --allow-path DIR` names a root that holds them; the refusal is the same whether or not
the file exists, and no message, JSON or JUnit report ever quotes a data file's bytes."""
from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest

from hostile import SECRET, assert_refused, invoke, run_bounded

OUTSIDE = "leads outside the case file's directory"


def case_file(d, path, *, field="let"):
    """A case file in `d` whose one case reads `path` (an expr case's let, or an op's index)."""
    d.mkdir(parents=True, exist_ok=True)
    if field == "let":
        body = f'''
            [[case]]
            name = "reads a file"
            expr = "x + 1"
            let = {{x = "{path}"}}
            expect = [1.0, 2.0, 3.0]
            '''
    else:
        body = f'''
            [[case]]
            name = "reads a file"
            op = "gather"
            input = [[1.0, 2.0]]
            dim = 1
            index = "{path}"
            expect = [[2.0]]
            '''
    p = d / "c.toml"
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


@pytest.fixture
def tree(tmp_path):
    """tmp/cases (the case directory, with data/ inside), tmp/outside (a file there and a secret)."""
    (tmp_path / "cases" / "data").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    np.save(tmp_path / "cases" / "data" / "x.npy", np.arange(3.0, dtype=np.float32))
    np.save(tmp_path / "outside" / "x.npy", np.arange(3.0, dtype=np.float32))
    (tmp_path / "outside" / "secret.json").write_text(f'{{"token": "{SECRET}"}}')
    return tmp_path


@pytest.mark.parametrize("path", [
    "/proc/self/environ",
    "../../../../etc/passwd",
    "../outside/x.npy",
    "../outside/secret.json",
    "../outside/does-not-exist.npy",
    "/nonexistent/dir/x.npy",
    "data/../../outside/x.npy",
    "/dev/zero",
    "../outside/x.npz:key",
])
def test_paths_leading_out_are_refused(tree, path):
    f = case_file(tree / "cases", path)
    code, out, err = invoke(["check", f])
    assert_refused(code, err, "c.toml", "field 'let.x'", OUTSIDE)


def test_refusal_does_not_tell_whether_the_file_exists(tree):
    msgs = []
    for p in ("../outside/x.npy", "../outside/nothing-here.npy"):
        code, out, err = invoke(["check", case_file(tree / "cases", p)])
        msgs.append(err.replace(p, "PATH"))
    assert msgs[0] == msgs[1]


def test_absolute_path_inside_the_directory_and_relative_paths_load(tree):
    for p in ("data/x.npy", str(tree / "cases" / "data" / "x.npy"), "data/../data/x.npy"):
        code, out, err = invoke(["check", case_file(tree / "cases", p)])
        assert code == 0, (p, err)


def test_symlinks_are_resolved_before_the_check(tree):
    cases = tree / "cases"
    (cases / "link.npy").symlink_to(tree / "outside" / "x.npy")
    (cases / "linkdir").symlink_to(tree / "outside")
    for p in ("link.npy", "linkdir/x.npy"):
        code, out, err = invoke(["check", case_file(cases, p)])
        assert_refused(code, err, OUTSIDE)
    (cases / "inner.npy").symlink_to(cases / "data" / "x.npy")
    code, out, err = invoke(["check", case_file(cases, "inner.npy")])
    assert code == 0, err


def test_op_fields_and_expect_files_are_checked_too(tree):
    f = case_file(tree / "cases", "../outside/x.npy", field="index")
    code, out, err = invoke(["check", f])
    assert_refused(code, err, "field 'index'", OUTSIDE)
    f.write_text(textwrap.dedent('''
        [[case]]
        name = "expects a file"
        expr = "torch.arange(3.0)"
        expect = "../outside/x.npy"
        '''))
    code, out, err = invoke(["check", f])
    assert_refused(code, err, "field 'expect'", OUTSIDE)


def test_allow_path_names_another_root(tree):
    f = case_file(tree / "cases", "../outside/x.npy")
    code, out, err = invoke(["check", f, "--allow-path", tree / "outside"])
    assert code == 0, err
    code, out, err = invoke(["check", f, "--allow-path", tree / "elsewhere"])
    assert_refused(code, err, "--allow-path", "is not a directory")
    # an allowed root does not make a device or /proc readable
    f = case_file(tree / "cases", "/dev/zero")
    code, out, err = invoke(["check", f, "--allow-path", "/dev"])
    assert_refused(code, err, "a character device")


def test_file_bytes_never_reach_stderr_json_or_junit(tree):
    cases = tree / "cases"
    (cases / "data" / "env.json").write_text(f"IS_SANDBOX=yes\x00{SECRET}=1\x00SHELL=/bin/bash")
    f = case_file(cases, "data/env.json")
    junit = tree / "report.xml"
    code, out, err = invoke(["check", f, "--junit", junit])
    assert_refused(code, err, "field 'let.x'", "invalid JSON or Python literal")
    report = junit.read_text()
    assert "<error" in report and SECRET not in report and "IS_SANDBOX" not in report
    code, out, err = invoke(["check", f, "--json"])
    assert code == 2 and SECRET not in out and "IS_SANDBOX" not in out and SECRET not in err


def test_case_files_must_be_regular_files(tree):
    fifo = tree / "cases" / "fifo.toml"
    os.mkfifo(fifo)
    (tree / "cases" / "zero.toml").symlink_to("/dev/zero")
    only = tree / "only"
    only.mkdir()
    (only / "a.toml").symlink_to("/dev/zero")
    results = run_bounded([["check", str(fifo)], ["check", str(tree / "cases" / "zero.toml")],
                           ["check", "/proc/self/environ"], ["check", str(only)]], alarm=60)
    for (code, err), w in zip(results, ["a named pipe (FIFO), not a case file", "a character device, not a case file",
                                        "a kernel pseudo-file", "a.toml: is a character device"]):
        assert_refused(code, err, w)
