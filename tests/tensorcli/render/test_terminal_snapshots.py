"""About 30 screens users meet first, as an 80-column colour terminal shows them (styles stripped),
kept in tests/snapshots/<subject>.txt so that a change to what users see shows up in review.
Regenerate with `python scripts/cli_snapshot.py --update` (and read the diff)."""
from __future__ import annotations

import os

import pytest

from terminal import SCREENS, SNAPSHOTS, screen, snapshot_path


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_its_snapshot(name):
    path = snapshot_path(name)
    assert os.path.exists(path), f"no snapshot for {name}: python scripts/cli_snapshot.py --update"
    with open(path, encoding="utf-8") as fh:
        want = fh.read()
    assert screen(name) == want, f"{name} changed: python scripts/cli_snapshot.py --update, then review the diff"


def test_no_stale_snapshots():
    files = {f[:-4] for f in os.listdir(SNAPSHOTS) if f.endswith(".txt")}
    assert files == set(SCREENS), files ^ set(SCREENS)
    assert 25 <= len(SCREENS) <= 40
