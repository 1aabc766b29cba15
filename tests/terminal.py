"""Commands as a terminal shows them, in-process: the human output of a tensorcli command rendered
through a forced terminal of a given width (FORCE_COLOR, COLUMNS: what Rich reads), ANSI styles
stripped; and the same command piped (no colour). Shared by tests/tensorcli/render/test_terminal_*.py and
`python scripts/cli_snapshot.py --update` (tests/snapshots/, one file per screen, named by subject).
"""
from __future__ import annotations

import os
import re
import shlex

from typer.testing import CliRunner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOTS = os.path.join(ROOT, "tests", "snapshots")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
GATHER = "gather '[[1,2,3],[4,5,6],[7,8,9]]' --dim 0 --index '[[0,1,2],[2,0,1]]'"

# About 30 screens users meet first, one snapshot file each (name: subject). Time figures are
# normalised (normalize) so the snapshot holds only what is stable.
SCREENS = {
    "gather_explain": GATHER + " --explain",
    "gather_dim_all": GATHER + " --explain --dim all",
    "gather_backward": GATHER + " --backward",
    "gather_grid": GATHER + " --grid",
    "scatter_explain": "scatter '[[0,0,0],[0,0,0]]' --dim 1 --index '[[2,0],[1,2]]' --src '[[1,2],[3,4]]' --explain",
    "scatter_add_explain": "scatter-add '[0,0,0]' --dim 0 --index '[0,2,0]' --src '[1,2,3]' --explain",
    "index_select_explain": "index-select '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,0]' --explain",
    "transpose_explain": "transpose '[[1,2,3],[4,5,6]]' --dim0 0 --dim1 1 --explain",
    "sum_explain": "sum '[[1.0,2,3],[4,5,6]]' --dim 1 --explain",
    "mean_explain": "mean '[[1.0,2,3],[4,5,6]]' --dim 0 --explain",
    "max_explain": "max '[[1.0,5,2],[7,3,7]]' --dim 1 --explain",
    "argmax_explain": "argmax '[[1,5],[3,2]]' --dim 1 --explain",
    "sort_explain": "sort '[3.0,1,2]' --explain",
    "softmax_explain": "softmax '[[1.0,2],[3,1]]' --dim 1 --explain",
    "softmax_backward": "softmax '[[1.0,2],[3,1]]' --dim 1 --backward",
    "matmul_zero_weight_grid": "matmul '[[1.0,2]]' --other '[[0.0],[1]]' --explain --grid",
    "conv2d_grid": "conv2d '[[[[1.0,2,3],[4,5,6],[7,8,9]]]]' --weight '[[[[1.0,0],[0,-1]]]]' --padding 1 --grid",
    "linear_zero_weights_explain": "linear '[[1.0,2]]' --weight '[[0.0,0],[1,0]]' --explain",
    "mul_broadcast_explain": "mul '[[1.0,2],[3,4]]' --other '[0.0,10]' --explain",
    "layer_norm_explain": "layer-norm '[[1.0,2,4]]' --normalized-shape 3 --explain",
    "show": "show '[[1.0,2],[3,4]]'",
    "eval_softmax": "eval 'torch.softmax(x, dim=0)' --let x='[1.0,2.0,3.0]'",
    "grad": "grad 'y = 2 * x ** 2' --let x='[1.0,1.0,1.0]' --requires-grad x --gradient '[0.1,1.0,0.0001]'",
    "graph": "graph 'z = x + y; o = w.matmul(z)' --let x='[0.0,1,2,3]' --let y='[4.0,5,6,7]' "
             "--let w='[1.0,1,1,1]' --requires-grad w",
    "modes": "modes 'y = (x * w).sum()' --let x='[1.0, 2.0]' --let w='[0.5, 0.5]' --requires-grad w",
    "ops_shape": "ops --category shape",
    "check_gather_cases": "check examples/gather.toml",
    "help_gather": "gather --help",
    "help_eval": "eval --help",
    "help_group": "--help",
}

_NOISE = [(re.compile(r"\d+(?:\.\d+)? ?(?:ms|s)\b"), "<time>")]


def normalize(text: str) -> str:
    """Run-to-run noise (durations) replaced, trailing spaces dropped."""
    for pat, rep in _NOISE:
        text = pat.sub(rep, text)
    return "\n".join(line.rstrip() for line in text.split("\n"))


def strip(text: str) -> str:
    return ANSI.sub("", text)


_APP = []


def app():
    if not _APP:
        from tensorcli import app as cli_app
        _APP.append(cli_app.build_app())
    return _APP[0]


def argv(command: str) -> list[str]:
    return shlex.split(command)


def terminal(command: str, width: int) -> str:
    """stdout of `tensorcli COMMAND` on a colour terminal `width` columns wide, styles stripped."""
    env = {"FORCE_COLOR": "1", "COLUMNS": str(width), "TERM": "xterm-256color", "NO_COLOR": None,
           "_TYPER_FORCE_DISABLE_TERMINAL": None, "TERMINAL_WIDTH": None}
    r = CliRunner().invoke(app(), argv(command), env=env, catch_exceptions=False)
    assert r.exit_code in (0, 1), (command, r.exit_code, r.stderr)
    return strip(r.stdout)


def piped(command: str) -> str:
    """stdout of `tensorcli COMMAND` piped (no colour)."""
    env = {"NO_COLOR": "1", "FORCE_COLOR": None, "COLUMNS": None, "TERMINAL_WIDTH": None}
    r = CliRunner().invoke(app(), argv(command), env=env, catch_exceptions=False)
    assert r.exit_code in (0, 1), (command, r.exit_code, r.stderr)
    return r.stdout


def snapshot_path(name: str) -> str:
    return os.path.join(SNAPSHOTS, f"{name}.txt")


def screen(name: str, width: int = 80) -> str:
    """The snapshot text of one screen: the command line, then what an 80-column terminal shows."""
    command = SCREENS[name]
    cwd = os.getcwd()
    os.chdir(ROOT)          # check's case files are given relative to the repository
    try:
        out = terminal(command, width)
    finally:
        os.chdir(cwd)
    return normalize(f"$ tensorcli {command}\n{out}").rstrip("\n") + "\n"
