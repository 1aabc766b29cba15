"""A corpus of bad inputs: each exits 2 with ONE line on stderr naming the argument, no traceback."""
from __future__ import annotations

from paths import TESTS

import io
import json
import os
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from core.ops.registry import OPS
from conftest import cli_app_with
from tensorcli import app as cli_app
from tensorcli import opspec

DATA = os.path.join(TESTS, "data")
X = "[[1,2,3],[4,5,6]]"
IDX = "[[0,2],[1,0]]"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def d(name):
    return os.path.join(DATA, name)


def npy(a):
    b = io.BytesIO()
    np.save(b, np.asarray(a))
    return b.getvalue()


G = ["gather", X, "--dim", "1"]

# (id, argv, stdin bytes or None, text the one line must contain)
CORPUS = [
    ("truncated-npy", G + ["--index", d("truncated.npy")], None, "--index: "),
    ("truncated-npy-msg", ["show", d("truncated.npy")], None, "truncated: header says 800 bytes, file has 72"),
    ("pickled-object-npy", ["show", d("object.npy")], None, "never unpickles"),
    ("complex-npy", ["show", d("complex.npy")], None, "unsupported dtype complex128"),
    ("string-npy", ["show", d("strings.npy")], None, "unsupported dtype"),
    ("huge-npy-header", ["show", d("huge_header.npy")], None, "above the allocation limit"),
    ("empty-file", ["show", d("empty.npy")], None, "is empty"),
    ("garbage-file", ["show", d("garbage.bin")], None, "not .npy, .npz or JSON"),
    ("corrupt-npz", ["show", d("corrupt.npz")], None, "corrupt"),
    ("fake-zip-npz", ["show", d("not_zip.npz")], None, "corrupt"),
    ("npz-needs-key", ["show", d("pair.npz")], None, "keys: index, x"),
    ("npz-unknown-key", ["show", d("pair.npz") + ":nope"], None, "no array 'nope'"),
    ("npy-with-key", ["show", d("x.npy") + ":x"], None, "only applies to .npz archives"),
    ("missing-file", G + ["--index", "nope/idx.npy"], None, "--index: no such file: nope/idx.npy"),
    ("directory", ["show", DATA], None, "is a directory"),
    ("ragged-json", G + ["--index", "[[0,1],[1]]"], None, "--index: ragged nested list"),
    ("ragged-json-file", ["show", d("ragged.json")], None, "ragged"),
    ("invalid-json", ["show", "[1, 2"], None, "TENSOR: invalid JSON"),
    ("not-json-not-file", ["show", "abc"], None, "TENSOR: invalid JSON"),
    ("json-null", ["show", "[1, null]"], None, "null is not a number"),
    ("json-string", ["show", '["a", 1]'], None, "string 'a'"),
    ("json-too-deep", ["show", "[" * 50 + "]" * 50], None, "nested more than"),
    ("json-object-no-data", ["show", '{"x": 1}'], None, '"data"'),
    ("json-object-bad-dtype", ["show", '{"data": [1], "dtype": "cfloat"}'], None, "unknown dtype 'cfloat'"),
    ("json-int-overflow", ["show", "[99999999999999999999999]"], None, "TENSOR: Overflow"),
    ("stdin-empty", ["show", "-"], b"", "stdin is empty"),
    ("stdin-garbage", ["show", "-"], bytes(range(256)) * 3, "not .npy, .npz or JSON"),
    ("stdin-truncated-npy", ["show", "-"], npy(np.arange(50))[:200], "truncated"),
    ("stdin-npy-with-key", G + ["--index", "-:k"], npy([1]), "--index: stdin holds .npy data"),
    ("two-stdin", ["gather", "-", "--dim", "1", "--index", "-"], npy([[1, 2]]), "--index: stdin ('-') can only"),
    ("unknown-dtype", ["show", X, "--dtype", "float128"], None, "--dtype: unknown dtype 'float128'"),
    ("nan-index", G + ["--index", "[[NaN, 0], [0, 0]]"], None, "error: gather(): Expected dtype"),
    ("float-index", G + ["--index", "[[0.0, 1.0], [0.0, 0.0]]"], None, "error: gather(): Expected dtype"),
    ("index-out-of-range", G + ["--index", "[[5, 0], [0, 0]]"], None, "gather: "),
    ("negative-index-out-of-range", G + ["--index", "[[-4, 0], [0, 0]]"], None, "gather: "),
    ("dim-out-of-range", ["gather", X, "--dim", "5", "--index", IDX], None, "gather: "),
    ("dim-not-int", ["gather", X, "--dim", "x", "--index", IDX], None, "--dim"),
    ("missing-index", ["gather", X, "--dim", "1"], None, "Missing option '--index'"),
    ("missing-input", ["gather"], None, "Missing argument 'INPUT'"),
    ("unknown-option", G + ["--index", IDX, "--bogus"], None, "No such option: --bogus"),
    ("unknown-command", ["gatherr", X], None, "No such command 'gatherr'"),
    ("src-and-value", ["scatter", X, "--dim", "1", "--index", IDX, "--src", X, "--value", "1"], None,
     "--src: --src and --value cannot be used together"),
    ("value-not-number", ["masked-fill", X, "--mask", "[[true,false,true],[false,false,true]]", "--value", "x"],
     None, "--value: expected a number"),
    ("mask-not-bool", ["masked-fill", X, "--mask", "[[1,0,1],[0,0,1]]", "--value", "0"], None, "masked_fill"),
    ("scatter-shape-mismatch", ["scatter-add", X, "--dim", "1", "--index", "[[0,1,2,0]]", "--src", "[[1,2]]"],
     None, "scatter-add: "),
    ("view-bad-shape", ["view", X, "--shape", "4,4"], None, "view: "),
    ("shape-not-ints", ["view", X, "--shape", "a,b"], None, "--shape: expected comma-separated integers"),
    ("permute-wrong-dims", ["permute", X, "--dims", "0"], None, "permute: "),
    ("huge-repeat", ["repeat", X, "--sizes", "100000,100000,100000"], None, "repeat: "),
    ("one-hot-negative", ["one-hot", "[0,-1]", "--num-classes", "3"], None, "one-hot: "),
    ("index-put-no-indices", ["index-put", X, "--values", "[1]"], None, "Missing option '--indices'"),
    ("at-out-of-range", G + ["--index", IDX, "--at", "3,0"], None, "--at: 3,0 is not an element"),
    ("at-not-ints", G + ["--index", IDX, "--at", "a"], None, "--at: "),
    ("backward-not-differentiable", ["nonzero", "[[0,1],[2,0]]", "--backward"], None, "--backward: "),
    ("max-rows-negative", G + ["--index", IDX, "--explain", "--max-rows", "-1"], None, "--max-rows"),
    ("out-unknown-ext", G + ["--index", IDX, "-o", "r.txt"], None, "--out: unknown output extension .txt"),
    ("out-missing-dir", G + ["--index", IDX, "-o", "no/such/dir/r.npy"], None, "--out: cannot write"),
    ("out-dash-and-json", G + ["--index", IDX, "-o", "-", "--json"], None, "--json: cannot be combined"),
    ("tuple-to-npy", ["chunk", X, "--chunks", "2", "-o", "x.npy"], None, "--out: the op returns 2 tensors"),
]


@pytest.fixture(scope="module")
def app():
    return cli_app_with(("ops", "show"))


def test_corpus_has_at_least_40_cases():
    assert len(CORPUS) >= 40
    assert len({c[0] for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c[0] for c in CORPUS])
def test_bad_input_exits_2_with_one_line(app, tmp_path, monkeypatch, case):
    _, argv, stdin, needle = case
    cmd = argv[0]
    op = cmd.replace("-", "_")
    if op in OPS and not opspec.is_command(op) or (op not in OPS and cmd not in ("show", "ops", "gatherr")):
        pytest.skip(f"{cmd} has no command yet")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, argv, input=stdin, env={"NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"})
    err = ANSI.sub("", r.stderr)
    assert r.exit_code == 2, (r.exit_code, err, r.exception)
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("tensorcli: error: ")
    assert needle in err, err
    assert "Traceback" not in err
    if "--json" in argv:   # the error is also a JSON object on stdout (tests/tensorcli/commands/test_options.py)
        assert json.loads(r.stdout)["error"] in err
    else:
        assert r.stdout == ""


def test_debug_adds_the_traceback(app):
    r = CliRunner().invoke(app, G + ["--index", "[[5, 0], [0, 0]]", "--debug"], env={"NO_COLOR": "1"})
    assert r.exit_code == 2
    assert "Traceback" in r.stderr and r.stderr.rstrip().splitlines()[-1].startswith("tensorcli: error: gather")


def test_internal_errors_exit_2_with_a_hint(app, monkeypatch):
    """Status 1 is reserved for a failed check (tensorcli.errors): a bug exits 2, one line."""
    from tensorcli import render

    def boom(*a, **k):
        raise ZeroDivisionError("bug")
    monkeypatch.setattr(render, "print_lines", boom)
    r = CliRunner().invoke(app, ["show", X], env={"NO_COLOR": "1"})
    assert r.exit_code == 2
    assert r.stderr.strip() == ("tensorcli: error: internal error: ZeroDivisionError: bug "
                                "(rerun with --debug for the traceback)")


def test_json_size_limit_via_env(app):
    r = CliRunner().invoke(app, ["show", "[1, 2, 3, 4, 5, 6, 7, 8]"],
                           env={"NO_COLOR": "1", "TENSORCLI_MAX_JSON_BYTES": "8"})
    assert r.exit_code == 2 and "exceeds the limit of 8" in r.stderr
