"""`tensorcli memory`: model-spec parsing (never evaluated), the command's table and --json,
the seed's Example 4 as one command checked against torch's saved-tensor counts."""
from __future__ import annotations

from paths import ROOT

import json
import os
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from tensorcli.app import app
from tensorcli.render.memory import progress_bar
from tensorcli.services import memory as mem, models

runner = CliRunner()
DOCS = os.path.join(ROOT, "docs", "memory-json.md")
EXAMPLE4 = ("--model", "Linear(1000,1000)", "--input-shape", "100,1000", "--batches", "5", "--keep-outputs")


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def run_json(*args):
    r = run("memory", *args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def refused(r, *fragments):
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1, err
    for f in fragments:
        assert f in err, err
    return err


# -- the model-spec parser ---------------------------------------------------------------------

@pytest.mark.parametrize("spec, layers", [
    ("Linear(1000,1000)", [("Linear", (1000, 1000), {})]),
    ("Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)",
     [("Conv2d", (3, 16, 3), {}), ("ReLU", (), {}), ("Flatten", (), {}), ("Linear", (14400, 10), {})]),
    ("nn.Linear(4, 2, bias=False)->torch.nn.ReLU", [("Linear", (4, 2), {"bias": False}), ("ReLU", (), {})]),
    ("Conv2d(3, 8, (3, 3), stride=2, padding='same')",
     [("Conv2d", (3, 8, (3, 3)), {"stride": 2, "padding": "same"})]),
    ("LeakyReLU(-0.5) -> Dropout(p=0.1) -> BatchNorm1d(4, eps=1e-3, affine=True)",
     [("LeakyReLU", (-0.5,), {}), ("Dropout", (), {"p": 0.1}), ("BatchNorm1d", (4,), {"eps": 1e-3, "affine": True})]),
])
def test_spec_parser_accepts_layer_chains(spec, layers):
    assert models.parse_model_spec(spec) == layers


@pytest.mark.parametrize("spec, fragment", [
    ("__import__('os').system('true')", "expected a layer call"),
    ("__import__('os')", "unknown layer '__import__'"),
    ("eval('1')", "unknown layer 'eval'"),
    ("os.system('ls')", "unknown layer 'os.system'"),
    ("Linear(10**6, 10**6)", "must be literals"),
    ("Linear(x, 2)", "must be literals, not name 'x'"),
    ("Linear(*a)", "must be literals"),
    ("Linear(**{'in_features': 2})", "'**' arguments"),
    ("Linear(2, 2, _x=1)", "keyword '_x'"),
    ("Linear(2, 2).__class__", "expected a layer call"),
    ("Linear(2, (lambda: 1)())", "must be literals"),
    ("Linear('a b', 2)", "short identifier strings"),
    ("Linear(2, 2) -> ", "layer 2 is empty"),
    ("Linear(2, 2); ReLU()", "not a layer call"),
    ("Foo(1)", "unknown layer 'Foo'"),
    ("", "empty model spec"),
])
def test_spec_parser_rejects_hostile_and_bad_specs(spec, fragment):
    with pytest.raises(models.SpecError) as e:
        models.parse_model_spec(spec)
    assert fragment in e.value.message


def test_spec_parser_limits_length_and_layers():
    with pytest.raises(models.SpecError, match="characters"):
        models.parse_model_spec("ReLU()" + " -> ReLU()" * 400)
    with pytest.raises(models.SpecError, match="more than 64 layers"):
        models.parse_model_spec("->".join(["ReLU"] * 65))


@pytest.mark.parametrize("spec", ["Linear(1000000, 1000000)", "Linear(50000, 50000)",
                                  "Conv2d(100000, 100000, 10)", "Embedding(10**2, 3)"])
def test_huge_or_non_literal_models_exit_2_before_allocating(spec):
    refused(run("memory", "--model", spec, "--input-shape", "2,3"), "--model")


def test_huge_input_shape_exits_2():
    refused(run("memory", "--model", "ReLU()", "--input-shape", "100000,100000"), "--input-shape")


def test_layer_shape_mismatch_exits_2_with_torch_message():
    refused(run("memory", "--model", "Linear(3,2)", "--input-shape", "2,4"),
            "mat1 and mat2 shapes cannot be multiplied (2x4 and 3x2)")


def test_unknown_mode_exits_2():
    refused(run("memory", "--model", "ReLU()", "--input-shape", "2", "--modes", "grad,fast"), "unknown mode 'fast'")


def test_model_and_expr_are_exclusive():
    refused(run("memory", "x", "--model", "ReLU()", "--input-shape", "2"), "not both")
    refused(run("memory", "--model", "ReLU()"), "--input-shape")


# -- the seed's Example 4 as one command --------------------------------------------------------

def test_seed_example4_command_against_torch(torch):
    d = run_json(*EXAMPLE4)
    # torch: the same run, counting what the graph saves (storages, once each)
    storages = {}

    def pack(t):
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    model, outs = torch.nn.Linear(1000, 1000), []
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        for _ in range(5):
            outs.append(model(torch.randn(100, 1000)))
    torch_bytes = sum(storages.values())
    assert torch_bytes == 5 * 400_000
    g, n, i = d["modes"]["grad"], d["modes"]["no_grad"], d["modes"]["inference_mode"]
    # the inputs are made per batch and dropped by the runner: only the graph keeps them
    assert g["graph_bytes"] + g["held_bytes"] == g["graph_bytes"] == torch_bytes
    assert g["saved_bytes"] == torch_bytes
    assert (n["saved_bytes"], i["saved_bytes"], n["graph_nodes"], i["graph_nodes"]) == (0, 0, 0, 0)
    assert g["result_bytes"] == n["result_bytes"] == i["result_bytes"] == 5 * 400_000
    # what stays allocated: grad keeps inputs + outputs, no_grad only the outputs
    assert g["retained_bytes"] >= 4_000_000 and n["retained_bytes"] < 2_200_000
    assert abs(d["ratios"]["retained_bytes"] - 2.0) < 0.2
    assert d["modes"]["grad"]["per_batch_bytes"][-1] > 4 * d["modes"]["grad"]["per_batch_bytes"][0]


def test_json_keys_are_documented():
    d = run_json("--model", "Linear(4,3) -> ReLU()", "--input-shape", "2,4", "--modes", "grad,no_grad,detach")
    with open(DOCS) as f:
        doc = f.read()
    documented = set(re.findall(r"`([a-z_]+)`", doc))
    keys = set(d) | set(d["source"]) | set(d["ratios"]) | {k for m in d["modes"].values() for k in m}
    keys |= {k for layer in d["modes"]["grad"]["per_layer"].values() for k in layer}
    assert keys <= documented, keys - documented
    assert d["schema"] == mem.SCHEMA and list(d["modes"]) == ["grad", "no_grad", "detach"]


def test_detach_mode_keeps_results_without_graph():
    d = run_json("--model", "Linear(50,50)", "--input-shape", "10,50", "--batches", "3", "--keep-outputs",
                 "--modes", "grad,detach")
    g, det = d["modes"]["grad"], d["modes"]["detach"]
    assert det["graph_nodes"] == det["saved_bytes"] == 0
    assert det["result_bytes"] == g["result_bytes"] == 3 * 10 * 50 * 4
    assert g["graph_bytes"] == 3 * 10 * 50 * 4


def test_backward_frees_the_graph():
    d = run_json("--model", "Linear(8,4) -> ReLU() -> Linear(4,1)", "--input-shape", "5,8", "--batches", "2",
                 "--keep-outputs", "--backward", "--modes", "grad,no_grad")
    g, n = d["modes"]["grad"], d["modes"]["no_grad"]
    assert g["backward"] and g["saved_bytes"] == 0 and g["freed_nodes"] > 0
    assert not n["backward"] and "skipped" in n["note"]


def test_input_file_is_held_not_graph(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones((6, 4), dtype=np.float32))
    d = run_json("--model", "Linear(4,2)", "--input", str(path), "--batches", "3", "--keep-outputs",
                 "--modes", "grad")
    g = d["modes"]["grad"]
    assert (g["held_bytes"], g["graph_bytes"]) == (96, 0)


def test_expression_mode_with_let():
    d = run_json("y = (x @ w).relu(); y.sigmoid()", "--let", "x=[[1.0, 2.0], [3.0, 4.0]]",
                 "--let", "w=[[0.5], [0.25]]", "--requires-grad", "w", "--batches", "3", "--keep-outputs",
                 "--modes", "grad,no_grad")
    g = d["modes"]["grad"]
    # x (held, 16 B) once (w is not saved: x needs no gradient, as in torch); each batch's relu
    # output (graph) and sigmoid output (a kept result, so held)
    assert (g["parameter_bytes"], g["graph_bytes"], g["held_bytes"]) == (0, 24, 16 + 24)
    assert d["modes"]["no_grad"]["saved_bytes"] == 0 and d["source"]["expr"].startswith("y =")


def test_expression_refusal_exits_2():
    refused(run("memory", "__import__('os')"), "EXPR")


def test_table_shows_modes_ratio_layers_and_bars():
    r = run("memory", "--model", "Linear(20,10) -> ReLU() -> Linear(10,2)", "--input-shape", "4,20",
            "--batches", "2", "--keep-outputs")
    assert r.exit_code == 0, r.output
    out = r.stdout
    for text in ("grad", "no_grad", "inference_mode", "grad / no_grad:", "per layer", "Linear", "ReLU",
                 "bytes per mode", "█"):
        assert text in out, out
    assert len(max(out.splitlines(), key=len)) <= 80


def test_progress_bar_only_for_long_runs():
    assert progress_bar(2, ("grad", "no_grad"), True)[1] is None
    bar, update = progress_bar(50, ("grad",), True)
    assert bar is not None and callable(update)


def test_spec_layers_are_the_layers_of_core_nn(torch):
    """LAYERS come from core.nn by name: each is a torch.nn layer too (containers and losses excluded)."""
    names = models.layer_names()
    assert {"Linear", "Conv2d", "ReLU", "Flatten"} <= set(names)
    for n in names:
        assert issubclass(getattr(torch.nn, n), torch.nn.Module), n
        assert not n.endswith("Loss") and n not in ("Sequential", "ModuleList", "ModuleDict")


def test_layer_without_a_param_shape_rule_is_counted_when_built():
    with pytest.raises(models.SpecError, match="unknown layer 'NoSuchLayer'"):
        models.parse_model_spec("NoSuchLayer(3)")
    model = models.build_model("Unfold(2) -> Identity()")
    assert [type(m).__name__ for m in model] == ["Unfold", "Identity"]
