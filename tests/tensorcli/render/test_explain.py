"""--explain's views beyond the rows: --at on a large input (one element traced), --max-rows, --dim all
side by side (a failing dim in its own column), the rules per kind (checked against torch's
numbers), argmax / max ties as torch breaks them, --backward's node names, --grid and --svg."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import cli_app_with
import core
from tensorcli import app as cli_app


@pytest.fixture(scope="module")
def app():
    return cli_app_with(("ops",))


def run(app, *argv, code=0):
    r = CliRunner().invoke(app, [str(a) for a in argv], env={"NO_COLOR": "1"})
    assert r.exit_code == code, (r.stdout, r.stderr)
    return r.stdout if code == 0 else r.stderr


def run_json(app, *argv):
    return json.loads(run(app, *argv, "--json"))


def js(a):
    return json.dumps(np.asarray(a).tolist())


def test_at_traces_one_element_of_a_1000x1000_input(torch, app, tmp_path, monkeypatch):
    x = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "i.npy", np.random.default_rng(1).integers(0, 1000, (1000, 1000)))
    calls = []
    orig = core.autograd.grad
    monkeypatch.setattr(core.autograd, "grad", lambda *a, **k: calls.append(1) or orig(*a, **k))
    obj = run_json(app, "sum", tmp_path / "x.npy", "--dim", "1", "--at", "3")
    assert calls == [1] and len(obj["explain"]) == 1
    row = obj["explain"][0]
    assert [s["index"] for s in row["from"]] == [[3, j] for j in range(1000)]
    assert np.isclose(row["value"], torch.tensor(x).sum(1)[3].item(), rtol=1e-5)
    assert "(1000 terms)" in row["rule"]
    # a movement op over the element limit of position codes: one element by autograd
    obj = run_json(app, "gather", tmp_path / "x.npy", "--dim", "1", "--index", tmp_path / "i.npy", "--at", "3,4")
    want = torch.tensor(x).gather(1, torch.tensor(np.load(tmp_path / "i.npy")))[3, 4].item()
    (row,) = obj["explain"]
    assert row["from"] == [{"input": "input", "index": [3, int(np.load(tmp_path / "i.npy")[3, 4])], "weight": 1}]
    assert row["value"] == pytest.approx(want)


def test_max_rows_says_how_many_rows_were_left_out(app):
    x = np.arange(12.0).reshape(4, 3)
    obj = run_json(app, "softmax", js(x), "--dim", "1", "--explain", "--max-rows", "5")
    assert len(obj["explain"]) == 5 and obj["explain_left_out"] == 7
    assert obj["explain_schema"] == "tensorcli.explain/1" and obj["explain_kind"] == "softmax"
    text = run(app, "softmax", js(x), "--dim", "1", "--explain", "--max-rows", "5")
    assert "... 7 more rows left out" in text


def test_dim_all_side_by_side_with_a_failing_dim(torch, app):
    x = np.arange(24).reshape(2, 3, 4)
    index = np.array([[[0, 1, 2, 1]], [[1, 2, 0, 0]]])    # [2, 1, 4]: fits dims 1 and 2 only for values
    obj = run_json(app, "gather", js(x), "--dim", "all", "--index", js(index), "--explain")
    assert [d["dim"] for d in obj["dims"]] == [0, 1, 2]
    for d in obj["dims"]:
        try:
            want = torch.tensor(x).gather(d["dim"], torch.tensor(index)).numpy()
        except RuntimeError:
            assert "error" in d and "gather" in d["error"]
            continue
        assert d["result"]["data"] == want.tolist() and d["explain"]
    assert any("error" in d for d in obj["dims"])
    text = run(app, "gather", js(x), "--dim", "all", "--index", js(index))
    header = text.splitlines()[0]
    assert re.search(r"dim=0\s*\|\s*dim=1\s*\|\s*dim=2", header) and "error:" in text


def test_dim_all_with_at_traces_that_element_under_every_dim(torch, app):
    x = np.arange(8).reshape(2, 2, 2)
    index = np.array([[[0, 1], [1, 0]], [[1, 1], [0, 0]]])
    obj = run_json(app, "gather", js(x), "--dim", "all", "--index", js(index), "--at", "0,1,0")
    for d in obj["dims"]:
        (row,) = d["explain"]
        assert row["value"] == torch.tensor(x).gather(d["dim"], torch.tensor(index))[0, 1, 0].item()


def test_sum_and_mean_rules_show_terms_and_divisor(torch, app):
    x = [[1.0, 2, 4], [3, 5, 9]]
    (r0, r1) = run_json(app, "sum", js(x), "--dim", "1", "--explain")["explain"]
    assert r0["rule"] == "out[0] = input[0][0] + input[0][1] + input[0][2] = 1 + 2 + 4 = 7"
    assert r1["value"] == torch.tensor(x).sum(1)[1].item()
    cum = run_json(app, "cumsum", js(x), "--dim", "1", "--explain")["explain"]
    assert [len(r["from"]) for r in cum] == [1, 2, 3, 1, 2, 3]    # the prefix
    assert cum[2]["value"] == torch.tensor(x).cumsum(1)[0, 2].item()


def test_max_winner_and_ties_as_torch(torch, app):
    x = [[3.0, 1, 3], [2, 2, 0], [0, 5, 1]]
    obj = run_json(app, "max", js(x), "--dim", "1", "--explain")
    values, indices = torch.tensor(x).max(1)
    for r, v, i in zip(obj["explain"], values, indices):
        assert [s["index"] for s in r["from"]] == [[r["out"][0], i.item()]] and r["value"] == v.item()
    assert "torch takes the first index" in obj["explain"][0]["rule"]
    am = run_json(app, "argmax", js(x), "--dim", "1", "--explain")
    assert [r["value"] for r in am["explain"]] == torch.tensor(x).argmax(1).tolist()
    assert "first index" in am["explain"][1]["rule"]


def test_softmax_rule_divides_by_the_sum_of_exps(torch, app):
    x = [[1.0, 2, 3]]
    (r,) = run_json(app, "softmax", js(x), "--dim", "1", "--explain", "--at", "0,2")["explain"]
    total = torch.tensor(x).exp().sum().item()
    assert f"/ {total:.4g} = " in r["rule"] and "exp(input[0][2]) / (exp(input[0][0])" in r["rule"]
    assert r["value"] == pytest.approx(torch.softmax(torch.tensor(x), 1)[0, 2].item())


@pytest.mark.parametrize("shape, dims", [((3, 2), "dim 0"), ((2, 2, 3), "dims 0,2")])
def test_batch_norm_says_over_which_elements(torch, app, shape, dims):
    x = np.random.default_rng(0).standard_normal(shape).round(1)
    c = shape[1]
    obj = run_json(app, "batch-norm", js(x), "--running-mean", js([0.0] * c), "--running-var", js([1.0] * c),
                   "--training", "--explain", "--at", ",".join("1" for _ in shape))
    (r,) = obj["explain"]
    axes = (0,) if len(shape) == 2 else (0, 2)
    mean = torch.tensor(x).mean(axes)[1].item()
    assert f"over {dims}:" in r["rule"] and f"mean {mean:.4g}," in r["rule"]
    assert len(r["from"]) == x.size // c


def test_contraction_pairs_factors_even_with_zeros(torch, app):
    a, b = [[1.0, 2], [3, 4]], [[0.0, 5], [0, 1]]
    obj = run_json(app, "einsum", "ij,jk->ik", js(a), js(b), "--explain", "--at", "1,0")
    (r,) = obj["explain"]
    assert "tensors[0][1][0]·tensors[1][0][0] + tensors[0][1][1]·tensors[1][1][0]" in r["rule"]
    assert "summed over j" in r["rule"]
    assert r["value"] == torch.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b))[1, 0].item()


def test_backward_names_torchs_nodes(torch, app):
    x, index = [[1.0, 2, 3], [4, 5, 6]], [[0, 0], [2, 1]]
    obj = run_json(app, "gather", js(x), "--dim", "1", "--index", js(index), "--backward")
    t = torch.tensor(x, requires_grad=True)
    out = t.gather(1, torch.tensor(index))
    go = torch.ones_like(out, requires_grad=True)
    (g,) = torch.autograd.grad(out, t, go, create_graph=True)
    assert obj["grad_fn"] == out.grad_fn.name() and obj["grad_computed_by"] == [g.grad_fn.name()]
    assert [r["value"] for r in obj["backward"]] == g.flatten().tolist()
    text = run(app, "gather", js(x), "--dim", "1", "--index", js(index), "--backward")
    assert "grad_input[0][0] = grad_out[0][0] + grad_out[0][1] = 1 + 1 = 2" in text
    assert "grad_input[0][1] = 0  (no output element depends on it)" in text


def test_refusals_are_one_line(app):
    big = "[" + ",".join(["0"] * 5000) + "]"     # no gradient, too many elements to probe
    err = run(app, "nonzero", big, "--explain", code=2)
    assert len(err.strip().splitlines()) == 1 and "no element mapping" in err
    err = run(app, "nonzero", "[[0,1],[2,0]]", "--backward", code=2)
    assert len(err.strip().splitlines()) == 1 and "no gradient" in err
    err = run(app, "sum", "[1.0,2]", "--dim", "0", "--backward", "--grad-output", "[1.0,2]", code=2)
    assert "--grad-output has shape [2]" in err
    err = run(app, "sum", "[1.0,2]", "--dim", "0", "--grad-output", "1.0", code=2)
    assert "--grad-output: only with --backward" in err


def test_grid_readable_without_colour_and_svg(app, tmp_path):
    text = run(app, "gather", "[[1,2,3],[4,5,6]]", "--dim", "1", "--index", "[[0,0],[2,1]]", "--grid")
    assert "\x1b[" not in text
    assert "1 A,B " in text and "2 ·" in text and "A:1" in text    # read by both; never read; output labels
    svg = tmp_path / "g.svg"
    run(app, "gather", "[[1,2,3],[4,5,6]]", "--dim", "1", "--index", "[[0,0],[2,1]]", "--svg", svg)
    assert svg.read_text().lstrip().startswith("<svg")


def test_grid_of_a_scalar_result_and_of_the_explained_output(torch, app):
    """equal's Python bool is one output cell read by every element; linalg.lu's grid shows L (the
    output the rows describe), torch's L."""
    text = run(app, "equal", "[1,2]", "--other", "[1,2]", "--grid")
    assert "1 A" in text and "2 A" in text and "A:1" in text
    text = run(app, "linalg.lu", "[[3.0,3.0],[6.0,3.0]]", "--grid")
    L = torch.linalg.lu(torch.tensor([[3.0, 3.0], [6.0, 3.0]])).L
    assert f"C:{L[1, 0].item():g}" in text and "A:1" in text
