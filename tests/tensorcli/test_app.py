"""The tensorcli command line through Typer's CliRunner: generated op commands vs torch,
input forms (JSON, .npy, .npz, stdin), outputs (-o, --json), show, ops, --version, help."""
from __future__ import annotations

from paths import ROOT

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
from tensorcli import spec as cli_spec
from tensorcli import io as tio

ANSI = re.compile(r"\x1b\[[0-9;]*m")
X = [[1, 2, 3], [4, 5, 6]]
XJ = json.dumps(X)


@pytest.fixture(scope="module")
def app():
    return cli_app_with(("ops", "show"))


@pytest.fixture
def run(app):
    runner = CliRunner()

    def invoke(*args, input=None, env=None):
        env = {"NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1", **(env or {})}
        return runner.invoke(app, [str(a) for a in args], input=input, env=env)
    return invoke


def need(op):
    info = OPS.get(op)
    if info is None or not opspec.is_command(op):
        pytest.skip(f"op {op} has no command yet")
    return info


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, np.asarray(a))
    return b.getvalue()


def assert_json_result(obj, ref):
    """The `result` of --json equals a torch tensor (or tuple of tensors)."""
    if isinstance(ref, (tuple, list)):
        assert isinstance(obj, list) and len(obj) == len(ref)
        for o, r in zip(obj, ref):
            assert_json_result(o, r)
        return
    assert obj["shape"] == list(ref.shape)
    assert obj["dtype"] == str(ref.dtype).replace("torch.", "")
    got = np.array(obj["data"], dtype=np.float64) if obj["shape"] else np.float64(obj["data"])
    np.testing.assert_allclose(got, ref.double().numpy(), equal_nan=True)


# (case id, op, INPUT json, extra args, torch reference(torch, x))
IDX = "[[0,2],[1,0]]"
SRC = "[[10,20],[30,40]]"
MASK = "[[true,false,true],[false,false,true]]"
CASES = [
    ("gather", "gather", XJ, ["--dim", "1", "--index", IDX], lambda t, x: x.gather(1, t.tensor([[0, 2], [1, 0]]))),
    ("gather-neg-dim", "gather", XJ, ["--dim", "-2", "--index", "[[1,0,1]]"],
     lambda t, x: x.gather(-2, t.tensor([[1, 0, 1]]))),
    ("scatter", "scatter", XJ, ["--dim", "1", "--index", IDX, "--src", SRC],
     lambda t, x: x.scatter(1, t.tensor([[0, 2], [1, 0]]), t.tensor([[10, 20], [30, 40]]))),
    ("scatter-value", "scatter", XJ, ["--dim", "1", "--index", IDX, "--value", "9"],
     lambda t, x: x.scatter(1, t.tensor([[0, 2], [1, 0]]), 9)),
    ("scatter-add", "scatter_add", XJ, ["--dim", "1", "--index", "[[0,0],[1,1]]", "--src", SRC],
     lambda t, x: x.scatter_add(1, t.tensor([[0, 0], [1, 1]]), t.tensor([[10, 20], [30, 40]]))),
    ("scatter-reduce", "scatter_reduce", XJ, ["--dim", "1", "--index", "[[0,0],[1,1]]", "--src", SRC,
                                             "--reduce", "amax", "--no-include-self"],
     lambda t, x: x.scatter_reduce(1, t.tensor([[0, 0], [1, 1]]), t.tensor([[10, 20], [30, 40]]), "amax",
                                   include_self=False)),
    ("index-select", "index_select", XJ, ["--dim", "1", "--index", "[2,0]"],
     lambda t, x: x.index_select(1, t.tensor([2, 0]))),
    ("index-add", "index_add", XJ, ["--dim", "1", "--index", "[2,0]", "--source", SRC, "--alpha", "2"],
     lambda t, x: x.index_add(1, t.tensor([2, 0]), t.tensor([[10, 20], [30, 40]]), alpha=2)),
    ("index-fill", "index_fill", XJ, ["--dim", "1", "--index", "[2,0]", "--value", "-1"],
     lambda t, x: x.index_fill(1, t.tensor([2, 0]), -1)),
    ("masked-fill", "masked_fill", XJ, ["--mask", MASK, "--value", "0"],
     lambda t, x: x.masked_fill(t.tensor([[True, False, True], [False, False, True]]), 0)),
    ("masked-select", "masked_select", XJ, ["--mask", MASK],
     lambda t, x: x.masked_select(t.tensor([[True, False, True], [False, False, True]]))),
    ("take", "take", XJ, ["--index", "[[0,5],[3,1]]"], lambda t, x: x.take(t.tensor([[0, 5], [3, 1]]))),
    ("take-along-dim", "take_along_dim", XJ, ["--indices", IDX, "--dim", "1"],
     lambda t, x: t.take_along_dim(x, t.tensor([[0, 2], [1, 0]]), dim=1)),
    ("nonzero", "nonzero", "[[0,1],[2,0]]", [], lambda t, x: x.nonzero()),
    ("argwhere", "argwhere", "[[0,1],[2,0]]", [], lambda t, x: t.argwhere(x)),
    ("one-hot", "one_hot", "[0,2,1]", ["--num-classes", "4"],
     lambda t, x: t.nn.functional.one_hot(x, num_classes=4)),
    ("triu", "triu", XJ, ["--diagonal", "1"], lambda t, x: x.triu(1)),
    ("tril", "tril", XJ, [], lambda t, x: x.tril()),
    ("diagonal", "diagonal", XJ, ["--offset", "1"], lambda t, x: x.diagonal(1)),
    ("diag-embed", "diag_embed", "[[1,2],[3,4]]", [], lambda t, x: t.diag_embed(x)),
    ("diag", "diag", "[1,2,3]", ["--diagonal", "-1"], lambda t, x: t.diag(x, -1)),
    ("index-put", "index_put", XJ, ["--indices", "[0,1]", "--indices", "[2,0]", "--values", "[9,8]"],
     lambda t, x: x.index_put((t.tensor([0, 1]), t.tensor([2, 0])), t.tensor([9, 8]))),
    ("index-put-acc", "index_put", XJ, ["--indices", "[0,0]", "--indices", "[2,2]", "--values", "[9,8]",
                                        "--accumulate"],
     lambda t, x: x.index_put((t.tensor([0, 0]), t.tensor([2, 2])), t.tensor([9, 8]), accumulate=True)),
    ("view", "view", XJ, ["--shape", "3,2"], lambda t, x: x.view(3, 2)),
    ("reshape", "reshape", XJ, ["--shape", "-1"], lambda t, x: x.reshape(-1)),
    ("flatten", "flatten", XJ, [], lambda t, x: x.flatten()),
    ("unflatten", "unflatten", XJ, ["--dim", "1", "--sizes", "3,1"], lambda t, x: x.unflatten(1, (3, 1))),
    ("unsqueeze", "unsqueeze", XJ, ["--dim", "-1"], lambda t, x: x.unsqueeze(-1)),
    ("squeeze", "squeeze", "[[1],[2]]", ["--dim", "1"], lambda t, x: x.squeeze(1)),
    ("transpose", "transpose", XJ, ["--dim0", "0", "--dim1", "1"], lambda t, x: x.transpose(0, 1)),
    ("t", "t", XJ, [], lambda t, x: x.t()),
    ("permute", "permute", XJ, ["--dims", "1,0"], lambda t, x: x.permute(1, 0)),
    ("movedim", "movedim", XJ, ["--source", "0", "--destination", "1"], lambda t, x: x.movedim(0, 1)),
    ("expand", "expand", "[[1],[2]]", ["--sizes", "2,3"], lambda t, x: x.expand(2, 3)),
    ("broadcast-to", "broadcast_to", "[1,2,3]", ["--size", "2,3"], lambda t, x: x.broadcast_to((2, 3))),
    ("narrow", "narrow", XJ, ["--dim", "1", "--start", "1", "--length", "2"], lambda t, x: x.narrow(1, 1, 2)),
    ("select", "select", XJ, ["--dim", "1", "--index", "2"], lambda t, x: x.select(1, 2)),
    ("split", "split", XJ, ["--split-size-or-sections", "2", "--dim", "1"], lambda t, x: x.split(2, 1)),
    ("split-sections", "split", XJ, ["--split-size-or-sections", "1,2", "--dim", "1"],
     lambda t, x: x.split([1, 2], 1)),
    ("chunk", "chunk", XJ, ["--chunks", "2", "--dim", "1"], lambda t, x: x.chunk(2, 1)),
    ("unbind", "unbind", XJ, [], lambda t, x: x.unbind()),
    ("unfold", "unfold", XJ, ["--dimension", "1", "--size", "2", "--step", "1"], lambda t, x: x.unfold(1, 2, 1)),
    ("as-strided", "as_strided", XJ, ["--size", "2,2", "--stride", "1,2"], lambda t, x: x.as_strided((2, 2), (1, 2))),
    ("repeat", "repeat", XJ, ["--sizes", "2,1"], lambda t, x: x.repeat(2, 1)),
    ("tile", "tile", XJ, ["--dims", "2"], lambda t, x: x.tile((2,))),
    ("flip", "flip", XJ, ["--dims", "0"], lambda t, x: x.flip(0)),
    ("roll", "roll", XJ, ["--shifts", "1", "--dims", "1"], lambda t, x: x.roll(1, 1)),
    ("cat", "cat", XJ, [XJ, "--dim", "0"], lambda t, x: t.cat([x, x], 0)),
    ("stack", "stack", XJ, [XJ, "--dim", "1"], lambda t, x: t.stack([x, x], 1)),
    ("argmax", "argmax", XJ, ["--dim", "1"], lambda t, x: x.argmax(1)),
    ("argmax-all", "argmax", XJ, [], lambda t, x: x.argmax()),
    ("argmin-keepdim", "argmin", XJ, ["--dim", "0", "--keepdim"], lambda t, x: x.argmin(0, keepdim=True)),
    ("sum", "sum", XJ, ["--dim", "-1"], lambda t, x: x.sum(-1)),
    ("sum-all", "sum", XJ, [], lambda t, x: x.sum()),
    ("max-all", "max", XJ, [], lambda t, x: x.max()),
    ("cumsum", "cumsum", XJ, ["--dim", "1"], lambda t, x: x.cumsum(1)),
]


def _argv(op, first, args):
    if op == "einsum":
        return ["einsum", "ij->ji", first, *args]
    return [cli_spec.command_name(op), first, *args]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_op_json_output_matches_torch(torch, run, case):
    _, op, inp, args, ref = case
    need(op)
    r = run(*_argv(op, inp, args), "--json")
    assert r.exit_code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["op"] == op and obj["schema"] == "tensorcli.op/2" and obj["command"] == cli_spec.command_name(op)
    assert_json_result(obj["result"], ref(torch, torch.tensor(json.loads(inp))))


def test_einsum_equation_and_operands(torch, run):
    need("einsum")
    r = run("einsum", "ij,jk->ik", XJ, "[[1,0],[0,1],[1,1]]", "--json")
    assert r.exit_code == 0, r.stderr
    ref = torch.einsum("ij,jk->ik", torch.tensor(X), torch.tensor([[1, 0], [0, 1], [1, 1]]))
    assert_json_result(json.loads(r.stdout)["result"], ref)


@pytest.mark.parametrize("form", ["npy", "npz", "json-file", "stdin"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_op_reads_every_input_form(torch, run, tmp_path, form, case):
    _, op, inp, args, ref = case
    need(op)
    arr = np.array(json.loads(inp))
    stdin = None
    if form == "npy":
        first = str(tmp_path / "in.npy")
        np.save(first, arr)
    elif form == "npz":
        first = str(tmp_path / "in.npz") + ":x"
        np.savez(str(tmp_path / "in.npz"), x=arr, other=np.zeros(1))
    elif form == "json-file":
        first = str(tmp_path / "in.json")
        with open(first, "w") as f:
            f.write(inp)
    else:
        first, stdin = "-", npy_bytes(arr)
    r = run(*_argv(op, first, args), "--json", input=stdin)
    assert r.exit_code == 0, r.stderr
    assert_json_result(json.loads(r.stdout)["result"], ref(torch, torch.tensor(json.loads(inp))))


def test_every_op_command_has_a_runnable_example():
    # tests/tensorcli/commands/test_op.py runs each one; the cases above check chosen commands against torch
    missing = sorted(n for n in OPS if opspec.is_command(n) and not opspec.examples(n))
    assert not missing, f"op commands without an example: {missing}"


def _help_parts(app):
    """{command: (usage, help text, option names, parameter count)} for every op command, built by the
    functions Typer's Rich help calls for each screen (usage line, help text and every parameter's help
    row: their Rich markup is parsed here, so a markup error in any op's docstring or parameter fails),
    without laying out the panels, whose code is the same for every command."""
    import typer.rich_utils as ru
    import typer.testing
    from typer import _click
    group = typer.testing._get_command(app)
    root = _click.Context(group, info_name="tensorcli")
    parts = {}
    for name in (n for n in list(OPS) if opspec.is_command(n)):
        command = cli_spec.command_name(name)
        cmd = group.get_command(root, command)
        ctx = _click.Context(cmd, info_name=command, parent=root)
        params = [p for p in cmd.get_params(ctx) if not getattr(p, "hidden", False)]
        for p in params:
            ru._get_parameter_help(param=p, ctx=ctx, markup_mode=cmd.rich_markup_mode)
        help_text = ru._get_help_text(obj=cmd, markup_mode=cmd.rich_markup_mode).renderables
        parts[command] = (cmd.get_usage(ctx), "\n".join(r.plain for r in help_text),
                          {o for p in params for o in p.opts}, len(params))
    return parts


def test_every_op_command_has_help(app, run):
    """Every op command's help names the command (usage and synopsis) and offers --json and --explain,
    checked from the pieces each screen is drawn from; one command per category (the one with the most
    parameters) and gather are drawn in full, as `tensorcli CMD --help` prints them."""
    parts = _help_parts(app)
    assert len(parts) == sum(1 for n in list(OPS) if opspec.is_command(n)) > 400
    for command, (usage, text, opts, _) in parts.items():
        assert f"tensorcli {command} " in usage + " " and f"tensorcli {command}" in text, command
        assert {"--json", "--explain"} <= opts, command
    categories = {}
    for name, info in list(OPS.items()):
        if opspec.is_command(name):
            categories.setdefault(info.category, []).append(cli_spec.command_name(name))
    sample = {max(cmds, key=lambda c: parts[c][3]) for cmds in categories.values()} | {"gather"}
    for command in sorted(sample):
        r = run(command, "--help")
        assert r.exit_code == 0, (command, r.stderr)
        text = ANSI.sub("", r.stdout)
        assert f"tensorcli {command}" in text
        assert "--json" in text and "--explain" in text


def test_help_shows_formula_and_usage(run):
    need("gather")
    text = ANSI.sub("", run("gather", "--help").stdout)
    assert "out[i][j] = input[i][index[i][j]]" in text
    assert "tensorcli gather INPUT --dim DIM --index TENSOR" in text


def test_default_output_is_header_and_torch_repr(torch, run):
    need("gather")
    r = run("gather", XJ, "--dim", "1", "--index", IDX)
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "gather(dim=1) -> int64 [2, 2]"
    assert "\n".join(lines[1:]) == repr(torch.tensor(X).gather(1, torch.tensor([[0, 2], [1, 0]])))


def test_dtype_casts_input(run):
    need("gather")
    r = run("gather", XJ, "--dim", "1", "--index", IDX, "--dtype", "float64", "--json")
    assert json.loads(r.stdout)["result"]["dtype"] == "float64"


def test_json_encodes_nan_as_string(run):
    need("gather")
    r = run("gather", "[[NaN, 1.5]]", "--dim", "1", "--index", "[[0, 1]]", "--json")
    res = json.loads(r.stdout)["result"]
    assert res["data"] == [["NaN", 1.5]] and res["dtype"] == "float32"


@pytest.mark.parametrize("ext", ["npy", "npz", "json"])
def test_out_file_round_trips(run, tmp_path, ext):
    need("transpose")
    path = str(tmp_path / f"r.{ext}")
    r = run("transpose", XJ, "--dim0", "0", "--dim1", "1", "-o", path)
    assert r.exit_code == 0 and r.stdout == ""
    assert tio.load_tensor(path, arg="x").tolist() == [[1, 4], [2, 5], [3, 6]]


def test_out_dash_writes_npy_bytes(run):
    need("transpose")
    r = run("transpose", XJ, "--dim0", "0", "--dim1", "1", "-o", "-")
    assert r.exit_code == 0
    arr = np.load(io.BytesIO(r.stdout_bytes), allow_pickle=False)
    assert arr.tolist() == [[1, 4], [2, 5], [3, 6]] and arr.dtype == np.int64


def test_out_dash_with_several_results_writes_npz(run):
    need("chunk")
    r = run("chunk", XJ, "--chunks", "2", "--dim", "1", "-o", "-")
    z = np.load(io.BytesIO(r.stdout_bytes), allow_pickle=False)
    assert sorted(z.files) == ["out0", "out1"] and z["out1"].tolist() == [[3], [6]]


def test_out_dash_sends_explain_to_stderr(run):
    need("gather")
    r = run("gather", XJ, "--dim", "1", "--index", IDX, "-o", "-", "--explain")
    assert r.stdout_bytes.startswith(b"\x93NUMPY")
    assert "rule:" in r.stderr


def test_tuple_result_prints_each_tensor(run):
    need("chunk")
    r = run("chunk", XJ, "--chunks", "2", "--dim", "1")
    assert r.exit_code == 0
    assert "2 tensors" in r.stdout and "[1]: int64 [2, 1]" in r.stdout


# -- show, ops, version, colour -------------------------------------------------------------

def test_show_stats_match_torch(torch, run):
    r = run("show", "[[1.0, 2.0, NaN], [4.0, Infinity, 6.0]]", "--json")
    st = json.loads(r.stdout)["stats"]
    finite = torch.tensor([1.0, 2.0, 4.0, 6.0])
    assert st["nan"] == 1 and st["inf"] == 1 and st["numel"] == 6
    assert st["min"] == 1.0 and st["max"] == 6.0
    assert st["mean"] == pytest.approx(finite.mean().item())
    assert st["std"] == pytest.approx(finite.std().item())


def test_show_text(run):
    r = run("show", XJ)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == "tensor int64 [2, 3] (6 elements)"
    assert "min 1  max 6  mean 3.5" in r.stdout
    assert r.stdout.rstrip().endswith("[4, 5, 6]])")


def test_show_reads_stdin_npy(run):
    r = run("show", "-", input=npy_bytes(np.array([True, False])))
    assert r.exit_code == 0 and "tensor bool [2]" in r.stdout


def test_show_converts_with_out(run, tmp_path):
    p = str(tmp_path / "x.npy")
    assert run("show", XJ, "-o", p).exit_code == 0
    assert np.load(p).tolist() == X


def test_show_empty_tensor(run):
    r = run("show", "[]")
    assert r.exit_code == 0 and "(0 elements)" in r.stdout


def test_ops_lists_commands_with_formulas(run):
    need("gather")
    r = run("ops")
    assert r.exit_code == 0
    assert "gather" in r.stdout and "out[i][j] = input[i][index[i][j]]" in r.stdout


def test_ops_json_for_3d(run):
    info = need("gather")
    obj = json.loads(run("ops", "--json", "--ndim", "3", "--dim", "2").stdout)
    row = next(o for o in obj["ops"] if o["op"] == "gather")
    assert row["command"] == "gather" and row["kind"] == "gather"
    assert row["rule"] == opspec.entry("gather").rule(3, 2)
    assert row["summary"] == info.summary


def test_version(run):
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"tensorcli {cli_app.__version__}"


def test_no_arguments_prints_help(run):
    r = run()
    assert r.exit_code == 0 and "Usage" in ANSI.sub("", r.stdout)


def test_no_color_option_and_env_strip_ansi(run):
    r = run("show", XJ, env={"NO_COLOR": None, "_TYPER_FORCE_DISABLE_TERMINAL": None, "FORCE_COLOR": "1"})
    assert ANSI.search(r.stdout), "FORCE_COLOR should colour the output"
    r = run("show", XJ, "--no-color", env={"NO_COLOR": None, "_TYPER_FORCE_DISABLE_TERMINAL": None,
                                             "FORCE_COLOR": "1"})
    assert not ANSI.search(r.stdout)
    r = run("show", XJ, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    assert not ANSI.search(r.stdout)


# -- how commands are generated ------------------------------------------------------------------

def _fake_info(fn):
    from core.ops.registry import OpInfo
    return OpInfo(fn.__name__, fn, "test", "A fake op.")


def test_classify_follows_pytorch_parameter_names():
    def fake(input, dim, index, src=None, value=None, *, reduce=None, include_self=True, out=None,
             sparse_grad=False):
        pass
    kinds = {s.name: (s.kind, s.positional, s.required) for s in cli_spec.classify(_fake_info(fake))}
    assert kinds == {"input": ("tensor", True, True), "dim": ("dim", False, True),
                     "index": ("tensor", False, True), "src": ("tensor", False, False),
                     "value": ("number", False, False), "reduce": ("str", False, False),
                     "include_self": ("flag", False, False)}


def test_classify_var_positional_and_refinement(monkeypatch):
    def fake2(input, *sizes, indices=None, mystery=None):
        pass
    monkeypatch.setitem(opspec.ENTRIES, "fake2", opspec.Op("tensorcli fake2 '[1]'", params={"mystery": "ints"}))
    specs = {s.name: s.kind for s in cli_spec.classify(_fake_info(fake2))}
    assert specs == {"input": "tensor", "sizes": "ints", "indices": "tensors", "mystery": "ints"}


def test_fast_path_builds_only_the_named_op_command():
    need("gather")
    app = cli_app.build_app({"gather"}, modules=())
    names = [c.name for c in app.registered_commands]
    assert names == ["gather"]


def test_missing_command_module_is_skipped_but_errors_inside_propagate(tmp_path, monkeypatch):
    import tensorcli.commands as pkg
    (tmp_path / "broken_mod.py").write_text("import a_module_that_does_not_exist_xyz\n")
    monkeypatch.setattr(pkg, "__path__", list(pkg.__path__) + [str(tmp_path)])
    cli_app.build_app(set(), modules=("not_written_yet",))
    with pytest.raises(ImportError, match="a_module_that_does_not_exist_xyz"):
        cli_app.build_app(set(), modules=("broken_mod",))


def test_command_modules_are_cheap_to_import():
    """The contract in tensorcli/commands/__init__.py: typer and the standard library at module level."""
    import importlib.util
    import subprocess
    import sys
    from tensorcli.commands import COMMAND_MODULES
    mods = [m for m in COMMAND_MODULES if importlib.util.find_spec(f"tensorcli.commands.{m}") is not None]
    code = ("import sys\n" + "".join(f"import tensorcli.commands.{m}\n" for m in mods) +
            "print(sorted(m for m in ('rich', 'core', 'numpy', 'torch', 'pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


def test_json_and_out_file_together(run, tmp_path):
    need("transpose")
    path = str(tmp_path / "r.npy")
    r = run("transpose", XJ, "--dim0", "0", "--dim1", "1", "-o", path, "--json")
    assert json.loads(r.stdout)["result"]["shape"] == [3, 2]
    assert np.load(path).tolist() == [[1, 4], [2, 5], [3, 6]]
