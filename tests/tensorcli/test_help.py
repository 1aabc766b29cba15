"""Help that teaches, through the installed console script: examples on every non-op command,
arguments by name, -V, -q, suggestions from commands and core's ops, the man page, completion,
`check --junit -`, JUnit that XML parsers accept."""
from __future__ import annotations

from paths import ROOT

import os
import shutil
import re
import subprocess
import sys
import xml.dom.minidom

import pytest


def _script():
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    return here if os.path.exists(here) else shutil.which("tensorcli")


SCRIPT = _script()
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="tensorcli console script not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
MAN = os.path.join(ROOT, "docs", "tensorcli.1")


def run(*args, env=None):
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**ENV, **(env or {})})


@pytest.mark.parametrize("command", ["grad", "graph", "modes", "memory", "show", "ops", "check"])
def test_every_command_has_examples_and_plain_usage(command):
    out = run(command, "--help").stdout
    assert "Example" in out and f"tensorcli {command}" in out.split("Example", 1)[1]
    usage = next(ln for ln in out.splitlines() if "Usage:" in ln)
    assert "{" not in usage, usage
    assert out.count("Usage:") == 1


def test_version_short_and_long_and_python_m():
    from tensorcli import __version__
    for args in (("-V",), ("--version",)):
        assert run(*args).stdout.strip() == f"tensorcli {__version__}"
    r = subprocess.run([sys.executable, "-m", "tensorcli", "-V"], capture_output=True, text=True, env=ENV)
    assert r.stdout.strip() == f"tensorcli {__version__}"


@pytest.mark.parametrize("typo,expected", [("gathr", "'gather'"), ("meen", "'mean'"), ("lerpp", "'lerp'"), ("index_select", "'index-select'")])
def test_suggestions_come_from_commands_and_core_ops(typo, expected):
    r = run(typo)
    assert r.returncode == 2 and expected in r.stderr and r.stderr.count("\n") == 1


def test_mean_is_not_mistaken_for_expand():
    assert "expand" not in run("mean").stderr


def test_help_lists_every_environment_variable_and_the_exit_codes():
    out = run("--help").stdout
    for var in ("TENSORCLI_MAX_BYTES", "TENSORCLI_MAX_JSON_BYTES", "TENSORCLI_JSON_MAX_ELEMENTS",
                "TENSORCLI_DEBUG", "NO_COLOR"):
        assert var in out, var
    assert "130" in out and "check failed" in out


def test_max_bytes_on_every_non_op_command_with_its_environment_form():
    for command in ("grad", "graph", "modes", "memory", "show", "ops", "check"):
        out = run(command, "--help").stdout
        assert "--max-bytes" in out and "TENSORCLI_MAX_BYTES" in out, command


def test_man_page_is_current():
    r = run("--man")
    assert r.returncode == 0 and r.stdout.startswith(".TH TENSORCLI 1")
    with open(MAN, encoding="utf-8") as f:
        assert f.read() == r.stdout, "docs/tensorcli.1 is stale: python scripts/regenerate.py"


def test_man_page_renders_with_man_when_available(tmp_path):
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    r = subprocess.run(["man", "-l", MAN], capture_output=True, text=True, env={**ENV, "MANPAGER": "cat"})
    assert r.returncode == 0 and "ENVIRONMENT" in r.stdout


def test_completion_installs_into_home_and_completes(tmp_path):
    # the shell named, not detected: typer's detection walks the process tree for a shell, and a detached
    # test run (reparented to init) has none above it
    r = run("--install-completion", "bash", env={"HOME": str(tmp_path), "SHELL": "/bin/bash",
                                                 "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert r.returncode == 0, r.stderr
    assert "tensorcli" in (tmp_path / ".bashrc").read_text()
    r = run(env={"_TENSORCLI_COMPLETE": "complete_bash", "COMP_WORDS": "tensorcli gath", "COMP_CWORD": "1"})
    assert r.stdout.split() == ["gather"]


def test_quiet_is_accepted_before_the_command():
    r = run("-q", "gather", "[[1,2]]", "--dim", "1", "--index", "[[1]]", "--json")
    assert r.returncode == 0 and r.stderr == ""


CASES = ('[[case]]\nname = "bell\\u0007 and escape\\u001b"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\n'
         'index = [[1]]\nexpect = [[1]]\n')


def test_junit_dash_writes_xml_to_stdout_that_parsers_accept(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(CASES)
    r = subprocess.run([SCRIPT, "check", str(p), "--junit", "-"], capture_output=True, text=True, env=ENV,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 1                       # the case fails: status 1, the report still written
    assert not (tmp_path / "-").exists()
    doc = xml.dom.minidom.parseString(r.stdout)   # control characters escaped, so this parses
    (case,) = doc.getElementsByTagName("testcase")
    assert case.getAttribute("name") == "bell\\x07 and escape\\x1b"
    assert "bell" in r.stderr                      # the progress lines moved to stderr


def test_junit_dash_with_json_is_refused():
    r = run("check", "examples", "--junit", "-", "--json")
    assert r.returncode == 2 and "--junit" in r.stderr


def test_junit_file_is_written_atomically(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(CASES)
    report = tmp_path / "report.xml"
    r = subprocess.run([SCRIPT, "check", str(p), "--junit", str(report)], capture_output=True, text=True,
                       env=ENV, cwd=tmp_path, timeout=120)
    assert r.returncode == 1
    xml.dom.minidom.parse(str(report))
    assert sorted(os.listdir(tmp_path)) == ["c.toml", "report.xml"]        # no temporary file left
    r = subprocess.run([SCRIPT, "check", str(p), "--junit", str(tmp_path / "no" / "r.xml")], capture_output=True,
                       text=True, env=ENV, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("tensorcli: error: --junit") and r.stderr.count("\n") == 1


@pytest.mark.parametrize("command, op, choices", [("scatter", "scatter", ("add", "multiply")),
                                                  ("scatter-reduce", "scatter_reduce",
                                                   ("sum", "prod", "mean", "amax", "amin"))])
def test_reduce_lists_the_choices_torch_accepts(torch, command, op, choices):
    out = run(command, "--help", env={"COLUMNS": "200"}).stdout
    assert "|".join(choices) in out and "One of: " + ", ".join(choices) + "." in out
    x, i, s = torch.zeros(3), torch.tensor([0, 2, 0]), torch.ones(3)
    for c in choices:                                        # each listed choice works in torch
        getattr(torch, op)(x, 0, i, s, reduce=c)
    with pytest.raises(RuntimeError):
        getattr(torch, op)(x, 0, i, s, reduce="max" if op == "scatter" else "add")


def test_op_help_says_usage_once():
    out = run("gather", "--help").stdout
    assert out.count("Usage:") == 1 and "Synopsis:" in out


def _help_of(info):
    """--help of one op command built from `info` (in process)."""
    import typer
    from typer.testing import CliRunner
    from tensorcli.commands import op
    app = typer.Typer()
    cb, text = op.make_op_command(info)
    app.command(info.name, help=text)(cb)
    app.command("other")(lambda: None)
    return CliRunner().invoke(app, [info.name, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"}).output, app


@pytest.mark.parametrize("offers, absent, present", [
    ({"backward": False}, ("--backward", "--grad-output"), ("--explain", "--at", "--max-rows", "--grid")),
    ({"explain": False}, ("--explain", "--at", "--grid", "--svg"), ("--backward", "--max-rows")),
    ({"explain": False, "backward": False}, ("--explain", "--at", "--backward", "--max-rows"), ("--json",)),
])
def test_explain_and_backward_options_only_where_the_op_offers_them(offers, absent, present, monkeypatch):
    import copy
    from typer.testing import CliRunner
    from core.ops.registry import OPS
    from tensorcli import opspec
    entry = copy.copy(opspec.ENTRIES["gather"])
    for group, offered in offers.items():
        setattr(entry, group, offered)
    monkeypatch.setitem(opspec.ENTRIES, "gather", entry)
    out, app = _help_of(OPS["gather"])
    options = "\n".join(ln for ln in out.splitlines() if ln.startswith("│"))   # the option table
    for flag in absent:
        assert f" {flag} " not in options, flag
    for flag in present:
        assert f" {flag} " in options, flag
    r = CliRunner().invoke(app, ["gather", "[[1,2]]", "--dim", "1", "--index", "[[1]]", *absent[:1]])
    assert r.exit_code == 2 and "No such option" in r.output
    r = CliRunner().invoke(app, ["gather", "[[1,2]]", "--dim", "1", "--index", "[[1]]", "--json"])
    assert r.exit_code == 0 and '"data": [[2]]' in r.output


# -- the group's help, drawn by tensorcli/render/group_help.py (start-up work, issue 11) ----------------
# It prints what Typer's rich help printed (typer.rich_utils, which it no longer imports), except long op
# panels, drawn as names only.

_TYPER_GROUP_HELP = """
import sys
from typer.core import TyperGroup
import tensorcli.app as A
A.TensorcliGroup.format_help = TyperGroup.format_help    # Typer's own rendering, for comparison
sys.exit(A.main(sys.argv[1:]))
"""


# -h at one width and --help at each width and colour setting (bare `tensorcli` prints a short usage:
# tests/tensorcli/commands/test_options.py): the two are independent (the arguments pick the group help; the environment only changes how it is drawn)
@pytest.mark.parametrize("args,env", [(["-h"], {"COLUMNS": "100"})] +
                         [(["--help"], env) for env in ({"COLUMNS": "100"}, {"COLUMNS": "60"}, {"COLUMNS": "150"},
                                                        {"COLUMNS": "100", "FORCE_COLOR": "1", "NO_COLOR": ""})])
def test_group_help_is_what_typer_draws(args, env):
    """As Typer draws it, except op panels of more than OP_PANEL_ROWS commands: names only."""
    from tensorcli.render.group_help import OP_PANEL_ROWS
    ours = run(*args, env=env)
    typers = subprocess.run([sys.executable, "-c", _TYPER_GROUP_HELP, *args], capture_output=True, text=True,
                            timeout=120, env={**ENV, **env})
    assert ours.returncode == typers.returncode == 0
    assert "Usage: " in ours.stdout and "╭─ indexing ops" in ours.stdout
    typers_rest, typers_ops = _split_op_panels(typers.stdout)
    long_ops = {t: b for t, b in typers_ops.items() if len(_row_names(b)) > OP_PANEL_ROWS}
    ours_rest, ours_ops = _split_op_panels(ours.stdout, long_ops)
    assert ours_rest == _split_op_panels(typers.stdout, long_ops)[0] and ours.stderr == typers.stderr
    assert ours_ops.keys() == long_ops.keys()
    for title, body in ours_ops.items():   # names only: every command of the panel, in order
        assert re.findall(r"[a-z][a-z0-9_.-]*", _plain(body)) == _row_names(long_ops[title]), title


def _plain(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _row_names(body):
    """The command names of a panel drawn as Typer's table (first word of each row)."""
    return [ln.split()[1] for ln in _plain(body).splitlines() if len(ln) > 2 and ln[2] != " "]


def _split_op_panels(text, titles=None):
    """(the help without the panels named in `titles` (every "... ops" panel when None), {title: body})."""
    lines, plain = text.splitlines(), _plain(text).splitlines()
    rest, panels, i = [], {}, 0
    while i < len(lines):
        m = re.match(r"╭─ (\w+ ops) ", plain[i])
        if m and (titles is None or m.group(1) in titles):
            j = i + 1
            while not plain[j].startswith("╰"):
                j += 1
            panels[m.group(1)] = "\n".join(lines[i + 1:j])
            i = j + 1
            continue
        rest.append(lines[i])
        i += 1
    return "\n".join(rest), panels


def test_group_help_imports_neither_core_nor_typer_rich_utils():
    code = ("import sys; from tensorcli.app import main\ntry: main(['--help'])\nexcept SystemExit: pass\n"
            "print([m for m in sys.modules if m in ('core', 'typer.rich_utils', 'rich.markdown', 'pygments')],"
            " file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV)
    assert r.stderr.strip().splitlines()[-1] == "[]"
