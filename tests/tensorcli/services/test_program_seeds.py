"""The seed documents' programs through `tensorcli eval -f`, compared with PyTorch.

* each Python snippet test tests/seeds/NAME.py has a CLI twin: the snippet without its `warnings` lines
  (the CLI leaves torch's warnings on stderr), run by `tensorcli eval -f`; its stdout must be the
  snippet's golden torch output (tests/golden/seeds.json, checked against live torch by test_seeds.py).
* tests/seeds/documents/*.py are the documents' snippets as printed (an import the snippet relies on
  is added at the top when it has none, and a comment says so); each runs in torch and through the
  CLI, both seeded with manual_seed(0): same stdout, and where torch raises, the CLI exits 2 naming
  the same line, exception class and message.
"""
from __future__ import annotations

from paths import TESTS

import contextlib
import io
import json
import os
import runpy
import traceback
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

import core
from tensorcli.app import app
from tensorcli.errors import one_line

HERE = Path(TESTS)
SEEDS = HERE / "seeds"
SNIPPETS = sorted(SEEDS.glob("*.py"))
DOCUMENTS = sorted((SEEDS / "documents").glob("*.py"))
runner = CliRunner()


def _cli(path):
    core.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return runner.invoke(app, ["eval", "-f", str(path)])


def _twin(path, tmp_path):
    """The snippet as the CLI runs it: without `import warnings` / `warnings.simplefilter("ignore")`."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    twin = tmp_path / path.name
    twin.write_text("".join(ln for ln in lines if ln.strip() not in ("import warnings",
                                                                     'warnings.simplefilter("ignore")')))
    return twin


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_cli_twin_prints_what_torch_prints(path, tmp_path):
    golden = json.loads((HERE / "golden" / "seeds.json").read_text(encoding="utf-8"))
    r = _cli(_twin(path, tmp_path))
    assert r.exit_code == 0, r.stderr
    assert r.stdout == golden[path.stem]["stdout"]


def _torch_run(torch, path):
    torch.manual_seed(0)
    buf = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            runpy.run_path(str(path), run_name="__main__")
        except Exception as e:  # noqa: BLE001 - the program's own error is the expectation
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
            error = (type(e).__name__, str(e).splitlines()[0], frames[-1].lineno)
    return buf.getvalue(), error


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.stem for p in DOCUMENTS])
def test_document_snippet_runs_as_in_torch(torch, path):
    expected, error = _torch_run(torch, path)
    r = _cli(path)
    assert r.stdout == expected
    if error is None:
        assert r.exit_code == 0, r.stderr
    else:
        kind, message, line = error
        assert r.exit_code == 2
        # the CLI's one error line is bounded (tensorcli.errors.one_line: 400 characters)
        assert r.stderr == "tensorcli: error: " + one_line(f"{path}: line {line}: {kind}: {message}") + "\n"


def test_documents_cover_each_seed_file():
    assert {p.name[:4] for p in DOCUMENTS} == {"s000", "s002", "s003"}
    assert len(DOCUMENTS) >= 35
