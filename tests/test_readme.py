"""The README's commands work as written: the main job of the set-up section and every
`$ tensorcli ...` line of "Using it" exits 0 (run from a temporary folder)."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def _usage_commands():
    text = _readme()
    block = text[text.index("## Using it"):]
    block = block[block.index("```console") + len("```console"):]
    block = block[:block.index("```")]
    joined = re.sub(r"\\\n\s*", " ", block)
    cmds = []
    for line in joined.splitlines():
        line = line.strip()
        if line.startswith("$ tensorcli"):
            cmd = line[2:].split("  #")[0].strip()
            if "INPUT" in cmd:      # the synopsis line, not a runnable command
                continue
            cmds.append(cmd)
    return cmds


def _main_job():
    text = _readme()
    m = re.search(r"pip install -e \. && (tensorcli gather [^\n]+)", text)
    return m.group(1).strip()


pytestmark = pytest.mark.skipif(shutil.which("tensorcli") is None, reason="tensorcli console script not installed")


@pytest.mark.parametrize("cmd", [_main_job()] + _usage_commands())
def test_readme_command_runs(cmd, tmp_path):
    if "examples/" in cmd:
        shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    if "x.npy" in cmd:   # the README's session makes x.npy first
        import numpy as np
        np.save(tmp_path / "x.npy", np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    r = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 0, f"{cmd}\n{r.stderr[-2000:]}"


def test_readme_lists_the_usage_commands():
    assert len(_usage_commands()) >= 7
