"""--grid and --svg say what they show: a cell is read when the op reads it, whatever its weight
(matmul / conv2d / linear with zero weights: read, marked ×0), consistently with elementwise ops;
a cell read by several output cells lists all of them, each in its reader's colour; the SVG is
self-contained (no web fonts), as wide as its content, and titled with the command, dims and rule."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from terminal import app, argv, strip

MATMUL = "matmul '[[1.0,2]]' --other '[[0.0],[1]]'"
CONV2D = "conv2d '[[[[1.0,2,3],[4,5,6],[7,8,9]]]]' --weight '[[[[1.0,0],[0,-1]]]]' --padding 1"
LINEAR = "linear '[[1.0,2]]' --weight '[[0.0,0],[1,0]]'"
GATHER = "gather '[[1,2,3],[4,5,6]]' --dim 1 --index '[[0,0],[2,1]]'"


def run(command, *extra, color=False):
    env = ({"FORCE_COLOR": "1", "COLUMNS": "120", "NO_COLOR": None, "_TYPER_FORCE_DISABLE_TERMINAL": None}
           if color else {"NO_COLOR": "1"})
    r = CliRunner().invoke(app(), argv(command) + list(extra), env=env)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def cells(text):
    return [c.strip() for line in text.split("\n") if "│" in line for c in line.split("│")[1:-1]]


def test_matmul_reads_the_element_whose_partner_is_zero():
    grid = cells(run(MATMUL, "--grid"))
    assert "1 A×0" in grid and "2 A" in grid          # input[0][0] is read, with weight 0
    assert not any(c.endswith("·") for c in grid)
    src = json.loads(run(MATMUL, "--explain", "--json"))["explain"][0]["from"]
    assert {"input": "input", "index": [0, 0], "weight": 0} in src


def test_conv2d_help_example_reads_every_input_cell():
    grid = cells(run(CONV2D, "--grid"))
    three = next(c for c in grid if c.startswith("3 "))
    seven = next(c for c in grid if c.startswith("7 "))
    assert "·" not in three and "·" not in seven and "×0" in three and "×0" in seven


def test_linear_with_zero_weights_reads_its_input():
    grid = cells(run(LINEAR, "--grid"))
    assert any(c.startswith("2 ") and "×0" in c for c in grid) and not any(c.endswith("·") for c in grid)


def test_elementwise_zero_weight_is_marked_the_same_way():
    grid = cells(run("mul '[[1.0,2]]' --other '[[0.0,1]]'", "--grid"))
    assert "1 A×0" in grid


def test_every_reader_is_listed_in_its_own_colour():
    raw = run(GATHER, "--grid", color=True)
    line = next(line for line in raw.split("\n") if "A" in strip(line) and "B" in strip(line) and "1 A,B" in strip(line))
    # A (the first output cell) and B (the second) each carry their own colour code
    a = re.search(r"\x1b\[([0-9;]+)mA", line)
    b = re.search(r"\x1b\[([0-9;]+)mB", line)
    assert a and b and a.group(1) != b.group(1), repr(line)


def test_svg_is_self_contained_sized_and_titled(tmp_path):
    small, large = tmp_path / "s.svg", tmp_path / "l.svg"
    run(GATHER, "--svg", str(small))
    run(CONV2D, "--svg", str(large))
    s, big = small.read_text(), large.read_text()
    for svg in (s, big):
        assert "@font-face" not in svg and "cdnjs" not in svg and not re.search(r"url\((?!#)", svg)   # local refs only
    title = re.search(r"<title>(.*?)</title>", s).group(1)
    assert "tensorcli gather --dim 1" in title and "rule: out[i][j] = input[i][index[i][j]]" in title
    width = lambda svg: float(re.search(r'viewBox="0 0 ([0-9.]+)', svg).group(1))
    assert width(s) < width(big) and width(s) < 1482
