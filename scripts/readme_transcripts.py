"""Regenerate the transcripts of README.md from the installed `tensorcli` (output unedited).

A ```console block holding output lines is a transcript: its `$ ` commands are run again, in
order, in one temporary folder (so a command may use a file an earlier one wrote), with
NO_COLOR=1 and COLUMNS=80, and the block is rewritten with each command followed by what it
printed (stderr and stdout as a terminal interleaves them). Blocks of commands only (the
"Using it" list) are left as they are. The op counts after "`tensorcli ops` lists the" come
from `tensorcli ops` / `tensorcli ops --all`.

    python scripts/readme_transcripts.py           # rewrite README.md
    python scripts/readme_transcripts.py --check   # exit 1 when README.md is not current
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def _commands(body: str) -> list[str]:
    """The block's `$ ` commands, a trailing backslash joining the next line."""
    cmds, cur = [], None
    for line in body.splitlines():
        if cur is not None:
            cur += "\n" + line
            if not line.endswith("\\"):
                cmds.append(cur)
                cur = None
        elif line.startswith("$ "):
            if line.endswith("\\"):
                cur = line[2:]
            else:
                cmds.append(line[2:])
    return cmds


def _is_transcript(body: str) -> bool:
    lines, joined = body.splitlines(), set()
    for i, line in enumerate(lines):
        if line.endswith("\\") and i + 1 < len(lines):
            joined.add(i + 1)
    return any(not ln.startswith("$ ") and i not in joined for i, ln in enumerate(lines))


def _run(cmds, cwd) -> str:
    out = []
    for c in cmds:
        r = subprocess.run(["bash", "-c", c], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=ENV)
        out.append("$ " + c)
        out += [ln.rstrip() for ln in r.stdout.strip("\n").splitlines()]
    return "\n".join(out).rstrip() + "\n"


def _count(args) -> str:
    first = subprocess.run(["tensorcli", *args], capture_output=True, text=True, env=ENV).stdout.split("\n")[0]
    return first.split()[0]


def regenerate(text: str) -> str:
    work = tempfile.mkdtemp(prefix="readme-")

    def block(m):
        body = m.group(1)
        if not _is_transcript(body):
            return m.group(0)
        return "```console\n" + _run(_commands(body), work) + "```"
    text = BLOCK.sub(block, text)
    return re.sub(r"(`tensorcli ops` lists the\s+)\d+( op commands, `tensorcli ops --all` all\s+)\d+",
                  lambda m: m.group(1) + _count(["ops"]) + m.group(2) + _count(["ops", "--all"]), text)


def main(argv) -> int:
    with open(README, encoding="utf-8") as f:
        old = f.read()
    new = regenerate(old)
    if "--check" in argv:
        return 0 if new == old else 1
    with open(README, "w", encoding="utf-8") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
