"""Nothing silently ignored: every option of every command changes what the command does (its
stdout, stderr, exit status or the files it writes), or is refused with exit 2 naming the conflict.

The options are read from the commands themselves (Typer/click params), so a new option fails
`test_every_option_is_covered` until it has a variant here or a reason in EXCEPTIONS. The op
commands share their common options (commands/op.py `_COMMON`): those are exercised on gather;
the op-specific ones on a sample of op commands, each starting from its own --help example.
Also here: global options on either side of the command, JSON errors, one error prefix, the
short bare usage, --dim all, whole-sentence help summaries and help text for every option."""
from __future__ import annotations

from paths import ROOT

import contextlib
import json
import os
import re
import shlex
import sys

import pytest
from typer.testing import CliRunner

from conftest import cli_app_with
from core.ops.registry import OPS
from tensorcli import opspec, spec
from tensorcli.commands import COMMAND_MODULES

ENV = {"NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1", "COLUMNS": "80"}
COLOR_ENV = {"NO_COLOR": None, "_TYPER_FORCE_DISABLE_TERMINAL": None, "FORCE_COLOR": "1"}
GATHER = ["gather", "[[1.0,2,3],[4,5,6]]", "--dim", "1", "--index", "[[0,2],[1,0]]"]
BAD_GATHER = ["gather", "[[1.0,2,3],[4,5,6]]", "--dim", "1", "--index", "[[0.5,2],[1,0]]"]
LET = ["--let", "x=[1.0, 2.0]", "--let", "w=[0.5, 3.0]", "--requires-grad", "x,w"]
GRAD = ["grad", "y = (x * w).sum(); z = y * 3", *LET]
CASES = ('[[case]]\nname = "ok"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\nexpect = [[2]]\n'
         '[[case]]\nname = "first failure"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\nexpect = [[1]]\n'
         '[[case]]\nname = "second failure"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[0]]\n'
         'expect = [[2]]\n')
# (base argv, extra environment) per non-op command: the run each option is compared against
BASES = {
    "show": (["show", "[[1.0, 2.0], [3.0, 4.0]]"], {}),
    "ops": (["ops", "--category", "indexing"], {}),
    "eval": (["eval", "x * 2", "--let", "x=[1.0, 2.0]"], {}),
    "grad": (GRAD, {}),
    "graph": (["graph", "y = (x * w).sum()", *LET], {}),
    "modes": (["modes", "y = (x * w).sum()", *LET], {}),
    "memory": (["memory", "--model", "Linear(4,3)", "--input-shape", "2,4"], {}),
    "check": (["check", "cases.toml"], {}),
}
# option (click param name) -> how to exercise it: ("add", argv) adds argv to the base; ("on", base, argv)
# compares `base` with `base + argv`; ("drop",) removes the option (and its value) from the base;
# ("env", env, argv) adds argv under extra environment variables; ("alt", argv): another value of an argument.
MEMORY_EXPR = ["memory", "torch.sigmoid(x * w)", "--let", "x=[1.0, 2.0]", "--let", "w=[0.5, 3.0]"]
VARIANTS = {
    "show": {"dtype": ("add", ["--dtype", "float64"]), "out": ("add", ["-o", "s.npy"]), "json_": ("add", ["--json"]),
             "full_data": ("env", {"TENSORCLI_JSON_MAX_ELEMENTS": "1"}, ["--json"], ["--full-data"]),
             "max_bytes": ("add", ["--max-bytes", "8"]), "tensor": ("drop",)},
    "ops": {"category": ("drop",), "ndim": ("add", ["--ndim", "3"]), "dim": ("add", ["--dim", "0"]),
            "all_": ("on", ["ops"], ["--all"]), "json_": ("add", ["--json"])},
    "eval": {"expr": ("alt", ["eval", "x * 3", "--let", "x=[1.0, 2.0]"]), "let": ("drop",),
             "requires_grad": ("add", ["--requires-grad", "x"]), "dtype": ("add", ["--dtype", "float64"]),
             "out": ("add", ["-o", "e.npy"]), "json_": ("add", ["--json"]),
             "full_data": ("env", {"TENSORCLI_JSON_MAX_ELEMENTS": "1"}, ["--json"], ["--full-data"]),
             "max_bytes": ("add", ["--max-bytes", "4"]),
             "file": ("alt", ["eval", "-f", "prog.py", "--let", "x=[1.0, 2.0]"])},
    "grad": {"expr": ("alt", ["grad", "y = (x * x).sum()", *LET]), "let": ("drop",), "requires_grad": ("drop",),
             "gradient": ("add", ["--gradient", "2.0"]), "retain_graph": ("on", GRAD + ["--backward-twice"],
                                                                          ["--retain-graph"]),
             "backward_twice": ("add", ["--backward-twice"]), "hook": ("add", ["--hook", "y"]),
             "retain_grad": ("add", ["--retain-grad", "y"]), "of": ("add", ["--of", "y"]),
             "then": ("add", ["--retain-graph", "--then", "y"]), "dtype": ("add", ["--dtype", "float64"]),
             "max_bytes": ("add", ["--max-bytes", "4"]), "json_": ("add", ["--json"]),
             "full_data": ("env", {"TENSORCLI_JSON_MAX_ELEMENTS": "1"}, ["--json"], ["--full-data"]),
             "steps": ("add", ["--steps"]), "file": ("alt", ["grad", "-f", "prog.py", *LET])},
    "graph": {"expr": ("alt", ["graph", "y = (x + w).sum()", *LET]), "let": ("drop",), "requires_grad": ("drop",),
              "max_depth": ("add", ["--max-depth", "1"]), "dtype": ("add", ["--dtype", "float64"]),
              "max_bytes": ("add", ["--max-bytes", "4"]), "json_": ("add", ["--json"]),
              "file": ("alt", ["graph", "-f", "prog.py", *LET])},
    "modes": {"expr": ("alt", ["modes", "y = (x + w).sum()", *LET]), "let": ("drop",), "requires_grad": ("drop",),
              "dtype": ("add", ["--dtype", "float64"]), "max_bytes": ("add", ["--max-bytes", "4"]),
              "json_": ("add", ["--json"]), "timeline": ("add", ["--timeline"]),
              "file": ("alt", ["modes", "-f", "prog.py", *LET])},
    "memory": {"expr": ("on", MEMORY_EXPR, ["--modes", "grad"]), "model": ("drop",), "input_shape": ("drop",),
               "input_": ("on", ["memory", "--model", "Linear(4,3)"], ["--input", "[[1.0, 2, 3, 4]]"]),
               "let": ("on", ["memory", "torch.sigmoid(x)", "--let", "x=[1.0]"], ["--let", "x=[1.0, 2.0, 3.0]"]),
               "requires_grad": ("on", MEMORY_EXPR, ["--requires-grad", "w"]),
               "dtype": ("add", ["--dtype", "float64"]), "batches": ("add", ["--batches", "2"]),
               "modes": ("add", ["--modes", "grad"]), "keep_outputs": ("add", ["--batches", "2", "--keep-outputs"]),
               "backward": ("add", ["--backward"]), "max_bytes": ("add", ["--max-bytes", "16"]),
               "json_": ("add", ["--json"]), "repeats": ("add", ["--repeats", "5"]),
               "timings": ("add", ["--timings"]),
               "file": ("alt", ["memory", "-f", "prog.py", "--let", "x=[1.0, 2.0]"])},
    "check": {"paths": ("alt", ["check", "other.toml"]), "junit": ("add", ["--junit", "r.xml"]),
              "json_": ("add", ["--json"]), "keyword": ("add", ["-k", "ok"]), "fail_fast": ("add", ["-x"]),
              "against_torch": ("add", ["--against-torch"]), "max_bytes": ("add", ["--max-bytes", "4"]),
              "quiet": ("add", ["-q"]), "allow_path": ("add", ["--allow-path", "no-such-dir"])},
}
DEBUG_BAD = {"show": ["show", "[[1, 2]"], "ops": ["ops", "--ndim", "99"], "eval": ["eval", "x +"],
             "grad": ["grad", "y = (", *LET], "graph": ["graph", "y = (", *LET], "modes": ["modes", "y = (", *LET],
             "memory": ["memory", "--model", "Nope()"], "check": ["check", "missing.toml"]}
# Every command has these: exercised the same way everywhere (an error run for --debug, colour for --no-color).
SHARED = {"debug": "an error run gains the traceback", "no_color": "colour under FORCE_COLOR goes",
          "quiet": "warnings (softmin's implicit dim) and progress lines go"}
# Deliberate exceptions: (command, option) -> why the option has no visible effect on this base run.
EXCEPTIONS = {
    ("ops", "max_bytes"): "a global option; `ops` allocates no tensor, so no limit can bite",
    ("ops", "quiet"): "a global option; `ops` prints no notes or progress",
    ("memory", "seed"): "the seed changes the parameters' values, never the byte counts memory reports",
    ("show", "quiet"): "a global option; `show` prints a progress bar only on a terminal",
    ("eval", "quiet"): "a global option; eval's notes are the expression's warnings (tested on op commands)",
    ("grad", "quiet"): "a global option; grad prints no notes",
    ("graph", "quiet"): "a global option; graph prints no notes",
    ("modes", "quiet"): "a global option; modes prints no notes",
    ("memory", "quiet"): "a global option; memory's progress bar shows only on a terminal",
    **{(c, "timeout"): "only a run slower than the budget shows it (one timer for every command, services/budget.py): "
                       "tests/tensorcli/services/test_budget_timeout.py runs eval and check past theirs"
       for c in ("eval", "grad", "graph", "modes", "memory", "check")},
}


@pytest.fixture(scope="module")
def app():
    return cli_app_with(tuple(COMMAND_MODULES))


@pytest.fixture(scope="module")
def commands(app):
    import typer
    return typer.main.get_command(app).commands


_TIME = re.compile(r"\d+(\.\d+)?\s?(ms|µs|us|ns|s)\b|\(\d+(\.\d+)?-\d+(\.\d+)?\)|\"(wall_s|\w+_s)\": [\d.e-]+")


@contextlib.contextmanager
def warnings_shown():
    """Every warning printed on stderr, as a terminal session shows the first one: pytest's warnings plugin
    records them instead, and Python shows one only once per place."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: sys.stderr.write(
            warnings.formatwarning(message, category, filename, lineno, line))
        yield


def outcome(app, argv, tmp_path, env=None, mask_times=True):
    """What a run did, as a comparable value: exit status, stdout, stderr (timings masked: they are
    noise, not an option's effect) and the files it left in the working directory."""
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        before = set(os.listdir("."))
        r = CliRunner().invoke(app, argv, env={**ENV, **(env or {})})
        files = {}
        for f in sorted(set(os.listdir(".")) - before):
            files[f] = open(f, "rb").read()
            os.remove(f)
    finally:
        os.chdir(cwd)
    noisy = mask_times and argv[0] in ("memory", "check")
    mask = (lambda t: _TIME.sub("T", t)) if noisy else (lambda t: t)
    return r.exit_code, mask(r.stdout), mask(r.stderr), files


def _drop(argv, opt_names):
    out, i = [], 0
    while i < len(argv):
        if argv[i] in opt_names:
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def _shell_split(text):
    """shlex.split, plus bash's $'...' quoting (the modes example writes its program's newlines so)."""
    def ansi_c(m):
        return shlex.quote(m.group(1).encode().decode("unicode_escape"))
    return shlex.split(re.sub(r"\$'((?:[^'\\]|\\.)*)'", ansi_c, text))


def _cases_dir(tmp_path):
    (tmp_path / "prog.py").write_text("y = (x * 3).sum()\nprint(y)\ny\n")
    (tmp_path / "cases.toml").write_text(CASES)
    (tmp_path / "other.toml").write_text(CASES.split("[[case]]\nname = \"first")[0])
    return tmp_path


def _pairs(command, name, param):
    """(argv without the option, argv with it, env) for one option of a non-op command."""
    base, env = BASES[command]
    how = VARIANTS.get(command, {}).get(name)
    if name == "debug":
        bad = DEBUG_BAD[command]
        return bad, bad + ["--debug"], env
    if name == "no_color":
        return base, base + ["--no-color"], {**env, **COLOR_ENV}
    if name == "quiet" and command == "check":
        return base, base + ["-q"], env
    if how is None:
        return None
    if how[0] == "add":
        return base, base + how[1], env
    if how[0] == "alt":   # an argument: another value, another run
        return base, how[1], env
    if how[0] == "on":
        return how[1], how[1] + how[2], env
    if how[0] == "env":
        return base + how[2], base + how[2] + how[3], {**env, **how[1]}
    if how[0] == "drop":
        if param.param_type_name == "argument":
            return base[:1] + base[2:], base, env
        return _drop(base, set(param.opts)), base, env
    raise AssertionError(how)


NON_OP = [c for c in BASES]


@pytest.mark.parametrize("command", NON_OP)
def test_every_option_of_a_command_changes_its_run(app, commands, command, tmp_path, monkeypatch):
    _cases_dir(tmp_path)
    if command == "check":   # check collects garbage before its cases (~0.5 s in this process): not needed here
        import gc
        monkeypatch.setattr(gc, "collect", lambda *a: 0)
    seen = {}

    def run(argv, env):   # the same base run once
        key = (tuple(argv), tuple(sorted(env.items(), key=str)))
        if key not in seen:
            seen[key] = outcome(app, argv, tmp_path, env)
        return seen[key]
    idle = []
    for param in commands[command].params:
        name = param.name
        if (command, name) in EXCEPTIONS or name == "help":
            continue
        pair = _pairs(command, name, param)
        assert pair is not None, f"{command} {param.opts}: no variant in VARIANTS and no reason in EXCEPTIONS"
        without, with_, env = pair
        a, b = run(without, env), run(with_, env)
        if a == b:
            idle.append((param.opts or [name], with_))
    assert not idle, f"options accepted by `{command}` with no effect: {idle}"


def test_every_option_is_covered(commands):
    """A new option needs a variant above (or a reason in EXCEPTIONS): nothing is accepted untested."""
    missing = []
    for command in NON_OP:
        for p in commands[command].params:
            known = p.name in VARIANTS.get(command, {}) or p.name in SHARED or (command, p.name) in EXCEPTIONS
            if not known and p.name != "help":
                missing.append((command, p.name))
    assert not missing
    op_commands = {spec.command_name(n) for n in OPS if opspec.is_command(n)}
    assert not [c for c in commands if c not in op_commands and c not in BASES], "a command without a base run"


# -- the op commands' common options, on gather -----------------------------------------------

OP_COMMON = {
    "cli_dtype": (GATHER, ["--dtype", "float64"], {}),
    "cli_out": (GATHER, ["-o", "r.npy"], {}),
    "cli_json": (GATHER, ["--json"], {}),
    "cli_explain": (GATHER, ["--explain"], {}),
    "cli_at": (GATHER, ["--at", "0,1"], {}),
    "cli_max_rows": (GATHER + ["--explain"], ["--max-rows", "1"], {}),
    "cli_debug": (BAD_GATHER, ["--debug"], {}),
    "cli_no_color": (GATHER + ["--explain"], ["--no-color"], COLOR_ENV),
    "cli_backward": (GATHER, ["--backward"], {}),
    "cli_grad_output": (GATHER + ["--backward"], ["--grad-output", "[[2.0, 3.0], [4.0, 5.0]]"], {}),
    "cli_grid": (GATHER, ["--grid"], {}),
    "cli_svg": (GATHER, ["--svg", "p.svg"], {}),
    "cli_max_bytes": (GATHER, ["--max-bytes", "16"], {}),
    "cli_full_data": (GATHER + ["--json"], ["--full-data"], {"TENSORCLI_JSON_MAX_ELEMENTS": "1"}),
    "cli_quiet": (["softmin", "[[1.0, 2.0]]"], ["-q"], {}),
    # the budget itself shows only on a slow run (tests/tensorcli/services/test_budget_timeout.py); here: the value is parsed and checked
    "cli_timeout": (GATHER, ["--timeout", "-1"], {}),
}


def test_op_common_options_each_change_the_run(app, commands, tmp_path):
    from tensorcli.commands.op import _COMMON
    assert {name for name, _, _ in _COMMON} == set(OP_COMMON), "a common option without a variant here"
    with warnings_shown():   # -q's effect is a warning that goes
        idle = [(k, extra) for k, (base, extra, env) in OP_COMMON.items()
                if outcome(app, base, tmp_path, env) == outcome(app, base + extra, tmp_path, env)]
    assert not idle, idle


def test_quiet_silences_warnings_and_only_them(app, torch, tmp_path):
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.nn.functional.softmin(torch.tensor([[1.0, 2.0]]))
    assert w, "torch warns on softmin's implicit dim"
    with warnings_shown():
        code, out, err, _ = outcome(app, ["softmin", "[[1.0, 2.0]]"], tmp_path)
        code_q, out_q, err_q, _ = outcome(app, ["softmin", "[[1.0, 2.0]]", "-q"], tmp_path)
    assert code == 0 and "Implicit dimension choice for softmin" in err
    assert (code_q, out_q, err_q) == (0, out, "")


# -- op-specific options, sampled ---------------------------------------------------------------

CLI_OPS = [n for n, i in OPS.items() if opspec.is_command(n) and spec.examples(i)]
SAMPLE = sorted(set(CLI_OPS[::9]) | {"gather", "scatter", "topk", "conv2d", "softmax", "sort", "cumsum", "clamp"})
# (op, option) -> why changing it from the example's value does not show in this example's output
OP_EXCEPTIONS = {
    ("topk", "sorted"): "torch's CPU topk returns sorted values whatever sorted= says (the example's k=2)",
    ("sort", "stable"): "the example has no ties, so a stable sort and an unstable one agree",
    ("masked.amax", "mask"): "the example's mask keeps each row's maximum, so the values are the same without it",
    ("conv2d", "groups"): "groups=2 is refused (1 input channel): the refusal is the effect (exit 2)",
}


def _guess(s, info):
    """A value for an op option not in the example, or None when none can be guessed generically."""
    d = s.default
    if s.kind == spec.FLAG:
        return [f"--no-{s.cli[2:]}"] if d is True else [s.cli]
    if s.kind == spec.INT:
        return [s.cli, str((d if isinstance(d, int) and not isinstance(d, bool) else 0) + 1)]
    if s.kind == spec.NUMBER and isinstance(d, (int, float)) and not isinstance(d, bool):
        return [s.cli, str(d * 2 + 0.5)]
    choices = opspec.entry(info.name).choices.get(s.name)
    if s.kind == spec.STR and choices:
        other = [c for c in choices if c != d]
        return [s.cli, other[0]] if other else None
    return None


@pytest.mark.parametrize("name", SAMPLE)
def test_op_specific_options_change_the_result(app, name, tmp_path):
    info = OPS[name]
    argv = shlex.split(spec.examples(info)[0])[1:]
    base = outcome(app, argv, tmp_path)
    assert base[0] == 0, base
    idle = []
    for s in spec.classify(info):
        if s.positional or (name, s.name) in OP_EXCEPTIONS:
            continue
        if s.cli in argv:
            variant = _drop(argv, {s.cli}) if s.kind != spec.FLAG else [a for a in argv if a != s.cli]
        else:
            extra = _guess(s, info)
            if extra is None:
                continue
            variant = argv + extra
        if outcome(app, variant, tmp_path) == base:
            idle.append((s.cli, variant))
    assert not idle, f"{name}: options with no effect on its example: {idle}"


# -- --dim all -------------------------------------------------------------------------------------

DIM_ALL = ["gather", "[[1,2,3],[4,5,6],[7,8,9]]", "--dim", "all", "--index", "[[0,1,2],[2,0,1]]"]


@pytest.mark.parametrize("extra,flag", [(["-o", "o.npy"], "-o"), (["-o", "-"], "-o"), (["--grid"], "--grid"),
                                        (["--svg", "p.svg"], "--svg"), (["--backward"], "--backward")])
def test_dim_all_refuses_what_writes_one_result(app, tmp_path, extra, flag):
    code, out, err, files = outcome(app, DIM_ALL + extra, tmp_path)
    assert code == 2 and out == "" and not files
    assert err.count("\n") == 1 and err.startswith(f"tensorcli: error: {flag}: ") and "--dim all" in err


def test_dim_all_json_has_one_entry_per_dim_as_torch_computes(app, torch, tmp_path):
    from tests.tensorcli.test_json_schema import SCHEMAS, validate
    code, out, _, _ = outcome(app, DIM_ALL + ["--json", "--explain"], tmp_path)
    obj = json.loads(out)
    assert code == 0 and list(obj)[:2] == ["schema", "command"] and obj["command"] == "gather"
    validate(SCHEMAS[obj["schema"]], obj)
    x, i = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), torch.tensor([[0, 1, 2], [2, 0, 1]])
    assert [d["dim"] for d in obj["dims"]] == [0, 1]
    for d in obj["dims"]:
        assert d["result"]["data"] == torch.gather(x, d["dim"], i).tolist()
        assert d["explain"] and d["rule"]


# -- global options, errors, usage -------------------------------------------------------------------

@pytest.mark.parametrize("opts", [["-q"], ["--quiet"], ["--no-color"], ["--debug"], ["--max-bytes", "1GiB"],
                                  ["-q", "--max-bytes=1GiB", "--no-color"]])
def test_global_options_work_on_either_side_of_the_command(app, tmp_path, opts):
    after = outcome(app, GATHER + opts, tmp_path)
    before = outcome(app, opts + GATHER, tmp_path)
    assert after == before and after[0] == 0


def test_global_max_bytes_before_the_command_limits_it(app, tmp_path):
    for argv in (["--max-bytes", "16"] + GATHER, GATHER + ["--max-bytes", "16"]):
        code, out, err, _ = outcome(app, argv, tmp_path)
        assert code == 2 and "--max-bytes" in err


def test_debug_before_the_command_shows_the_traceback(app, tmp_path):
    code, _, err, _ = outcome(app, ["--debug"] + BAD_GATHER, tmp_path)
    assert code == 2 and "Traceback" in err


@pytest.mark.parametrize("argv", [BAD_GATHER + ["--json"], GATHER + ["--bogus", "--json"],
                                  ["show", "[[1, 2]", "--json"], ["eval", "x +", "--json"],
                                  ["check", "missing.toml", "--json"]])
def test_with_json_an_error_is_a_json_object(app, tmp_path, argv):
    from tests.tensorcli.test_json_schema import SCHEMAS, validate
    code, out, err, _ = outcome(app, argv, tmp_path)
    obj = json.loads(out)
    validate(SCHEMAS["tensorcli.error/2"], obj)
    assert code == obj["exit"] == 2 and obj["command"] == argv[0]
    assert err == f"tensorcli: error: {obj['error']}\n"


def test_one_error_prefix_with_torchs_message(app, torch, tmp_path):
    with pytest.raises(RuntimeError) as e:
        torch.gather(torch.tensor([[1.0, 2, 3]]), 1, torch.tensor([[0.5]]))
    code, _, err, _ = outcome(app, BAD_GATHER, tmp_path)
    assert code == 2 and err == f"tensorcli: error: {e.value}\n"
    _, _, err, _ = outcome(app, ["scatter-add", "[0,0]", "--dim", "0", "--index", "[0.0]", "--src", "[1]"], tmp_path)
    assert err.startswith("tensorcli: error: scatter(): ")   # torch names scatter for scatter_add's check
    _, _, err, _ = outcome(app, ["gather", "[[1,2]]", "--dim", "5", "--index", "[[0]]"], tmp_path)
    assert err.startswith("tensorcli: error: gather: Dimension out of range")   # no op name in it: prefixed


def test_bare_tensorcli_prints_a_short_usage(app):
    r = CliRunner().invoke(app, [], env=ENV)
    lines = r.stdout.splitlines()
    assert r.exit_code == 0 and len(lines) <= 25 and max(map(len, lines)) <= 80
    assert "tensorcli --help" in r.stdout and "tensorcli ops" in r.stdout


# -- help: whole sentences, every option explained ----------------------------------------------------

_ENDS = re.compile(r"[.!?][)\"']?$")


def test_every_op_summary_is_a_whole_sentence():
    cut = [(n, i.summary) for n, i in OPS.items() if opspec.is_command(n) and not _ENDS.search(i.summary or "")]
    assert not cut


def test_summary_of_takes_the_first_sentence():
    from core.ops.registry import summary_of
    assert summary_of("Gather values\nalong dim.\n\nMore.") == "Gather values along dim."
    assert summary_of("Pad dims: (a, ...). Modes: x, y.") == "Pad dims: (a, ...)."
    assert summary_of("Uses e.g. 1.5 here. Second.") == "Uses e.g. 1.5 here."
    assert summary_of("A clause " + "x" * 120 + "; the rest") == "A clause " + "x" * 120 + "."
    assert summary_of("Keep (a; b) " + "y" * 120 + "; rest.") == "Keep (a; b) " + "y" * 120 + "."


def test_every_option_of_every_command_has_help(commands):
    missing = [(name, p.name) for name, c in commands.items() for p in c.params
               if p.param_type_name == "option" and not (getattr(p, "help", None) or "").strip()]
    assert not missing


def test_int_list_examples_in_help_are_valid_for_stride(commands):
    stride = next(p for p in commands["conv2d"].params if p.name == "p_stride")
    for example in re.findall(r"e\.g\. ([\d,]+)", stride.help):
        assert all(int(v) > 0 for v in example.strip(",").split(",")), stride.help


# -- check DIR walks only case files ---------------------------------------------------------------

def test_check_dir_skips_toml_and_json_without_cases(app, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "x.json").write_text("[[1, 2], [3, 4]]")
    (tmp_path / "cases.toml").write_text(CASES.split("[[case]]\nname = \"first")[0])
    code, out, err, _ = outcome(app, ["check", ".", "--json"], tmp_path, mask_times=False)
    obj = json.loads(out)
    assert code == 0 and obj["summary"]["passed"] == 1 and obj["files"] == ["cases.toml"]
    code, _, err, _ = outcome(app, ["check", "pyproject.toml"], tmp_path)
    assert code == 2 and "pyproject.toml" in err
    os.remove(tmp_path / "cases.toml")
    code, _, err, _ = outcome(app, ["check", "."], tmp_path)
    assert code == 2 and "no case files" in err


# -- memory: parameter bytes, columns defined, timings only as medians ------------------------------

def test_memory_shows_parameter_bytes_as_torch_counts_them(app, torch, tmp_path):
    m = torch.nn.Linear(1000, 1000)
    torch_bytes = sum(p.numel() * p.element_size() for p in m.parameters())
    argv = ["memory", "--model", "Linear(1000,1000)", "--input-shape", "1,1000", "--modes", "no_grad"]
    code, out, _, _ = outcome(app, argv + ["--json"], tmp_path, mask_times=False)
    assert code == 0 and json.loads(out)["source"]["parameter_bytes"] == torch_bytes
    code, out, _, _ = outcome(app, argv, tmp_path, mask_times=False)
    assert f"parameters: {torch_bytes / 2 ** 20:.1f} MiB" in out


def test_memory_defines_its_columns_and_times_only_on_request(app, tmp_path):
    from tensorcli.render.memory import LEGEND
    argv = ["memory", "--model", "Linear(4,3)", "--input-shape", "2,4"]
    _, out, _, _ = outcome(app, argv, tmp_path, mask_times=False)
    for column in ("graph nodes", "saved tensors", "saved for backward", "kept results", "peak traced"):
        assert f"{column}:" in LEGEND and " ".join(out.split()).count(column) >= 1
    assert " ms" not in out and "time" not in out
    _, out, _, _ = outcome(app, argv + ["--repeats", "3", "--json"], tmp_path, mask_times=False)
    for mode in json.loads(out)["modes"].values():
        t = mode["timing"]
        assert t["repeats"] == 3 and t["min_s"] <= t["median_s"] == mode["wall_s"] <= t["max_s"]
    _, out, _, _ = outcome(app, argv + ["--timings"], tmp_path, mask_times=False)
    assert "median of 5 runs per mode" in out


# -- the README's figures come from the tool ------------------------------------------------------------

def test_readme_counts_are_what_tensorcli_ops_prints(app, tmp_path):
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    m = re.search(r"(\d+) op commands, `tensorcli ops --all` all (\d+) ops", " ".join(readme.split()))
    assert m, "the README states the op counts"
    for argv, said in ((["ops"], m.group(1)), (["ops", "--all"], m.group(2))):
        first = outcome(app, argv, tmp_path)[1].splitlines()[0]
        assert first.split()[0] == said, (argv, first)


# -- every example in the non-op commands' --help runs (the op commands': tests/tensorcli/commands/test_op.py) ------

def _help_examples(commands):
    out = []
    for name in NON_OP:
        text = re.sub(r"\\\n\s+", " ", commands[name].help.replace("\\\\\n", "\\\n"))
        out += [(name, ln.strip()) for ln in text.splitlines() if ln.strip().startswith("tensorcli ")]
    return out


def _example_files(tmp_path):
    import shutil
    import numpy as np
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    np.save(tmp_path / "w.npy", np.ones((3, 2), dtype=np.float32))
    np.save(tmp_path / "i.npy", np.array([[0, 2], [1, 0]]))
    np.savez(tmp_path / "data.npz", weights=np.ones((2, 2), dtype=np.float32))
    (tmp_path / "cases.toml").write_text(CASES.split("[[case]]\nname = \"first")[0].replace('"ok"', '"gather ok"'))
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")


def test_every_help_example_of_the_other_commands_runs(app, commands, tmp_path, monkeypatch):
    import gc
    monkeypatch.setattr(gc, "collect", lambda *a: 0)   # check's collections: ~0.5 s each in this process
    _example_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    examples = _help_examples(commands)
    assert {name for name, _ in examples} == set(NON_OP), "a command without a --help example"
    import numpy as np
    for name, example in examples:
        np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))   # an example may overwrite it
        piped = None
        for stage in example.split(" | "):
            argv = _shell_split(stage.split("  (")[0].replace("2>/dev/null", ""))
            if argv[0] != "tensorcli":   # xmllint and friends: what tensorcli printed is checked above
                continue
            r = CliRunner().invoke(app, argv[1:], input=piped, env=ENV)
            assert r.exit_code == 0, (example, r.stderr)
            piped = r.stdout_bytes
