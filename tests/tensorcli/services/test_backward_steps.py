"""`tensorcli grad --steps` (services/backward_steps.py): the backward pass node by node, compared with
torch running the same graph under torch's own hooks (tests/backward_trace_torch.py): node order, node
names, the gradients each node receives and sends, each leaf's .grad after accumulation, and the error
torch raises (a second backward through freed buffers)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import core
from tensorcli.app import app
from tensorcli.services import expr as expr_mod
from tensorcli.services.backward_steps import trace_backward

from backward_trace_torch import torch_trace

runner = CliRunner()


def core_view(trace):
    """The core trace in torch_trace's shape (edges that need no gradient left out on both sides)."""
    out = []
    for s in trace["steps"]:
        out.append({"node": s["node"], "received": [r["grad"] for r in s["received"]],
                    "sent": None if s["node"] == "AccumulateGrad" or not s["sent"] else
                    [(e["to"], e["grad"]) for e in s["sent"] if e["to"] is not None],
                    "grad_after": s["grad_after"]})
    return out


def assert_same_trace(mine, theirs):
    assert [s["node"] for s in mine] == [s["node"] for s in theirs]
    for a, b in zip(mine, theirs):
        where = a["node"]
        assert len(a["received"]) == len(b["received"]), where
        for x, y in zip(a["received"], b["received"]):
            assert (x is None) == (y is None), where
            if x is not None:
                np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-5, atol=1e-6, err_msg=where)
        if b["sent"] is None:
            assert a["sent"] is None or a["sent"] == [], where
        else:
            assert [t for t, _ in a["sent"]] == [t for t, _ in b["sent"]], where
            for (_, x), (_, y) in zip(a["sent"], b["sent"]):
                assert (x is None) == (y is None), where
                if x is not None:
                    np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-5, atol=1e-6, err_msg=where)
        assert (a["grad_after"] is None) == (b["grad_after"] is None), where
        if a["grad_after"] is not None:
            np.testing.assert_allclose(np.array(a["grad_after"]), np.array(b["grad_after"]), rtol=1e-5, atol=1e-6)


def both(torch, source, lets, requires_grad):
    """Run the same program with core and with torch (the safe language on each backend)."""
    def make(mod):
        names = {}
        for n, v in lets.items():
            t = mod.tensor(v, dtype=mod.float32)
            if n in requires_grad:
                t.requires_grad_(True)
            names[n] = t
        return names
    c_names = make(core)
    _, c_ns = expr_mod.evaluate(source, c_names)
    t_names = make(torch)
    _, t_ns = expr_mod.evaluate(source, t_names, backend=expr_mod.Backend.from_module(torch))
    return c_ns, t_ns


# -- the seed examples -------------------------------------------------------------------------------

def test_seed_hook_makes_x_grad_visible(torch):
    """x.register_hook(lambda g: g * 2): x receives 2 from MulBackward0, the hook returns 4, x.grad = 4."""
    def build(mod):
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        x.register_hook(lambda g: g * 2)
        return x, y, y.sum()
    x, y, z = build(core)
    tx, ty, tz = build(torch)
    for retain in (True, None):      # retain_graph twice, as the seed: the second pass accumulates
        mine = trace_backward(z, {"x": x, "y": y, "z": z}, of="z", retain_graph=retain)
        theirs, err = torch_trace(torch, tz, retain_graph=retain)
        assert err is None and mine["ok"]
        assert_same_trace(core_view(mine), theirs)
    leaf = mine["steps"][-1]
    assert leaf["variable"] == "x"
    assert leaf["received"][0]["before_hooks"] == [2.0, 2.0]     # what MulBackward0 sent
    assert leaf["hooks"] == [{"tensor": "x", "grad": [2.0, 2.0], "returned": [4.0, 4.0]}]
    assert leaf["grad_before"] == [4.0, 4.0]
    assert leaf["grad_after"] == tx.grad.tolist() == x.grad.tolist() == [8.0, 8.0]


def test_seed_second_backward_through_freed_buffers(torch):
    """The seed's retain_graph example: output1.backward() then output2.backward() raises torch's error
    at the same node, after the same steps."""
    src = "y = x ** 2; z = y * 4; output1 = z.mean(); output2 = z.sum()"
    c_ns, t_ns = both(torch, src, {"x": [[0.5, -1.0, 2.0, 1.5]]}, {"x"})
    tensors = {k: v for k, v in c_ns.items() if isinstance(v, core.Tensor)}
    for name in ("output1", "output2"):
        mine = trace_backward(c_ns[name], tensors, of=name)
        theirs, err = torch_trace(torch, t_ns[name])
        assert_same_trace(core_view(mine), theirs)
        assert (mine["error"] or {}).get("message") == err
    assert err is not None and err.startswith("Trying to backward through the graph a second time")
    failing = [s for s in mine["steps"] if s["error"]]
    assert [s["node"] for s in failing] == [theirs[-1]["node"]] == ["MulBackward0"]
    assert failing[0]["freed_before"]


def test_seed_hook_on_intermediate(torch):
    """The seed's z = x + y; o = w.matmul(z) with a hook on z: every node and gradient as torch."""
    src = "z = x + y; o = w.matmul(z)"
    lets = {"x": [0.0, 1.0, 2.0, 3.0], "y": [4.0, 5.0, 6.0, 7.0], "w": [1.0, 2.0, 3.0, 4.0]}
    c_ns, t_ns = both(torch, src, lets, {"x", "y", "w"})
    c_ns["z"].register_hook(lambda g: g * 3)
    t_ns["z"].register_hook(lambda g: g * 3)
    mine = trace_backward(c_ns["o"], c_ns, of="o")
    theirs, _ = torch_trace(torch, t_ns["o"])
    assert_same_trace(core_view(mine), theirs)
    add = next(s for s in mine["steps"] if s["node"] == "AddBackward0")
    assert add["received"][0]["before_hooks"] == [1.0, 2.0, 3.0, 4.0]
    assert add["received"][0]["grad"] == [3.0, 6.0, 9.0, 12.0]
    assert {s["name"] for s in next(s for s in mine["steps"] if s["node"] == "DotBackward0")["saved"]} == {"w", "z"}


# -- random graphs ---------------------------------------------------------------------------------

UNARY = ("torch.sin({})", "torch.exp({})", "({}) * 3", "({}) ** 2", "torch.tanh({})", "({}).flip(0)",
         "torch.relu({})")
BINARY = ("({}) + ({})", "({}) * ({})", "({}) - ({})", "torch.maximum({}, {})")


@st.composite
def programs(draw):
    names = ["a", "b"]
    lines = []
    for i in range(draw(st.integers(2, 5))):
        if draw(st.booleans()):
            e = draw(st.sampled_from(UNARY)).format(draw(st.sampled_from(names)))
        else:
            e = draw(st.sampled_from(BINARY)).format(draw(st.sampled_from(names)), draw(st.sampled_from(names)))
        names.append(f"t{i}")
        lines.append(f"t{i} = {e}")
    lines.append(f"out = ({names[-1]}).sum() + ({draw(st.sampled_from(names))}).mean()")
    return "; ".join(lines)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(src=programs(), data=st.lists(st.floats(-2, 2, width=32), min_size=6, max_size=6))
def test_random_graphs_match_torch(torch, src, data):
    lets = {"a": data[:3], "b": data[3:]}
    c_ns, t_ns = both(torch, src, lets, {"a", "b"})
    mine = trace_backward(c_ns["out"], c_ns, of="out")
    theirs, err = torch_trace(torch, t_ns["out"])
    assert err is None and mine["ok"], src
    assert_same_trace(core_view(mine), theirs)


# -- the command -------------------------------------------------------------------------------------

RETAIN_PROGRAM = "y = x ** 2; z = y * 4; o1 = z.mean(); o2 = z.sum(); o1.backward(); o2.backward()"


def test_cli_json_program_with_its_own_backward_calls():
    r = runner.invoke(app, ["grad", RETAIN_PROGRAM, "--let", "x=[[1.0, 2.0, 3.0, 4.0]]", "--requires-grad", "x",
                            "--steps", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["schema"] == "tensorcli.grad-steps/2" and rep["command"] == "grad"
    p1, p2 = rep["passes"]
    assert p1["ok"] and p1["statement"] == "o1.backward()"
    assert [s["node"] for s in p1["steps"]] == ["MeanBackward0", "MulBackward0", "PowBackward0", "AccumulateGrad"]
    assert p1["steps"][-1]["grad_after"] == [[2.0, 4.0, 6.0, 8.0]]
    assert not p2["ok"] and p2["error"]["message"].startswith("Trying to backward through the graph a second")
    assert p2["steps"][-1]["error"] is not None


def test_cli_text_in_pipes_and_rich_table_on_terminals():
    args = ["grad", "y = x * 2; z = y.sum()", "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--steps",
            "--retain-graph", "--backward-twice"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "pass 1: z.backward(retain_graph=True)"
    header = lines[1]
    assert header.split() == ["#", "node", "/", "saved", "receives", "/", "hooks", "sends", ".grad"]
    row = next(line for line in lines if line.split()[:3] == ["3", "AccumulateGrad", "(x)"])
    assert row.index("None -> [2., 2.]") == header.index(".grad")          # aligned under its column
    assert "[2., 2.] -> [4., 4.]" in r.stdout and "x.grad: tensor([4., 4.])" in r.stdout

    from rich.console import Console
    from tensorcli.render.backward_steps import render_steps
    from tensorcli.services.backward_steps import steps_report
    x = core.tensor([1.0, 2.0], requires_grad=True)
    rep = steps_report("y = x * 2; z = y.sum()", {"x": x})
    for width in (60, 120):
        con = Console(force_terminal=True, width=width, record=True)
        render_steps(rep, con, color=True)
        text = con.export_text()
        assert max(len(line) for line in text.splitlines()) <= width
        if width == 120:
            assert "MulBackward0 (y)" in text and "None -> [2., 2.]" in text and "AccumulateGrad (x)" in text


def test_cli_hook_option_is_seen_firing_in_the_steps():
    r = runner.invoke(app, ["grad", "z = x * 2; o = z.sum()", "--let", "x=[1.0, 3.0]", "--requires-grad", "x",
                            "--steps", "--hook", "z", "--json"])
    assert r.exit_code == 0, r.output
    (p,) = json.loads(r.stdout)["passes"]
    mul = next(s for s in p["steps"] if s["node"] == "MulBackward0")
    assert mul["hooks"] == [{"tensor": "z", "grad": [1.0, 1.0], "returned": None}]
    r = runner.invoke(app, ["grad", "o = (x * 2).sum(); o.backward()", "--let", "x=[1.0]", "--requires-grad", "x",
                            "--steps", "--hook", "x"])
    assert r.exit_code == 2 and "--hook" in r.stderr
