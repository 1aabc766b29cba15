"""Op commands are generated for ANY registered op with an `Op` entry in tensorcli/opspec/: every
entry's example runs and exits 0 (entries without one are skipped and listed), and a signature typed only by its
annotations (tensors, ints, int lists, floats, bools, strings, Optional[...] of those) becomes a
working command whose result equals torch's."""
from __future__ import annotations

from paths import ROOT

import inspect
import json
import os
import shlex
import subprocess
import sys
from typing import List, Optional, Sequence

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from conftest import cli_app_with
import core
from core.ops.registry import OPS, OpInfo
from tensorcli import app as cli_app
from tensorcli import opspec, spec
from tensorcli.commands import op as op_commands

CLI_OPS = [name for name in OPS if opspec.is_command(name)]
WITHOUT_EXAMPLE = [name for name in CLI_OPS if not spec.examples(OPS[name])]


@pytest.fixture(scope="module")
def app():
    return cli_app_with(())


@pytest.fixture(scope="module")
def click_app(app):
    """The same app object (conftest makes typer's CliRunner convert it to click once, not on every
    invoke: ~2 s with every registry op a command)."""
    return app


def invoke(app, argv):
    return CliRunner().invoke(app, argv, env={"NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"})


@pytest.mark.parametrize("name", CLI_OPS)
def test_cli_example_runs(click_app, name):
    examples = spec.examples(OPS[name])
    if not examples:
        pytest.skip(f"{name} has no cli_example (all without one: {WITHOUT_EXAMPLE})")
    for example in examples:
        argv = shlex.split(example)
        assert argv[:2] == ["tensorcli", spec.command_name(name)], example
        r = invoke(click_app, argv[1:])
        assert r.exit_code == 0, (example, r.stderr, r.exception)


# -- a command from annotations alone -------------------------------------------------------------

def scaled_softmax(input: core.Tensor, weight: Optional[core.Tensor] = None, *, axis: int = -1,
                   temperature: float = 1.0, log: bool = False, flat_to: Optional[Sequence[int]] = None,
                   mode: str = "plain", shift: Optional[float] = None, clamp: Optional[int] = None,
                   out=None, _stacklevel: int = 3):
    """softmax(input * weight / temperature + shift) along `axis`, optionally log, reshaped, clamped."""
    torch = scaled_softmax.backend
    x = input if weight is None else input * weight
    x = x / temperature
    if shift is not None:
        x = x + shift
    y = torch.log_softmax(x, axis) if log else torch.softmax(x, axis)
    if mode == "double":
        y = y * 2
    if clamp is not None:
        y = y.clamp(max=clamp)
    return y.reshape(list(flat_to)) if flat_to is not None else y


scaled_softmax.backend = core


def _fake_info():
    return OpInfo("scaled_softmax", scaled_softmax, "test", "A fake op typed by annotations.")


@pytest.fixture(autouse=True)
def _fake_entry(monkeypatch):
    """The fake op's command entry, for the tests of this module only."""
    monkeypatch.setitem(opspec.ENTRIES, "scaled_softmax", opspec.Op("tensorcli scaled-softmax '[[1.0,2,3]]' --axis 1"))


def test_annotations_give_the_kinds():
    kinds = {s.name: s.kind for s in spec.classify(_fake_info())}
    assert kinds == {"input": spec.TENSOR, "weight": spec.TENSOR, "axis": spec.INT, "temperature": spec.NUMBER,
                     "log": spec.FLAG, "flat_to": spec.INTS, "mode": spec.STR, "shift": spec.NUMBER,
                     "clamp": spec.INT}


@pytest.mark.parametrize("kind,ann", [
    (spec.TENSOR, "Tensor"), (spec.TENSOR, "Optional[Tensor]"), (spec.TENSOR, "Tensor | None"),
    (spec.INT, "int"), (spec.INT, "Optional[int]"), (spec.INT, "int | None"), (spec.NUMBER, "float"),
    (spec.NUMBER, "Optional[float]"), (spec.FLAG, "bool"), (spec.NUMBER, "Optional[bool]"), (spec.STR, "str"),
    (spec.STR, "Optional[str]"), (spec.INTS, "Sequence[int]"), (spec.INTS, "List[int]"),
    (spec.INTS, "tuple[int, ...]"), (spec.INTS, "Optional[Sequence[int]]"), (spec.TENSORS, "Sequence[Tensor]"),
    (spec.TENSORS, "List[Tensor]"), (spec.DIM, "int | Sequence[int]"), (None, "object"),
    (spec.INT, Optional[int]), (spec.INTS, List[int]), (spec.INT, int), (spec.STR, str),
])
def test_annotation_kind(kind, ann):
    assert spec.annotation_kind(ann) == kind


CASES = [
    ["[[1.0,2,3],[0,-1,4]]", "--axis", "1"],
    ["[[1.0,2,3],[0,-1,4]]", "--axis", "0", "--temperature", "2.5", "--log"],
    ["[[1.0,2,3],[0,-1,4]]", "--weight", "[[2.0,1,0],[1,1,1]]", "--flat-to", "3,2", "--mode", "double"],
    ["[[1.0,2,3],[0,-1,4]]", "--shift", "0.5", "--clamp", "0", "--no-log"],
]


@pytest.mark.parametrize("argv", CASES)
def test_command_from_annotations_matches_torch(torch, argv):
    import typer
    app = typer.Typer(add_completion=False)
    cb, help_ = op_commands.make_op_command(_fake_info())
    app.command("scaled-softmax", help=help_)(cb)
    app.command("unused")(lambda: None)   # a group, so the command name is on the command line
    r = invoke(app, ["scaled-softmax", *argv, "--json"])
    assert r.exit_code == 0, (r.stderr, r.exception)
    got = json.loads(r.stdout)["result"]

    args = dict(zip(argv[1::2], argv[2::2]))
    kw = {}
    if "--weight" in args:
        kw["weight"] = torch.tensor(json.loads(args["--weight"]))
    for opt, name, conv in (("--axis", "axis", int), ("--temperature", "temperature", float),
                            ("--mode", "mode", str), ("--shift", "shift", float), ("--clamp", "clamp", int)):
        if opt in args:
            kw[name] = conv(args[opt])
    if "--flat-to" in args:
        kw["flat_to"] = [int(v) for v in args["--flat-to"].split(",")]
    kw["log"] = "--log" in argv
    scaled_softmax.backend = torch
    try:
        want = scaled_softmax(torch.tensor(json.loads(argv[0])), **kw)
    finally:
        scaled_softmax.backend = core
    assert got["shape"] == list(want.shape)
    assert got["dtype"] == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(np.array(got["data"], dtype=np.float64), want.double().numpy(), rtol=1e-6)


def test_private_and_out_parameters_are_not_options():
    names = [s.cli for s in spec.classify(_fake_info())]
    assert "--out" not in names and not any("stacklevel" in n for n in names)
    assert inspect.signature(scaled_softmax).parameters["_stacklevel"].default == 3


# -- the generated table of `tensorcli --help` (current: tests/test_generated.py) ----------------------

def test_group_help_from_the_table_lists_what_the_full_app_lists(capsys):
    import os
    import subprocess
    import sys
    root = ROOT
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", PYTHONPATH=root)
    code = ("import sys; from tensorcli.app import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('core imported:', 'core' in sys.modules, file=sys.stderr)")
    lazy = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, env=env)
    assert "core imported: False" in lazy.stderr, lazy.stderr
    full = CliRunner().invoke(cli_app.get_app(), ["--help"], env={"NO_COLOR": "1", "COLUMNS": "100",
                                                                 "_TYPER_FORCE_DISABLE_TERMINAL": "1"})
    assert full.exit_code == 0
    assert lazy.stdout == full.stdout


@pytest.mark.parametrize("command", [
    "tensorcli index-put '[[1,2,3],[4,5,6]]' --indices '[0,1]' --indices '[2,0]' --values '[9,8]' --accumulate",
    "tensorcli gather x.npy --dim -1 --index '[[[3,0]],[[1,1]]]' -o - | tensorcli scatter-add - --dim 2 --index i.npy",
    "tensorcli grad 'y = 2 * x ** 2' --let x='[1.0,1.0,1.0]' --requires-grad x --gradient '[0.1,1.0,0.0001]'",
    "tensorcli ops",
])
def test_help_examples_fold_at_option_boundaries(command):
    """--help examples never wrap inside an argument: folded lines are short and the same command."""
    from tensorcli.commands import fold_example
    folded = fold_example(command)
    assert all(len(line) <= 74 for line in folded.splitlines()), folded
    assert shlex.split(folded.replace("\\\n", " ")) == shlex.split(command)
    for line in folded.splitlines()[:-1]:
        assert line.endswith(" \\") and not line.endswith("-o \\") and not line.endswith("--dim \\")


# -- every registry op is a command, or says why not -------------------------------------------------

def test_every_registry_op_is_a_command_or_gives_a_reason():
    silent = {name for name in OPS if not opspec.is_command(name) and not getattr(opspec.entry(name), "reason", None)}
    assert not silent, f"ops with neither a command nor a reason in tensorcli/opspec/: {sorted(silent)}"
    for name, info in OPS.items():
        if opspec.is_command(name):
            assert spec.examples(info), f"{name} is a command without an example"


def test_ops_all_shows_why_an_op_has_no_command(monkeypatch):
    from tensorcli.services.ops import listing
    name = next(iter(OPS))
    monkeypatch.setitem(opspec.ENTRIES, name, opspec.NoCommand("a reason given at registration"))
    rows = {r["op"]: r for r in listing(include_all=True)}
    assert rows[name]["command"] is None and rows[name]["cli_reason"] == "a reason given at registration"
    assert "[no command: a reason given at registration]" in rows[name]["summary"]
    assert all(r["cli_reason"] is None for r in rows.values() if r["command"])
    monkeypatch.setattr(op_commands, "cached_listing", lambda: None)   # the generated listing predates the patch
    r = invoke(cli_app.build_app(only=set(), modules=("ops",)), ["ops", "--all"])
    assert r.exit_code == 0 and "no command: a reason given at registration" in " ".join(r.stdout.split())


def test_ops_prints_the_generated_listing_without_importing_core():
    """`tensorcli ops` reads the rows from commands/op_table.py (start-up), and they are the registry's."""
    from tensorcli.services.ops import all_rows
    assert op_commands.cached_listing() == all_rows()
    code = ("import sys\nfrom tensorcli.app import main\n"
            "try:\n    main()\nfinally:\n    print('core' in sys.modules, file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code, "ops"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stderr.strip() == "False", r.stderr
