"""`tensorcli check`: case files run as CI checks (pass / fail / malformed / hostile / reports)."""
from __future__ import annotations

from paths import ROOT

import json
import os
import pickle
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from typer.testing import CliRunner

from tensorcli.services import checks



@pytest.fixture(scope="module")
def app():
    from tensorcli.app import get_app
    return get_app()


def invoke(app, *args):
    return CliRunner().invoke(app, ["check", *map(str, args)])


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


GATHER_OK = """
[[case]]
name = "labels to probabilities"
op = "gather"
input = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]]
dim = 1
index = [[2], [1]]
expect = [[0.5], [0.8]]
atol = 1e-6

[[case]]
name = "out of range is an error"
op = "gather"
input = [[1, 2]]
dim = 1
index = [[5]]
expect_error = "out of bounds"
"""

WRONG = """
[[case]]
name = "wrong expectation"
op = "gather"
input = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]]
dim = 1
index = [[2], [1]]
expect = [[0.5], [0.7]]
"""


# -- passing and failing ---------------------------------------------------------------------

def test_passing_file_exits_0_with_one_line_per_case(app, tmp_path):
    f = write(tmp_path, "ok.toml", GATHER_OK)
    r = invoke(app, f)
    assert r.exit_code == 0, r.output
    assert "PASS" in r.stdout and "labels to probabilities" in r.stdout
    assert "out of range is an error" in r.stdout
    assert "2 passed" in r.stdout


def test_failing_value_exits_1_with_element_diff(app, tmp_path):
    f = write(tmp_path, "bad.toml", WRONG)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "FAIL" in r.stdout
    assert "1 of 2 elements differ" in r.stdout
    assert "at [1, 0]: expected 0.7, got 0.8" in r.stdout


def test_failing_shape_and_dtype_are_both_reported(app, tmp_path):
    f = write(tmp_path, "bad.toml", """
        [[case]]
        name = "shape and dtype"
        op = "sum"
        input = [[1, 2], [3, 4]]
        dim = 1
        expect_shape = [2, 1]
        expect_dtype = "float32"
        """)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "shape: expected [2, 1], got [2]" in r.stdout
    assert "dtype: expected float32, got int64" in r.stdout


def test_value_with_wrong_shape_reports_shapes(app, tmp_path):
    f = write(tmp_path, "bad.toml", """
        [[case]]
        name = "shape"
        op = "sum"
        input = [[1, 2], [3, 4]]
        dim = 1
        expect = [[3], [7]]
        """)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "value shape: expected [2, 1], got [2]" in r.stdout


def test_unexpected_exception_is_an_error_not_a_crash(app, tmp_path):
    f = write(tmp_path, "err.toml", """
        [[case]]
        name = "index out of range"
        op = "gather"
        input = [[1.0, 2.0]]
        dim = 1
        index = [[7]]
        expect = [[1.0]]
        """)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "ERROR" in r.stdout and "out of bounds" in r.stdout


def test_expect_error_type_mismatch_fails(app, tmp_path):
    f = write(tmp_path, "t.toml", """
        [[case]]
        name = "leaf in-place"
        expr = "x.add_(1)"
        let = {x = [1.0]}
        requires_grad = ["x"]
        expect_error = "leaf Variable"
        expect_error_type = "TypeError"
        """)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "error type: expected TypeError, got RuntimeError" in r.stdout


def test_expected_error_that_does_not_happen_fails(app, tmp_path):
    f = write(tmp_path, "t.toml", """
        [[case]]
        name = "no error"
        op = "neg"
        input = [1.0]
        expect_error = "boom"
        """)
    r = invoke(app, f)
    assert r.exit_code == 1
    assert "expected an error ('boom'), got a result" in r.stdout


def test_grad_with_gradient_weights_and_hooks(tmp_path):
    f = write(tmp_path, "g.toml", """
        [[case]]
        name = "backward with gradient weights"
        expr = "2 * x ** 2"
        let = {x = [1.0, 1.0, 1.0]}
        requires_grad = ["x"]
        gradient = [0.1, 1.0, 0.0001]
        expect_grad = {x = [0.4, 4.0, 0.0004]}

        [[case]]
        name = "hook sees the gradient of z; z.grad is None"
        expr = "z = x + y; o = w.matmul(z)"
        let = {x = [0.0, 1.0, 2.0, 3.0], y = [4.0, 5.0, 6.0, 7.0], w = [1.0, 2.0, 3.0, 4.0]}
        requires_grad = ["x", "y", "w"]
        expect_hooks = {z = [[1.0, 2.0, 3.0, 4.0]]}
        expect_grad = {x = [1.0, 2.0, 3.0, 4.0], w = [4.0, 6.0, 8.0, 10.0], z = "None"}
        """)
    rep = checks.run_paths([f])
    assert [r.status for r in rep.results] == ["passed", "passed"], [r.details for r in rep.results]


def test_wrong_grad_is_a_failure_naming_the_tensor(tmp_path):
    f = write(tmp_path, "g.toml", """
        [[case]]
        name = "bad grad"
        expr = "(x * 3).sum()"
        let = {x = [1.0, 2.0]}
        requires_grad = ["x"]
        expect_grad = {x = [3.0, 4.0]}
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "failed"
    assert any(d.startswith("grad of x: 1 of 2 elements differ") for d in r.details)


def test_grad_mode_no_grad_turns_off_requires_grad(tmp_path):
    f = write(tmp_path, "m.toml", """
        [[case]]
        name = "inside no_grad"
        expr = "(x * 2).requires_grad"
        let = {x = [1.0, 2.0, 3.0]}
        requires_grad = ["x"]
        grad_mode = "no_grad"
        expect = false

        [[case]]
        name = "outside"
        expr = "(x * 2).requires_grad"
        let = {x = [1.0, 2.0, 3.0]}
        requires_grad = ["x"]
        expect = true
        """)
    rep = checks.run_paths([f])
    assert [r.status for r in rep.results] == ["passed", "passed"]


def test_expect_memory_from_an_expression(tmp_path):
    f = write(tmp_path, "mem.toml", """
        [[case]]
        name = "no_grad saves nothing"
        expr = "(x * w).sigmoid().sum()"
        let = {x = [[1.0, 2.0], [3.0, 4.0]], w = [[0.5, 0.5], [0.5, 0.5]]}
        requires_grad = ["w"]
        expect_memory = [{mode = "grad", saved_bytes = ">0", graph_nodes = ">= 2"},
                         {mode = "no_grad", saved_bytes = 0, graph_nodes = 0}]
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "passed", r.details


def test_expect_memory_mismatch_names_the_figure(tmp_path):
    f = write(tmp_path, "mem.toml", """
        [[case]]
        name = "grad saves"
        expr = "(x * w).sigmoid().sum()"
        let = {x = [[1.0, 2.0]], w = [[0.5, 0.5]]}
        requires_grad = ["w"]
        expect_memory = {mode = "grad", saved_bytes = 0}
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "failed"
    assert r.details[0].startswith("memory (grad) saved_bytes: expected == 0, got")


def test_json_case_file(tmp_path):
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"case": [{"name": "neg", "op": "neg", "input": [1, -2], "expect": [-1, 2],
                                       "expect_dtype": "int64"}]}))
    (r,) = checks.run_paths([f]).results
    assert r.status == "passed", r.details


def test_data_files_are_relative_to_the_case_file(tmp_path):
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "labels.npy", np.array([[2], [1]]))
    (tmp_path / "cases").mkdir()
    f = write(tmp_path / "cases", "c.toml", """
        [[case]]
        name = "labels from a file"
        op = "gather"
        input = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]]
        dim = 1
        index = "../data/labels.npy"
        expect = [[0.5], [0.8]]
        """)
    with pytest.raises(checks.CaseFileError, match="leads outside the case file's directory"):
        checks.run_paths([f])
    (r,) = checks.run_paths([f], allow=[tmp_path / "data"]).results
    assert r.status == "passed", r.details


# -- malformed files: exit 2 naming file, case and field -------------------------------------

@pytest.mark.parametrize("body, field, words", [
    ('name = "a"\nop = "gathr"\ninput = [1]\nexpect = [1]', "field 'op'", "unknown op 'gathr' (did you mean 'gather'"),
    ('name = "a"\nop = "neg"\ninput = [1]\nexpct = [1]', "field 'expct'", "unknown field (did you mean 'expect'?)"),
    ('op = "neg"\ninput = [1]\nexpect = [1]', "field 'name'", "missing required field"),
    ('name = "a"\nop = "gather"\ninput = [[1]]\ndim = 1\nexpect = [1]', "field 'index'", "missing required field"),
    ('name = "a"\nop = "neg"\ninput = [1]', "field 'expect'", "missing required field"),
    ('name = "a"\nop = "neg"\ninput = [1]\nexpect = [1]\natol = "tiny"', "field 'atol'", "expected a number, got string"),
    ('name = "a"\nop = "neg"\ninput = [[1], [2, 3]]\nexpect = [1]', "field 'input'", "not a tensor"),
    ('name = "a"\nexpr = "x + 1"\nlet = {x = [1.0]}\nexpect_shape = "2"', "field 'expect_shape'", "expected an array"),
    ('name = "a"\nexpr = "x"\nlet = {x = [1.0]}\ngrad_mode = "fast"\nexpect = [1.0]', "field 'grad_mode'", "expected one of"),
])
def test_malformed_case_exits_2_naming_file_case_and_field(app, tmp_path, body, field, words):
    f = write(tmp_path, "m.toml", "[[case]]\n" + body + "\n")
    r = invoke(app, f)
    assert r.exit_code == 2, r.output
    assert str(f) in r.stderr and "case 1" in r.stderr
    assert field in r.stderr and words in r.stderr


def test_bad_toml_syntax_gives_the_line_number(app, tmp_path):
    f = write(tmp_path, "syntax.toml", '[[case]]\nname = "a"\nop = \n')
    r = invoke(app, f)
    assert r.exit_code == 2
    assert f"{f}:3: invalid TOML" in r.stderr


def test_bad_json_gives_the_line_number(app, tmp_path):
    f = tmp_path / "c.json"
    f.write_text('{"case": [\n  {"name": "a",}\n]}')
    r = invoke(app, f)
    assert r.exit_code == 2
    assert f"{f}:2: invalid JSON" in r.stderr


def test_malformed_second_file_stops_before_running_anything(app, tmp_path):
    write(tmp_path, "a.toml", GATHER_OK)
    write(tmp_path, "b.toml", '[[case]]\nname = "x"\nop = "nope"\nexpect = 1\n')
    r = invoke(app, tmp_path)
    assert r.exit_code == 2
    assert "PASS" not in r.stdout
    assert "b.toml: case 1 'x': field 'op': unknown op 'nope'" in r.stderr


def test_duplicate_case_names_are_malformed(tmp_path):
    f = write(tmp_path, "d.toml", WRONG + WRONG)
    with pytest.raises(checks.CaseFileError, match="case 2 'wrong expectation': field 'name': duplicate"):
        checks.load_file(f)


def test_missing_path_exits_2(app, tmp_path):
    r = invoke(app, tmp_path / "nope.toml")
    assert r.exit_code == 2
    assert "no such file or directory" in r.stderr


def test_malformed_with_json_and_junit_reports_the_problem(app, tmp_path):
    f = write(tmp_path, "m.toml", '[[case]]\nname = "a"\nop = "nope"\nexpect = 1\n')
    xml = tmp_path / "r.xml"
    r = invoke(app, f, "--json", "--junit", xml)
    assert r.exit_code == 2
    obj = json.loads(r.stdout)
    assert obj["malformed"][0]["field"] == "op" and obj["malformed"][0]["file"] == str(f)
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite.get("errors") == "1"


# -- hostile case files ------------------------------------------------------------------------

class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):  # would create the marker file if anything unpickled it
        return (open, (self.marker, "w"))


def _op_case_with_index(tmp_path, index):
    return write(tmp_path, "h.toml", f"""
        [[case]]
        name = "hostile"
        op = "gather"
        input = [[1.0, 2.0]]
        dim = 1
        index = "{index}"
        expect = [[1.0]]
        """)


def test_pickled_npy_is_refused_without_unpickling(app, tmp_path):
    marker = tmp_path / "pwned"
    arr = np.empty(1, dtype=object)
    arr[0] = _Payload(str(marker))
    with open(tmp_path / "evil.npy", "wb") as fh:
        np.lib.format.write_array(fh, arr, allow_pickle=True)
    f = _op_case_with_index(tmp_path, "evil.npy")
    r = invoke(app, f)
    assert r.exit_code == 2
    assert "field 'index'" in r.stderr and "object arrays are refused" in r.stderr
    assert not marker.exists()


def test_missing_data_file_is_malformed(app, tmp_path):
    r = invoke(app, _op_case_with_index(tmp_path, "missing.npy"))
    assert r.exit_code == 2
    assert "field 'index'" in r.stderr and "no such file" in r.stderr


def test_truncated_npy_is_malformed(app, tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((100, 100), dtype=np.int64))
    data = (tmp_path / "t.npy").read_bytes()
    (tmp_path / "t.npy").write_bytes(data[: len(data) // 2])
    r = invoke(app, _op_case_with_index(tmp_path, "t.npy"))
    assert r.exit_code == 2
    assert "field 'index'" in r.stderr and "truncated" in r.stderr


def test_path_traversal_is_refused_and_never_unpickles(app, tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "outside").mkdir()
    arr = np.empty(1, dtype=object)
    arr[0] = _Payload(str(marker))
    with open(tmp_path / "outside" / "evil.npy", "wb") as fh:
        np.lib.format.write_array(fh, arr, allow_pickle=True)
    (tmp_path / "cases").mkdir()
    r = invoke(app, _op_case_with_index(tmp_path / "cases", "../outside/evil.npy"))
    assert r.exit_code == 2 and not marker.exists()


@pytest.mark.parametrize("source, words", [
    ("__import__('os').system('true')", "not allowed"),
    ("open('/etc/passwd')", "unknown name 'open'"),
    ("x.__class__", "attribute '__class__' is not allowed"),
    ("[c for c in x.__dict__]", "attribute '__dict__' is not allowed"),
    ("(lambda: getattr(x, 'y'))()", "unknown name 'getattr'"),
])
def test_expression_outside_the_whitelist_is_refused(app, tmp_path, source, words):
    f = write(tmp_path, "e.toml", f"""
        [[case]]
        name = "hostile expr"
        expr = "{source}"
        let = {{x = [1.0]}}
        expect = 1
        """)
    r = invoke(app, f)
    assert r.exit_code in (1, 2), r.output
    assert words in (r.stderr + r.stdout)


def test_terabyte_expression_fails_before_allocating(app, tmp_path):
    f = write(tmp_path, "big.toml", """
        [[case]]
        name = "terabytes"
        expr = "torch.zeros(2 ** 20, 2 ** 20, 2 ** 10)"
        expect_shape = [1]
        """)
    r = invoke(app, f)      # the allocation guard refuses before NumPy tries (no timing assert: shared machine)
    assert r.exit_code == 1
    assert "would allocate" in r.stdout and "TiB" in r.stdout


def test_terabyte_op_fails_before_allocating(tmp_path):
    f = write(tmp_path, "big.toml", """
        [[case]]
        name = "repeat to terabytes"
        op = "repeat"
        input = [1.0]
        sizes = [1099511627776]
        expect_shape = [1]
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "error"
    assert "not enough memory" in r.message or "refuses allocations" in r.message


def test_allocation_limit_is_restored_after_the_run(tmp_path):
    import core.creation as cc
    before = cc.get_allocation_limit()
    checks.run_paths([write(tmp_path, "ok.toml", GATHER_OK)])
    assert cc.get_allocation_limit() == before


def test_expected_allocation_error_can_pass(tmp_path):
    f = write(tmp_path, "big.toml", """
        [[case]]
        name = "terabytes refused"
        expr = "torch.ones(2 ** 40, 2 ** 10)"
        expect_error = "would allocate"
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "passed"


def test_huge_model_input_shape_is_malformed(tmp_path):
    f = write(tmp_path, "m.toml", """
        [[case]]
        name = "huge"
        model = "ReLU()"
        input_shape = [1048576, 1048576]
        expect_shape = [1]
        """)
    with pytest.raises(checks.CaseFileError, match="field 'input_shape'"):
        checks.load_file(f)


# -- reports -----------------------------------------------------------------------------------

def _mixed(tmp_path):
    write(tmp_path, "a_ok.toml", GATHER_OK)
    write(tmp_path, "b_bad.toml", WRONG + """
[[case]]
name = "skipped one"
op = "neg"
input = [1.0]
expect = [-1.0]
skip = "not today"

[[case]]
name = "broken"
op = "gather"
input = [[1.0]]
dim = 1
index = [[3]]
expect = [[1.0]]
""")
    return tmp_path


def test_junit_has_the_required_elements_and_counts(app, tmp_path):
    d = tmp_path / "cases"
    d.mkdir()
    _mixed(d)
    xml = tmp_path / "report.xml"
    r = invoke(app, d, "--junit", xml)
    assert r.exit_code == 1
    root = ET.parse(xml).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("5", "1", "1", "1")
    suites = root.findall("testsuite")
    assert len(suites) == 2
    for s in suites:
        for attr in ("name", "tests", "failures", "errors", "skipped", "time"):
            assert s.get(attr) is not None, attr
        float(s.get("time"))
    bad = suites[1]
    assert (bad.get("tests"), bad.get("failures"), bad.get("errors"), bad.get("skipped")) == ("3", "1", "1", "1")
    cases = root.iter("testcase")
    for c in cases:
        assert c.get("name") and c.get("classname") and float(c.get("time")) >= 0
    wrong = bad.find("testcase[@name='wrong expectation']")
    failure = wrong.find("failure")
    assert "1 of 2 elements differ" in failure.get("message")
    assert "expected 0.7, got 0.8" in failure.text
    assert bad.find("testcase[@name='broken']/error") is not None
    assert bad.find("testcase[@name='skipped one']/skipped").get("message") == "not today"


def test_json_summary_keys(app, tmp_path):
    d = tmp_path / "cases"
    d.mkdir()
    _mixed(d)
    r = invoke(app, d, "--json")
    assert r.exit_code == 1
    obj = json.loads(r.stdout)
    assert obj["schema"] == "tensorcli.check/2" and obj["command"] == "check"
    assert set(obj["summary"]) >= {"tests", "passed", "failed", "errors", "skipped", "deselected", "wall_s"}
    assert obj["summary"]["tests"] == 5 and obj["summary"]["passed"] == 2
    assert len(obj["cases"]) == 5
    for c in obj["cases"]:
        assert set(c) >= {"file", "name", "classname", "status", "wall_s", "message", "details", "torch"}
        assert c["status"] in ("passed", "failed", "error", "skipped")
    wrong = next(c for c in obj["cases"] if c["name"] == "wrong expectation")
    assert wrong["status"] == "failed" and "expected 0.7, got 0.8" in "\n".join(wrong["details"])


def test_k_filters_cases_by_substring(app, tmp_path):
    d = tmp_path / "cases"
    d.mkdir()
    _mixed(d)
    r = invoke(app, d, "-k", "labels", "--json")
    obj = json.loads(r.stdout)
    assert r.exit_code == 0
    assert [c["name"] for c in obj["cases"]] == ["labels to probabilities"]
    assert obj["summary"]["deselected"] == 4


def test_k_glob_pattern(tmp_path):
    f = write(tmp_path, "ok.toml", GATHER_OK)
    _, cases, _ = checks.load_paths([f])
    assert [c.name for c in checks.select(cases, ["*range*"])] == ["out of range is an error"]


def test_fail_fast_stops_after_the_first_failure(app, tmp_path):
    f = write(tmp_path, "ff.toml", WRONG + GATHER_OK)
    r = invoke(app, f, "--fail-fast", "--json")
    assert r.exit_code == 1
    obj = json.loads(r.stdout)
    statuses = [c["status"] for c in obj["cases"]]
    assert statuses == ["failed", "skipped", "skipped"]
    assert "fail-fast" in obj["cases"][1]["message"]


def test_directory_runs_toml_and_json_files_sorted_not_recursive(tmp_path):
    write(tmp_path, "b.toml", GATHER_OK)
    (tmp_path / "a.json").write_text(json.dumps([{"name": "j", "op": "neg", "input": [1], "expect": [-1]}]))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "not_a_case.json").write_text("[1, 2, 3]")
    files = checks.discover([tmp_path])
    assert [p.name for p in files] == ["a.json", "b.toml"]


# -- --against-torch ------------------------------------------------------------------------

def test_against_torch_reports_agreement(app, tmp_path, torch):
    f = write(tmp_path, "ok.toml", """
        [[case]]
        name = "argmax then gather"
        expr = "torch.gather(s, 1, torch.argmax(s, dim=1, keepdim=True))"
        let = {s = [[0.1, 0.8, 0.3], [0.6, 0.2, 0.9], [0.4, 0.7, 0.1]]}
        expect = [[0.8], [0.9], [0.7]]
        """)
    r = invoke(app, f, "--against-torch", "--json")
    assert r.exit_code == 0, r.output
    (c,) = json.loads(r.stdout)["cases"]
    assert c["torch"]["status"] == "agree"
    assert c["torch"]["result"].startswith("[0.8, 0.9, 0.7]")


def test_against_torch_reports_a_disagreement_that_core_passes(app, tmp_path, torch, monkeypatch):
    from core.ops.registry import OPS
    real = OPS["neg"].fn
    monkeypatch.setattr(OPS["neg"], "fn", lambda input, *, out=None: real(input) * 2)  # a "core bug"
    f = write(tmp_path, "neg.toml", """
        [[case]]
        name = "neg matches core's bug"
        op = "neg"
        input = [1.0, 2.0]
        expect = [-2.0, -4.0]
        """)
    assert invoke(app, f).exit_code == 0            # core alone: the expectation holds
    r = invoke(app, f, "--against-torch")
    assert r.exit_code == 1
    assert "torch: disagree" in r.stdout
    assert "core and torch disagree: result: 2 of 2 elements differ" in r.stdout
    assert "torch: value: 2 of 2 elements differ" in r.stdout


def test_against_torch_reports_a_dtype_difference(tmp_path, torch, monkeypatch):
    from core.ops.registry import OPS
    real = OPS["sum"].fn
    monkeypatch.setattr(OPS["sum"], "fn", lambda input, *a, **k: real(input, *a, **k).to(__import__("core").int32))
    f = write(tmp_path, "s.toml", """
        [[case]]
        name = "sum of ints"
        op = "sum"
        input = [1, 2, 3]
        expect = 6
        """)
    _, cases, _ = checks.load_paths([f])
    (r,) = checks.run(cases, against_torch=True).results
    assert r.status == "failed"
    assert r.torch["status"] == "disagree"
    assert "core and torch disagree: result dtype: core int32, torch int64" in r.details


def test_against_torch_without_torch_exits_2(app, tmp_path, monkeypatch):
    monkeypatch.setitem(checks._ENGINES, "torch", None)
    monkeypatch.delitem(checks._ENGINES, "torch")
    monkeypatch.setitem(sys.modules, "torch", None)    # import torch -> ImportError
    f = write(tmp_path, "ok.toml", GATHER_OK)
    r = invoke(app, f, "--against-torch")
    assert r.exit_code == 2
    assert "--against-torch" in r.stderr and "not installed" in r.stderr


def test_against_torch_skips_cases_core_refused_to_allocate(tmp_path, torch):
    f = write(tmp_path, "big.toml", """
        [[case]]
        name = "terabytes refused"
        expr = "torch.ones(2 ** 40, 2 ** 10)"
        expect_error = "would allocate"
        """)
    _, cases, _ = checks.load_paths([f])
    (r,) = checks.run(cases, against_torch=True).results
    assert r.status == "passed"
    assert r.torch["status"] == "skipped"


# -- examples, speed, subprocess -------------------------------------------------------------

def test_examples_folder_passes():
    rep = checks.run_paths([os.path.join(ROOT, "examples")])
    bad = [(r.name, r.details) for r in rep.results if r.status != "passed"]
    assert not bad
    assert len(rep.results) >= 15


def test_thousand_small_cases_all_pass(tmp_path):
    # their speed is a figure in scripts/bench_check.py, not a timed test
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import bench_check
    finally:
        sys.path.remove(os.path.join(ROOT, "scripts"))
    path = bench_check.write_cases(str(tmp_path), 1000)
    rep = checks.run_paths([path])
    assert rep.summary()["passed"] == 1000


def test_bench_cases_contract():
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import bench_check
    finally:
        sys.path.remove(os.path.join(ROOT, "scripts"))
    rows = bench_check.cases(None)
    assert rows and all(len(r) == 3 and callable(r[1]) and r[2] is None for r in rows)
    for _, core_fn, _ in rows:
        core_fn()


def test_subprocess_exit_codes_and_junit_file(tmp_path):
    write(tmp_path, "bad.toml", WRONG)
    xml = tmp_path / "r.xml"
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "tensorcli.app", "check", str(tmp_path), "--junit", str(xml)],
                       capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 1, p.stderr
    assert "1 failed" in p.stdout
    assert ET.parse(xml).getroot().get("failures") == "1"
    p = subprocess.run([sys.executable, "-m", "tensorcli.app", "check", "examples"],
                       capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stdout + p.stderr


def test_k_matching_nothing_exits_2(app, tmp_path):
    r = invoke(app, write(tmp_path, "ok.toml", GATHER_OK), "-k", "no-such-case")
    assert r.exit_code == 2
    assert "-k: no case matches no-such-case" in r.stderr


def test_examples_agree_with_torch(torch):
    files, cases, errors = checks.load_paths([os.path.join(ROOT, "examples")])
    assert not errors
    rep = checks.run(cases, against_torch=True, files=files)
    bad = [(r.name, r.details) for r in rep.results if r.status != "passed"]
    assert not bad
    statuses = {r.torch["status"] for r in rep.results}
    assert statuses <= {"agree", "skipped"}
    assert sum(r.torch["status"] == "agree" for r in rep.results) >= 40


def test_huge_broadcast_view_is_reported_without_materialising(tmp_path):
    f = write(tmp_path, "v.toml", """
        [[case]]
        name = "terabyte view"
        op = "expand"
        input = [1.0]
        sizes = [1000000, 1000000]
        expect = [1.0]
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "failed"
    assert "value shape: expected [1], got [1000000, 1000000]" in r.message


def test_model_case_on_a_given_input(tmp_path):
    f = write(tmp_path, "bn.toml", """
        [[case]]
        name = "BatchNorm1d(2) on [B, C]"
        model = "BatchNorm1d(2)"
        input = [[2.0, 1.0], [1.0, 4.0]]
        expect = [[1.0, -1.0], [-1.0, 1.0]]
        atol = 1e-4
        """)
    (r,) = checks.run_paths([f]).results
    assert r.status == "passed", r.details


def test_model_case_needs_input_shape_or_input(tmp_path):
    f = write(tmp_path, "m.toml", '[[case]]\nname = "m"\nmodel = "ReLU()"\nexpect_shape = [1]\n')
    with pytest.raises(checks.CaseFileError, match="field 'input_shape': missing required field"):
        checks.load_file(f)


def test_unknown_layer_in_model_spec_is_malformed(tmp_path):
    f = write(tmp_path, "m.toml", '[[case]]\nname = "m"\nmodel = "os.system(1)"\ninput_shape = [1]\n'
                                  'expect_shape = [1]\n')
    with pytest.raises(checks.CaseFileError, match="field 'model'"):
        checks.load_file(f)
