"""`tensorcli modes --timeline` (services/modes_timeline.py): each statement's active mode, the flags of the
tensors it makes or changes and torch's errors, compared with torch running the same statements (the safe
language on a torch backend, in torch's own grad-mode managers)."""
from __future__ import annotations

import ast
import json
from contextlib import ExitStack

import pytest
from typer.testing import CliRunner

import core
from tensorcli.app import app
from tensorcli.services import expr as expr_mod
from tensorcli.services.modes_timeline import flatten, timeline_report

runner = CliRunner()

SEED = """y = x * 2
with torch.no_grad():
    z = x * 2
with torch.inference_mode():
    w = x * 2
    w2 = w * 3
u = z * x
w.add_(1)
"""
PROGRAMS = {
    "seed_no_grad_vs_inference_mode": SEED,
    "inference_saved_for_backward": "with torch.inference_mode():\n    w = x * 2\nv = w * x\n",
    "inplace_on_leaf": "y = x * 2\nx.add_(1)\n",
    "inplace_on_leaf_in_no_grad": "with torch.no_grad():\n    x.add_(1)\ny = x * 2\n",
    "version_mismatch_at_backward": "y = x.sigmoid()\ny.mul_(2)\ny.sum().backward()\n",
    "nested_and_set_grad_enabled": ("with torch.no_grad():\n    with torch.enable_grad():\n        a = x * 2\n"
                                    "    b = x * 2\nwith torch.set_grad_enabled(False):\n    c = x + 1\n"
                                    "with torch.inference_mode(False):\n    d = x * 1\n"),
    "view_in_no_grad": "with torch.no_grad():\n    v = x[1:]\nv.mul_(2)\n",
}


def _torch_enter(torch, stack, spec):
    name, arg = spec
    if name == "set_grad_enabled":
        stack.enter_context(torch.set_grad_enabled(arg))
    elif name == "inference_mode":
        stack.enter_context(torch.inference_mode(True if arg is None else arg))
    else:
        stack.enter_context(getattr(torch, name)())


def _version(t):
    return None if t.is_inference() else t._version


def torch_timeline(torch, source, x):
    """[(mode, ok, error message, {name: flags})] as torch runs the same statements."""
    backend = expr_mod.Backend.from_module(torch)
    ns = {"x": torch.tensor(x, requires_grad=True)}
    out = []
    for seg, _, contexts in flatten(source, ast.parse(source).body):
        before = {n: (id(t), _version(t), t.requires_grad, t.grad_fn) for n, t in ns.items()
                  if isinstance(t, torch.Tensor)}
        with ExitStack() as stack:
            for spec in contexts:
                _torch_enter(torch, stack, spec)
            mode = ("inference_mode" if torch.is_inference_mode_enabled() else
                    "grad" if torch.is_grad_enabled() else "no_grad")
            try:
                _, ns = expr_mod.evaluate(seg, ns, backend=backend)
            except RuntimeError as e:
                out.append((mode, False, str(e), {}))
                break
        changed = {n: (t.requires_grad, t.grad_fn.name() if t.grad_fn is not None else None, t.is_leaf,
                       t.is_inference(), _version(t))
                   for n, t in ns.items() if isinstance(t, torch.Tensor)
                   and before.get(n) != (id(t), _version(t), t.requires_grad, t.grad_fn)}
        out.append((mode, True, None, changed))
    return out


def core_timeline(report):
    out = []
    for r in report["statements"]:
        if r["ok"] is None:
            break
        out.append((r["mode"], r["ok"], r["error"]["message"] if r["error"] else None,
                    {t["name"]: (t["requires_grad"], t["grad_fn"], t["is_leaf"], t["is_inference"], t["version"])
                     for t in r["tensors"]}))
    return out


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_timeline_as_torch(torch, name):
    x = [1.0, 2.0, 3.0]
    report = timeline_report(PROGRAMS[name], {"x": core.tensor(x, requires_grad=True)})
    assert core_timeline(report) == torch_timeline(torch, PROGRAMS[name], x)


def test_other_modes_column_is_the_statement_run_under_each_mode(torch):
    """Statement 2 of the seed (z = x * 2, in no_grad) under grad, no_grad and inference_mode, as torch."""
    report = timeline_report(SEED, {"x": core.tensor([1.0, 2.0], requires_grad=True)})
    alts = report["statements"][1]["modes"]
    for mode, manager in (("grad", torch.enable_grad), ("no_grad", torch.no_grad),
                          ("inference_mode", torch.inference_mode)):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with manager():
            z = x * 2
        (t,) = alts[mode]["tensors"]
        assert (t["name"], t["requires_grad"], t["grad_fn"], t["is_inference"]) == (
            "z", z.requires_grad, z.grad_fn.name() if z.grad_fn is not None else None, z.is_inference())
    assert alts["no_grad"]["same_as_program"] and not alts["grad"]["same_as_program"]
    u = report["statements"][4]["modes"]          # u = z * x: z made in no_grad, fine in every mode
    assert all(a["ok"] for a in u.values())
    bad = timeline_report(PROGRAMS["inference_saved_for_backward"], {"x": core.tensor([1.0], requires_grad=True)})
    alts = bad["statements"][1]["modes"]
    assert not alts["grad"]["ok"] and alts["no_grad"]["ok"] and alts["inference_mode"]["ok"]
    assert any("fails under grad" in s for s in bad["summary"])


def test_cli_one_command_json_and_text():
    args = ["modes", SEED, "--let", "x=[1.0, 2.0, 3.0]", "--requires-grad", "x"]
    r = runner.invoke(app, args + ["--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["schema"] == "tensorcli.modes-timeline/2"
    assert [s["mode"] for s in rep["statements"]] == ["grad", "no_grad", "inference_mode", "inference_mode", "grad",
                                                      "grad"]
    assert rep["statements"][-1]["error"]["message"].startswith("Inplace update to inference tensor outside")
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    header = r.stdout.splitlines()[0]
    assert header.split() == ["#", "statement", "mode", "tensors", "grad", "no_grad", "inference_mode"]
    assert "w: no grad, inference " in r.stdout + " "

    from rich.console import Console
    from tensorcli.render.modes_timeline import render_timeline
    report = timeline_report(SEED, {"x": core.tensor([1.0, 2.0], requires_grad=True)})
    for width in (60, 120):
        con = Console(force_terminal=True, width=width, record=True)
        render_timeline(report, con, color=True)
        assert max(len(line) for line in con.export_text().splitlines()) <= width
