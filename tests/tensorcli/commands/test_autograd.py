"""`tensorcli grad`, `graph`, `modes`: the seed autograd examples as one command each, and the
--json output compared with PyTorch running the SAME expression (tensorcli.services.expr evaluates it
with a torch backend; the grad/graph/modes logic is mirrored on the torch side below)."""
from __future__ import annotations

from paths import ROOT

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import core
from tensorcli.services import expr as expr_mod
from tensorcli.app import app

runner = CliRunner()
NON_LEAF = "non-leaf: .grad is not populated; use --retain-grad NAME"
HOOK_SEED = ("x = torch.Tensor([0, 1, 2, 3]).requires_grad_(); y = torch.Tensor([4, 5, 6, 7]).requires_grad_(); "
             "w = torch.Tensor([1, 2, 3, 4]).requires_grad_(); z = x+y; o = w.matmul(z)")
RETAIN_SEED = "y = x ** 2; z = y * 4; output1 = z.mean(); output2 = z.sum()"
X14 = "[[0.5, -1.0, 2.0, 1.5]]"


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def run_json(*args):
    r = run(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def by_name(report):
    return {t["name"]: t for t in report["tensors"]}


# -- the torch side ------------------------------------------------------------------------------

def torch_functions(torch):
    class MultiplyAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, w, x, b):
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors
            return grad_output * x, grad_output * w, grad_output * 1

    class GradientRescale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, scale=0.2):
            ctx.save_for_backward(input)
            ctx.scale = scale
            return input.view_as(input)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.scale, None

    return {"MultiplyAdd.apply": MultiplyAdd.apply, "GradientRescale.apply": GradientRescale.apply}


def torch_names(torch, lets, requires_grad=()):
    names = {}
    for n, v in lets.items():
        t = torch.tensor(json.loads(v))
        if n in requires_grad:
            t.requires_grad_(True)
        names[n] = t
    return names


def torch_eval(torch, source, lets, requires_grad=(), names=None):
    names = torch_names(torch, lets, requires_grad) if names is None else names
    backend = expr_mod.Backend.from_module(torch)
    return expr_mod.evaluate(source, names, extra_callables=torch_functions(torch), backend=backend)


def torch_named(torch, ns):
    out = {}
    for n, v in ns.items():
        if isinstance(v, torch.Tensor):
            out[n] = v
        elif isinstance(v, (list, tuple)):
            out.update({f"{n}[{i}]": t for i, t in enumerate(v) if isinstance(t, torch.Tensor)})
    return out


def torch_grad(torch, source, lets, requires_grad=(), gradient=None, retain_grad=(), of=None):
    result, ns = torch_eval(torch, source, lets, requires_grad)
    named = torch_named(torch, ns)
    for n in retain_grad:
        named[n].retain_grad()
    target = named[of] if of else result
    target.backward(None if gradient is None else torch.tensor(json.loads(gradient)))
    return named


def assert_tensor_rows_match(report, named):
    rows = by_name(report)
    assert set(rows) == set(named)
    for n, t in named.items():
        row = rows[n]
        assert row["is_leaf"] == t.is_leaf, n
        assert row["requires_grad"] == t.requires_grad, n
        assert row["grad_fn"] == (t.grad_fn.name() if t.grad_fn is not None else None), n
        assert row["dtype"] == str(t.dtype).removeprefix("torch.") and row["shape"] == list(t.shape), n
        g = t.grad if (t.is_leaf or t.retains_grad) else None
        if g is None:
            assert row["grad"] is None, n
        else:
            np.testing.assert_allclose(np.asarray(row["grad"], dtype=np.float64),
                                       g.detach().numpy().astype(np.float64), rtol=1e-6, atol=1e-7)


# -- the seed examples, one command each ------------------------------------------------------------

def test_seed_backward_with_gradient_weights_matches_torch(torch):
    rep = run_json("grad", "y = 2 * x ** 2", "--let", "x=[1.0, 1.0, 1.0]", "--requires-grad", "x",
                   "--gradient", "[0.1, 1.0, 0.0001]")
    np.testing.assert_allclose(by_name(rep)["x"]["grad"], [0.4, 4.0, 0.0004], rtol=1e-6)
    named = torch_grad(torch, "y = 2 * x ** 2", {"x": "[1.0, 1.0, 1.0]"}, ["x"], gradient="[0.1, 1.0, 0.0001]")
    assert_tensor_rows_match(rep, named)


def test_seed_scalar_backward_with_gradient_prints_x_grad():
    r = run("grad", "y = 2 * x ** 2", "--let", "x=[1.0]", "--requires-grad", "x", "--gradient", "[0.1]")
    assert r.exit_code == 0, r.output
    assert "x.grad: tensor([0.4000])" in r.stdout


def test_seed_hook_prints_gradient_through_z_and_z_grad_none():
    r = run("grad", HOOK_SEED, "--hook", "z")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "hook z: tensor([1., 2., 3., 4.])" in lines
    assert "x.grad: tensor([1., 2., 3., 4.])" in lines
    assert "y.grad: tensor([1., 2., 3., 4.])" in lines
    assert "w.grad: tensor([ 4.,  6.,  8., 10.])" in lines
    assert f"z.grad: None  ({NON_LEAF})" in lines


def test_seed_hook_json_matches_torch(torch):
    rep = run_json("grad", HOOK_SEED, "--hook", "z")
    assert rep["hooks"] == [{"name": "z", "pass": 1, "grad": [1.0, 2.0, 3.0, 4.0],
                             "text": "tensor([1., 2., 3., 4.])"}]
    assert by_name(rep)["z"]["grad"] is None and by_name(rep)["z"]["note"] == NON_LEAF
    assert_tensor_rows_match(rep, torch_grad(torch, HOOK_SEED, {}))


def test_seed_retain_graph_error_is_shown_as_expected_outcome(torch):
    rep = run_json("grad", RETAIN_SEED, "--let", f"x={X14}", "--requires-grad", "x",
                   "--of", "output1", "--then", "output2")
    first, second = rep["backward"]
    assert first["ok"] and not second["ok"]
    x = torch.tensor(json.loads(X14), requires_grad=True)
    z = x ** 2 * 4
    o1, o2 = z.mean(), z.sum()
    o1.backward()
    with pytest.raises(RuntimeError) as info:
        o2.backward()
    assert second["error"] == {"type": "RuntimeError", "message": str(info.value)}
    np.testing.assert_allclose(by_name(rep)["x"]["grad"], x.grad.numpy(), rtol=1e-6)


def test_seed_retain_graph_fix_accumulates_both_passes(torch):
    rep = run_json("grad", RETAIN_SEED, "--let", f"x={X14}", "--requires-grad", "x",
                   "--of", "output1", "--then", "output2", "--retain-graph")
    first, second = rep["backward"]
    assert first["ok"] and second["ok"] and first["retain_graph"]
    x = torch.tensor(json.loads(X14), requires_grad=True)
    z = x ** 2 * 4
    z.mean().backward(retain_graph=True)
    np.testing.assert_allclose(first["grads"]["x"], x.grad.numpy(), rtol=1e-6)
    z.sum().backward()
    np.testing.assert_allclose(second["grads"]["x"], x.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(by_name(rep)["x"]["grad"], x.grad.numpy(), rtol=1e-6)


def test_backward_twice_without_retain_graph_exits_0_and_names_retain_graph():
    r = run("grad", RETAIN_SEED, "--let", f"x={X14}", "--requires-grad", "x", "--backward-twice")
    assert r.exit_code == 0, r.output
    assert "Trying to backward through the graph a second time" in r.stdout
    assert "--retain-graph" in r.stdout


def test_backward_twice_on_the_result_with_retain_graph_doubles_grad(torch):
    rep = run_json("grad", RETAIN_SEED, "--let", f"x={X14}", "--requires-grad", "x", "--backward-twice",
                   "--retain-graph")
    x = torch.tensor(json.loads(X14), requires_grad=True)
    out = (x ** 2 * 4).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert [p["of"] for p in rep["backward"]] == ["output2", "output2"]
    np.testing.assert_allclose(by_name(rep)["x"]["grad"], x.grad.numpy(), rtol=1e-6)


def test_seed_multiply_add_grads_match_torch(torch):
    lets = {"x": "[1.0]", "w": "[0.37]", "b": "[0.81]"}
    args = [a for n, v in lets.items() for a in ("--let", f"{n}={v}")]
    rep = run_json("grad", "z = MultiplyAdd.apply(w, x, b)", *args, "--requires-grad", "w,b")
    rows = by_name(rep)
    assert rows["x"]["grad"] is None and rows["w"]["grad"] == [1.0] and rows["b"]["grad"] == [1.0]
    assert rows["z"]["grad_fn"] == "MultiplyAddBackward"
    assert_tensor_rows_match(rep, torch_grad(torch, "z = MultiplyAdd.apply(w, x, b)", lets, ["w", "b"]))


def test_seed_multiply_add_prints_seed_result():
    r = run("grad", "z = MultiplyAdd.apply(w, x, b)", "--let", "x=[1.0]", "--let", "w=[0.37]",
            "--let", "b=[0.81]", "--requires-grad", "w,b")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "x.grad: None  (does not require grad)" in lines
    assert "w.grad: tensor([1.])" in lines and "b.grad: tensor([1.])" in lines


def test_gradient_rescale_scales_incoming_gradient_like_torch(torch):
    src = "y = GradientRescale.apply(x * 3, 0.2); s = (y * y).sum()"
    rep = run_json("grad", src, "--let", "x=[1.0, -2.0]", "--requires-grad", "x")
    assert by_name(rep)["y"]["grad_fn"] == "GradientRescaleBackward"
    assert_tensor_rows_match(rep, torch_grad(torch, src, {"x": "[1.0, -2.0]"}, ["x"]))


# -- grad: more expressions compared with torch -----------------------------------------------------

GRAD_CASES = [
    ("h = torch.tanh(x @ w + b); loss = (h ** 2).mean()",
     {"x": "[[1.0, 2.0], [3.0, -1.0]]", "w": "[[0.5], [-0.25]]", "b": "[0.1]"}, ["w", "b"]),
    ("s = torch.sigmoid(x).sum() + (x * w).sum()", {"x": "[0.5, -1.5, 2.0]", "w": "[1.0, 2.0, 3.0]"}, ["x", "w"]),
    ("y = x.exp(); z = y[0] * 3 + y.sum(); r = z / 2", {"x": "[0.1, 0.2, 0.3]"}, ["x"]),
    ("a, c = x.chunk(2); o = (a * c).sum()", {"x": "[1.0, 2.0, 3.0, 4.0]"}, ["x"]),
    ("y = x.reshape(2, 2).t(); m = y.relu().mean()", {"x": "[1.0, -2.0, 3.0, -4.0]"}, ["x"]),
    ("y = x * 2; y = y + 1; o = y.pow(3).sum()", {"x": "[1.0, 2.0]"}, ["x"]),
    ("y = (x - x.mean()) ** 2; v = y.sum() / 3", {"x": "[[1.0, 4.0], [2.0, 8.0]]"}, ["x"]),
    ("q = x.max(); r = q * w.sum()", {"x": "[1.0, 5.0, 3.0]", "w": "[2.0, 3.0]"}, ["x", "w"]),
]


@pytest.mark.parametrize("source,lets,rg", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_json_matches_torch(torch, source, lets, rg):
    args = [a for n, v in lets.items() for a in ("--let", f"{n}={v}")]
    rep = run_json("grad", source, *args, "--requires-grad", ",".join(rg))
    assert_tensor_rows_match(rep, torch_grad(torch, source, lets, rg))


def test_retain_grad_populates_a_non_leaf_like_torch(torch):
    src = "y = x * 3; o = (y ** 2).sum()"
    rep = run_json("grad", src, "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--retain-grad", "y")
    rows = by_name(rep)
    assert rows["y"]["retains_grad"] and rows["y"]["note"] is None
    assert_tensor_rows_match(rep, torch_grad(torch, src, {"x": "[1.0, 2.0]"}, ["x"], retain_grad=["y"]))


def test_of_selects_the_backward_target_like_torch(torch):
    src = "y = x * 3; o = (y ** 2).sum()"
    rep = run_json("grad", src, "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--of", "y",
                   "--gradient", "[1.0, 0.5]")
    assert_tensor_rows_match(rep, torch_grad(torch, src, {"x": "[1.0, 2.0]"}, ["x"], gradient="[1.0, 0.5]", of="y"))


def test_hook_on_a_leaf_fires_with_its_gradient():
    rep = run_json("grad", "o = (x * x).sum()", "--let", "x=[1.0, 3.0]", "--requires-grad", "x", "--hook", "x")
    assert rep["hooks"] == [{"name": "x", "pass": 1, "grad": [2.0, 6.0], "text": "tensor([2., 6.])"}]


def test_non_scalar_result_without_gradient_is_pytorchs_error():
    r = run("grad", "y = 2 * x", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    assert r.exit_code == 2
    assert "grad can be implicitly created only for scalar outputs" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_result_not_requiring_grad_is_pytorchs_error():
    r = run("grad", "y = x.sum()", "--let", "x=[1.0, 2.0]")
    assert r.exit_code == 2
    assert "element 0 of tensors does not require grad and does not have a grad_fn" in r.stderr


def test_gradient_of_wrong_shape_is_pytorchs_error(torch):
    r = run("grad", "y = 2 * x", "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--gradient", "[1.0, 2.0, 3.0]")
    assert r.exit_code == 2 and "--gradient" in r.stderr
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        (2 * x).backward(torch.tensor([1.0, 2.0, 3.0]))
    assert str(info.value) in r.stderr


def test_requires_grad_on_integer_tensor_is_pytorchs_error(torch):
    r = run("grad", "y = x.sum()", "--let", "x=[1, 2]", "--requires-grad", "x")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    with pytest.raises(RuntimeError) as info:
        torch.tensor([1, 2]).requires_grad_()
    assert "--requires-grad" in r.stderr and str(info.value) in r.stderr


def test_dtype_casts_let_tensors_so_integers_can_require_grad():
    rep = run_json("grad", "o = (x * x).sum()", "--let", "x=[1, 2]", "--dtype", "float64", "--requires-grad", "x")
    assert by_name(rep)["x"]["dtype"] == "float64" and by_name(rep)["x"]["grad"] == [2.0, 4.0]


@pytest.mark.parametrize("args,arg", [
    (["--requires-grad", "q"], "--requires-grad"),
    (["--hook", "q"], "--hook"),
    (["--retain-grad", "q"], "--retain-grad"),
    (["--of", "q"], "--of"),
    (["--then", "q"], "--then"),
    (["--let", "x=[3.0]"], "--let"),
    (["--let", "torch=[1.0]"], "--let"),
    (["--let", "novalue"], "--let"),
    (["--max-bytes", "lots"], "--max-bytes"),
    (["--dtype", "float17"], "--dtype"),
])
def test_bad_option_exits_2_naming_it(args, arg):
    r = run("grad", "o = (x * x).sum()", "--let", "x=[1.0]", "--requires-grad", "x", *args)
    assert r.exit_code == 2, r.output
    assert arg in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_hook_on_tensor_not_requiring_grad_is_pytorchs_error():
    r = run("grad", "o = (x * w).sum()", "--let", "x=[1.0]", "--let", "w=[2.0]", "--requires-grad", "w",
            "--hook", "x")
    assert r.exit_code == 2
    assert "--hook: x: cannot register a hook on a tensor that doesn't require gradient" in r.stderr


def test_runtime_error_inside_expression_exits_2_with_one_line():
    """One line; a shape error adds its drawing under it (tests/tensorcli/services/test_shape_errors.py)."""
    r = run("grad", "y = x @ w", "--let", "x=[[1.0, 2.0]]", "--let", "w=[[1.0, 2.0]]")
    assert r.exit_code == 2
    first, *drawn = r.stderr.splitlines()
    assert first.startswith("tensorcli: error: EXPR: RuntimeError:") and drawn[-1].startswith("  rule: matmul")
    assert all(line.startswith("  ") for line in drawn)
    r = run("grad", "y = (x * x).sum(); y.backward(); y.backward()", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1


def test_let_reads_stdin():
    r = run("grad", "o = (x * x).sum()", "--let", "x=-", "--requires-grad", "x", "--json", input="[1.0, 2.0]")
    assert r.exit_code == 0, r.output
    assert by_name(json.loads(r.stdout))["x"]["grad"] == [2.0, 4.0]


def test_let_reads_json_file(tmp_path):
    p = tmp_path / "w.json"
    p.write_text('{"data": [[1.0, 2.0]], "dtype": "float64"}')
    rep = run_json("grad", "o = (w ** 2).sum()", "--let", f"w={p}", "--requires-grad", "w")
    assert by_name(rep)["w"]["dtype"] == "float64" and by_name(rep)["w"]["grad"] == [[2.0, 4.0]]


def test_unnamed_result_is_reported_as_result():
    rep = run_json("grad", "(x * x).sum()", "--let", "x=[1.0]", "--requires-grad", "x")
    assert rep["result"]["name"] == "(result)" and rep["backward"][0]["of"] == "(result)"
    assert by_name(rep)["(result)"]["grad_fn"] == "SumBackward0"


def test_nan_gradient_is_encoded_as_string():
    rep = run_json("grad", "o = (x.sqrt()).sum()", "--let", "x=[-1.0, 4.0]", "--requires-grad", "x")
    assert by_name(rep)["x"]["grad"] == ["NaN", 0.25]


# -- graph -----------------------------------------------------------------------------------------

def _torch_name(fn):
    # torch's AccumulateGrad.name() is 'torch::autograd::AccumulateGrad'; its class name is AccumulateGrad
    return "AccumulateGrad" if type(fn).__name__ == "AccumulateGrad" else fn.name()


def _torch_tree(fn, leaf_names):
    if fn is None:
        return None
    node = {"name": _torch_name(fn)}
    if node["name"] == "AccumulateGrad":
        node["variable"] = leaf_names.get(id(fn.variable))
        return node
    node["next"] = [_torch_tree(f, leaf_names) for f, _ in fn.next_functions if f is not None]
    return node


def _core_tree(d, by_id):
    if d.get("ref"):
        d = by_id[d["id"]]
    node = {"name": d["name"]}
    if d["name"] == "AccumulateGrad":
        node["variable"] = d["variable"]
        return node
    node["next"] = [_core_tree(c, by_id) for c in d["next"] if c is not None]
    return node


def _ids(d, out):
    if d is not None and not d.get("ref"):
        out[d["id"]] = d
        for c in d.get("next", ()):
            _ids(c, out)
    return out


GRAPH_CASES = [
    (HOOK_SEED, {}, []),
    ("y = 2 * x ** 2; s = y.sum()", {"x": "[1.0, 1.0, 1.0]"}, ["x"]),
    ("h = torch.tanh(x @ w + b); loss = (h ** 2).mean()",
     {"x": "[[1.0, 2.0], [3.0, -1.0]]", "w": "[[0.5], [-0.25]]", "b": "[0.1]"}, ["w", "b"]),
    ("z = MultiplyAdd.apply(w, x, b); q = (z * z + GradientRescale.apply(z)).sum()",
     {"x": "[1.0]", "w": "[0.3]", "b": "[0.7]"}, ["w", "b"]),
    ("y = x * x; o = y.sum() + y.mean()", {"x": "[1.0, 2.0]"}, ["x"]),
]


@pytest.mark.parametrize("source,lets,rg", GRAPH_CASES, ids=[c[0][:40] for c in GRAPH_CASES])
def test_graph_json_matches_torch_structure(torch, source, lets, rg):
    args = [a for n, v in lets.items() for a in ("--let", f"{n}={v}")]
    if rg:
        args += ["--requires-grad", ",".join(rg)]
    rep = run_json("graph", source, *args)
    result, ns = torch_eval(torch, source, lets, rg)
    named = torch_named(torch, ns)
    leaf_names = {id(t): n for n, t in reversed(list(named.items()))}
    assert _core_tree(rep["graph"], _ids(rep["graph"], {})) == _torch_tree(result.grad_fn, leaf_names)
    assert rep["result"]["grad_fn"] == result.grad_fn.name()
    assert rep["result"]["requires_grad"] == result.requires_grad


def test_graph_shows_saved_tensors_and_custom_needs_input_grad():
    rep = run_json("graph", "z = MultiplyAdd.apply(w, x, b)", "--let", "x=[1.0]", "--let", "w=[0.3]",
                   "--let", "b=[0.7]", "--requires-grad", "w,b")
    g = rep["graph"]
    assert g["name"] == "MultiplyAddBackward" and g["custom"] is True
    assert g["needs_input_grad"] == [True, False, True]
    assert [(s["name"], s["shape"], s["dtype"], s["bytes"]) for s in g["saved"]] == [
        ("w", [1], "float32", 4), ("x", [1], "float32", 4)]
    assert [c and c.get("variable") for c in g["next"]] == ["w", None, "b"]


def test_graph_shared_node_is_shown_once_then_referenced():
    rep = run_json("graph", "y = x * x; o = y.sum() + y.mean()", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    add = rep["graph"]
    sum_node, mean_node = add["next"]
    assert sum_node["next"][0]["name"] == "MulBackward0" and "ref" not in sum_node["next"][0]
    assert mean_node["next"][0] == {"name": "MulBackward0", "id": sum_node["next"][0]["id"], "ref": True}
    assert rep["graph_nodes"] == 4


def test_graph_tree_text_names_nodes_leaves_and_saved_bytes():
    r = run("graph", HOOK_SEED)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "DotBackward0" in out and "saved: w float32 [4] 16 B; z float32 [4] 16 B" in out
    assert "AccumulateGrad -> x (float32 [4])" in out and "AddBackward0" in out


def test_graph_of_result_without_grad_explains_why():
    rep = run_json("graph", "y = x * 2", "--let", "x=[1.0]")
    assert rep["graph"] is None and "does not require grad" in rep["note"] and rep["graph_nodes"] == 0


def test_graph_max_depth_truncates():
    src = "y = x.exp().exp().exp().exp().exp()"
    rep = run_json("graph", src, "--let", "x=[0.1]", "--requires-grad", "x", "--max-depth", "2")
    node = rep["graph"]["next"][0]["next"][0]
    assert node["truncated"] is True and node["next"] == []


def test_graph_of_a_long_chain_renders_json_and_tree():
    src = "; ".join(["y = x * 1.0"] + ["y = y * 1.0"] * 99)
    rep = run_json("graph", src, "--let", "x=[1.0]", "--requires-grad", "x")
    assert rep["graph_nodes"] == 100
    r = run("graph", src, "--let", "x=[1.0]", "--requires-grad", "x")
    assert r.exit_code == 0 and "deeper nodes not shown" in r.stdout


# -- modes ----------------------------------------------------------------------------------------

def _torch_nodes(fn, seen=None):
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return 0
    seen.add(id(fn))
    own = 0 if _torch_name(fn) == "AccumulateGrad" else 1
    return own + sum(_torch_nodes(f, seen) for f, _ in fn.next_functions)


def _torch_modes(torch):
    import contextlib

    @contextlib.contextmanager
    def nested():
        with torch.no_grad():
            with torch.enable_grad():
                yield

    return {"grad": torch.enable_grad, "no_grad": torch.no_grad, "enable_grad": nested,
            "set_grad_enabled": lambda: torch.set_grad_enabled(False), "inference_mode": torch.inference_mode}


MODES_CASES = [
    ("y = torch.sigmoid(x @ w); s = y.sum()", {"x": "[[1.0, 2.0]]", "w": "[[1.0], [2.0]]"}, ["w"]),
    ("z = MultiplyAdd.apply(w, x, b)", {"x": "[1.0]", "w": "[0.3]", "b": "[0.7]"}, ["w", "b"]),
    ("y = x * 2", {"x": "[1.0, 2.0]"}, []),
    ("y = x.add_(1)", {"x": "[1.0, 2.0]"}, ["x"]),
]


@pytest.mark.parametrize("source,lets,rg", MODES_CASES, ids=[c[0] for c in MODES_CASES])
def test_modes_json_matches_torch(torch, source, lets, rg):
    args = [a for n, v in lets.items() for a in ("--let", f"{n}={v}")]
    if rg:
        args += ["--requires-grad", ",".join(rg)]
    rep = run_json("modes", source, *args)
    assert [r["mode"] for r in rep["modes"]] == list(_torch_modes(torch))
    for row, (key, ctx) in zip(rep["modes"], _torch_modes(torch).items()):
        names = torch_names(torch, lets, rg)   # inputs are made outside the mode, as the CLI does
        try:
            with ctx():
                result, _ = torch_eval(torch, source, lets, rg, names)
        except RuntimeError as e:
            assert not row["ok"] and str(e).splitlines()[0] in row["error"], key
            continue
        assert row["ok"], (key, row["error"])
        assert row["requires_grad"] == result.requires_grad, key
        assert row["grad_fn"] == (result.grad_fn.name() if result.grad_fn is not None else None), key
        assert row["is_leaf"] == result.is_leaf and row["is_inference"] == result.is_inference(), key
        assert row["graph_nodes"] == _torch_nodes(result.grad_fn), key


def test_modes_summary_sentence_states_which_modes_build_a_graph():
    rep = run_json("modes", "y = (x * w).sum()", "--let", "x=[1.0]", "--let", "w=[2.0]", "--requires-grad", "w")
    s = rep["summary"]
    assert s.startswith("grad and no_grad+enable_grad record a graph (2 nodes")
    assert "no_grad, set_grad_enabled(False) and inference_mode build none" in s
    assert "inference tensors, which cannot be used later in autograd" in s and s.endswith(".")


def test_modes_table_lists_every_mode_and_the_summary():
    r = run("modes", "y = (x * w).sum()", "--let", "x=[1.0]", "--let", "w=[2.0]", "--requires-grad", "w")
    assert r.exit_code == 0, r.output
    for label in ("grad", "no_grad+enable_grad", "set_grad_enabled(False)", "inference_mode", "SumBackward0"):
        assert label in r.stdout
    assert "build none" in r.stdout


def test_modes_saved_bytes_is_zero_without_graph_and_positive_with_it():
    rep = run_json("modes", "y = (x * w).sum()", "--let", "x=[1.0, 2.0]", "--let", "w=[2.0, 3.0]",
                   "--requires-grad", "w")
    saved = {r["mode"]: r["saved_bytes"] for r in rep["modes"]}
    assert saved["grad"] > 0 and saved["grad"] == saved["enable_grad"]
    assert saved["no_grad"] == saved["set_grad_enabled"] == saved["inference_mode"] == 0


def test_modes_do_not_leak_in_place_changes_between_runs():
    rep = run_json("modes", "y = x.mul_(2)", "--let", "x=[1.0]")
    assert all(r["ok"] for r in rep["modes"])
    r = run("grad", "x.mul_(2); o = (x * w).sum()", "--let", "x=[1.0]", "--let", "w=[1.0]", "--requires-grad", "w",
            "--json")
    assert by_name(json.loads(r.stdout))["w"]["grad"] == [2.0]


def test_modes_failing_in_every_mode_exits_2():
    r = run("modes", "y = x @ x", "--let", "x=[[1.0, 2.0]]")
    assert r.exit_code == 2 and "EXPR" in r.stderr


# -- allocation limit, restoring state, console script -------------------------------------------------

def test_max_bytes_refuses_before_allocating_and_restores_core_limit():
    before = core.get_allocation_limit()
    r = run("grad", "y = torch.zeros(1000, 1000, requires_grad=True); s = y.sum()", "--max-bytes", "1MiB")
    assert r.exit_code == 2 and "limit 1 MiB" in r.stderr
    assert core.get_allocation_limit() == before
    r = run("grad", "y = torch.zeros(1000, 1000, requires_grad=True); s = y.sum()", "--max-bytes", "8MiB")
    assert r.exit_code == 0, r.output


def test_max_bytes_is_cores_allocation_limit_while_the_expression_runs(monkeypatch):
    seen = []
    original = expr_mod.evaluate

    def spy(*a, **k):
        seen.append((core.get_allocation_limit(), k["limits"].max_bytes))
        return original(*a, **k)

    monkeypatch.setattr(expr_mod, "evaluate", spy)
    for cmd in ("grad", "graph", "modes"):
        r = run(cmd, "o = (x * x).sum()", "--let", "x=[1.0]", "--requires-grad", "x", "--max-bytes", "12345")
        assert r.exit_code == 0, r.output
    assert seen and all(s == (12345, 12345) for s in seen)


def test_grad_restores_grad_mode_and_limit_after_errors():
    before = core.get_allocation_limit()
    run("modes", "y = x @ x", "--let", "x=[[1.0, 2.0]]")
    run("grad", "y = x.sum()", "--let", "x=[1.0]")
    assert core.is_grad_enabled() and not core.is_inference_mode_enabled()
    assert core.get_allocation_limit() == before


def _console_script():
    exe = shutil.which("tensorcli")
    if exe is None:
        pytest.skip("tensorcli console script not installed (pip install -e . --no-deps)")
    return exe


def test_console_script_grad_seed_hook_example():
    r = subprocess.run([_console_script(), "grad", HOOK_SEED, "--hook", "z"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "hook z: tensor([1., 2., 3., 4.])" in r.stdout.splitlines()


def test_console_script_modes_json_is_one_object():
    r = subprocess.run([_console_script(), "modes", "y = (x * x).sum()", "--let", "x=[1.0]", "--requires-grad",
                        "x", "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["modes"][0]["grad_fn"] == "SumBackward0"


def test_console_script_refusal_is_one_line_exit_2_without_traceback():
    r = subprocess.run([_console_script(), "grad", "__import__('os').system('echo hacked')"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "hacked" not in r.stdout
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_console_script_debug_shows_traceback():
    r = subprocess.run([_console_script(), "grad", "y = x.sum()", "--let", "x=[1.0]", "--debug"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" in r.stderr


def test_command_module_import_is_cheap():
    code = ("import sys; import tensorcli.commands.autograd; "
            "print(any(m in sys.modules for m in ('core', 'numpy', 'rich', 'torch')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_rebound_let_tensor_stays_listed_with_its_grad(torch):
    rep = run_json("grad", "x = x * 2; o = x.sum()", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    rows = by_name(rep)
    assert rows["x (--let)"]["is_leaf"] and rows["x (--let)"]["grad"] == [2.0, 2.0]
    assert rows["x"]["grad_fn"] == "MulBackward0" and rows["x"]["note"] == NON_LEAF


def test_expression_text_is_not_read_as_rich_markup():
    r = run("modes", "y = x[b]", "--let", "x=[1.0, 2.0]", "--let", "b=1")
    assert r.exit_code == 0, r.output
    assert "modes: y = x[b]" in r.stdout


# -- issue 16: what people write ------------------------------------------------------------------

def test_expression_calling_backward_itself_reports_its_gradients_like_torch(torch):
    src = "y = x * w; y.backward(gradient=torch.ones_like(y))"
    rep = run_json("grad", src, "--let", "x=[1.0, 2.0]", "--let", "w=[3.0, -1.0]", "--requires-grad", "x,w")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, -1.0], requires_grad=True)
    y = x * w
    y.backward(gradient=torch.ones_like(y))
    rows = by_name(rep)
    assert rows["x"]["grad"] == x.grad.tolist() and rows["w"]["grad"] == w.grad.tolist()
    assert rep["backward"][0]["called_by"] == "expression" and rep["backward"][0]["of"] == "y"


@pytest.mark.parametrize("gradient", ["torch.ones_like(y)", "ones", "2 * torch.ones_like(y) + y",
                                      "[1.0, 0.5]"])
def test_gradient_as_an_expression_matches_torch(torch, gradient):
    rep = run_json("grad", "y = x ** 2", "--let", "x=[1.0, 3.0]", "--requires-grad", "x", "--gradient", gradient)
    x = torch.tensor([1.0, 3.0], requires_grad=True)
    y = x ** 2
    g = {"ones": torch.ones_like(y), "torch.ones_like(y)": torch.ones_like(y),
         "2 * torch.ones_like(y) + y": 2 * torch.ones_like(y) + y.detach(),
         "[1.0, 0.5]": torch.tensor([1.0, 0.5])}[gradient]
    y.backward(g)
    assert by_name(rep)["x"]["grad"] == x.grad.tolist()


def test_one_hint_when_requires_grad_is_missing(torch):
    with pytest.raises(RuntimeError) as info:
        (torch.tensor([1.0, 2.0]) * 2).sum().backward()
    for src in ("y = (x * 2).sum()", "y = (x * 2).sum(); y.backward()"):
        r = run("grad", src, "--let", "x=[1.0, 2.0]")
        assert r.exit_code == 2 and str(info.value) in r.stderr
        assert r.stderr.count("--requires-grad x") == 1 and r.stderr.count("\n") == 1


@pytest.mark.parametrize("const", ["torch.nan", "torch.inf", "torch.pi", "torch.e", "math.pi", "math.inf",
                                   "float('nan')", "float('-inf')"])
def test_constants_inside_expressions_match_torch(torch, const):
    import math
    rep = run_json("grad", f"y = (x * {const}).sum()", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    value = {"torch.nan": torch.nan, "torch.inf": torch.inf, "torch.pi": torch.pi, "torch.e": torch.e,
             "math.pi": math.pi, "math.inf": math.inf, "float('nan')": float("nan"),
             "float('-inf')": float("-inf")}[const]
    (x * value).sum().backward()
    from tensorcli.io import json_scalar   # NaN/Infinity as --json writes them
    assert by_name(rep)["x"]["grad"] == [json_scalar(v) for v in x.grad.tolist()]
