"""Python literal syntax for tensor arguments (io.literal): what people copy from PyTorch code
(`[0., .5]`, `[True, False]`, `[nan, inf]`, tuples) gives torch.tensor's values, dtype and shape;
JSON stays valid; nothing is evaluated; errors name the column."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tensorcli import io as tio
from tensorcli.errors import CliError
from tensorcli.io.literal import LiteralError, parse_literal

LITERALS = [
    "[0., 1., 2.]", "[1e3, .5]", "[True, False]", "[nan, inf, -inf]", "((1, 2), (3, 4))",
    "[(1, 2.5), [3, -4]]", "(3,)", "()", "[]", "7", "-2.5e-3", "[1_000, 0x10, 0o7, 0b11]",
    "[[True, 2], [3., False]]", "[-True, --1, +2]", "1, 2, 3", "[[[-0.]]]", "(((1,),),)",
    "[1E+2, 5.E-1]", "[NaN, Infinity, -Infinity]",
]


def _python(text):
    """The same text as Python evaluates it (the test's oracle; the parser never evaluates)."""
    return eval(text, {"__builtins__": {}}, {"nan": math.nan, "inf": math.inf, "NaN": math.nan,  # noqa: S307
                                             "Infinity": math.inf})


@pytest.mark.parametrize("text", LITERALS)
def test_literal_matches_torch_tensor(torch, text):
    expected = torch.tensor(_python(text))
    got = tio.load_tensor(text, arg="INPUT")
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(expected.numpy()))


@pytest.mark.parametrize("text", ['[1, 2.5, true]', '[[1,2],[3,4]]', '{"data": [1,2], "dtype": "int32"}',
                                  '[NaN, "Infinity", -Infinity]'])
def test_json_still_reads_as_before(text):
    t = tio.load_tensor(text, arg="INPUT")
    assert t.numel() >= 2


@pytest.mark.parametrize("text, col, needle", [
    ("[1, 2", 6, "unclosed"), ("[1 2]", 4, "expected ','"), ("[1,,2]", 4, "expected a number"),
    ("__import__('os')", 1, "not a literal"), ("[1, x]", 5, "'x' is not a literal"),
    ("[1, 2] 3", 8, "after the value"), ("[1; 2]", 3, "unexpected character"), ("[1, 2.3.4]", 8, "expected"),
    ("[None]", 2, "not a literal"), ("[1, 'a']", 5, "unexpected character"), ("[1, 2 + 3]", 7, "expected"),
])
def test_refused_with_the_column(text, col, needle):
    with pytest.raises(LiteralError) as e:
        parse_literal(text)
    assert e.value.col == col and needle in e.value.msg
    with pytest.raises(CliError) as ce:
        tio.load_tensor(text, arg="INPUT")
    assert f"column {col}" in ce.value.message and needle in ce.value.message


def test_nesting_is_bounded():
    with pytest.raises(LiteralError, match="nested more than"):
        parse_literal("(" * 40 + "1" + ")" * 40)
    with pytest.raises(CliError, match="nested"):
        tio.load_tensor("(" * 100_000 + "1" + ")" * 100_000, arg="INPUT")


def _script():
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    return here if os.path.exists(here) else shutil.which("tensorcli")


SCRIPT = _script()


@pytest.mark.skipif(SCRIPT is None, reason="tensorcli console script not installed")
def test_cli_tensor_let_and_gradient_take_python_literals(torch):
    """Through the console script: an op's tensor argument, --let and --gradient."""
    run = lambda *a: subprocess.run([SCRIPT, *a], capture_output=True, text=True, timeout=60)  # noqa: E731
    p = run("gather", "((1., 2.), (3., nan))", "--dim", "1", "--index", "[(1, 0), (1, 1)]", "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)["result"]
    expected = torch.gather(torch.tensor(((1., 2.), (3., math.nan))), 1, torch.tensor([(1, 0), (1, 1)]))
    assert res["shape"] == list(expected.shape)
    assert res["data"] == [[2.0, 1.0], ["NaN", "NaN"]]
    p = run("grad", "y = 2 * x ** 2", "--let", "x=[1., .5, 1e0]", "--requires-grad", "x",
            "--gradient", "(.1, 1., 1e-4)", "--json")
    assert p.returncode == 0, p.stderr
    x = torch.tensor([1., .5, 1e0], requires_grad=True)
    (2 * x ** 2).backward(torch.tensor((.1, 1., 1e-4)))
    grads = {t["name"]: t["grad"] for t in json.loads(p.stdout)["tensors"]}
    assert grads["x"] == x.grad.tolist()
    p = run("show", "[1, 2")
    assert p.returncode == 2 and "column 6" in p.stderr
