"""Generated files are current: each is regenerated in memory by scripts/regenerate.py (the one command
that writes them) and compared byte for byte with the committed file."""
from __future__ import annotations

import importlib.util
import os

from paths import ROOT

_spec = importlib.util.spec_from_file_location("regenerate", os.path.join(ROOT, "scripts", "regenerate.py"))
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)


def _stale(sources):
    out = []
    for path, text in sources.items():
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                out.append(os.path.relpath(path, ROOT))
    return out


def test_the_lazy_table_is_current():
    """core/ops/lazy_table.py names what each lazy unit registers (read in a fresh process)."""
    assert _stale({regenerate.LAZY_TABLE: regenerate.lazy_table_source()}) == [], "run: python scripts/regenerate.py"


def test_the_cli_tables_and_the_man_page_are_current():
    assert _stale(regenerate.cli_sources()) == [], "run: python scripts/regenerate.py"
