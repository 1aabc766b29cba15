"""Shape errors drawn (services/shape_errors.py): under torch's message, the failing statement and
expression, the operands' shapes aligned with the offending dims marked, and the rule. The message itself is
torch's (the same program run by torch through the safe language on a torch backend)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

import core
from tensorcli.app import app
from tensorcli.services import expr as expr_mod

runner = CliRunner()

X = "[[1.0, 2.0, 3.0]]"
CASES = {   # program, lets, marked shape lines (label, source, sizes), rule prefix
    "broadcast": ("a = x * 2; y = x + w", {"x": X, "w": "[1.0, 2.0]"},
                  [("a x", "1 3", -1), ("b w", "2", -1)], "broadcasting"),
    "matmul_vec": ("y = (x @ w).sum()", {"x": X, "w": "[1.0, 2.0]"},
                   [("a x", "1 3", -1), ("b w", "2", -1)], "matmul"),
    "mm": ("torch.mm(x, w)", {"x": X, "w": "[[1.0, 2.0]]"}, [("arg 0 x", "1 3", -1), ("arg 1 w", "1 2", -2)],
           "matmul"),
    "cat": ("torch.cat([x, w])", {"x": X, "w": "[[1.0, 2.0]]"}, [("[0] x", "1 3", None), ("[1] w", "1 2", 1)],
            "cat"),
    "stack": ("torch.stack([x, w], 0)", {"x": X, "w": "[[1.0, 2.0]]"}, [("[0] x", "1 3", None), ("[1] w", "1 2", 1)],
              "stack"),
    "view": ("x.view(2, 2)", {"x": X}, [("self x", "1 3", None)], "view / reshape"),
    "reshape": ("x.reshape(-1, 2)", {"x": X}, [("self x", "1 3", None)], "view / reshape"),
    "gather": ("torch.gather(x, 1, i)", {"x": X, "i": "[[0], [1]]"}, [("arg 0 x", "1 3", 0), ("arg 2 i", "2 1", 0)],
               "gather"),
}


def _torch_message(torch, program, lets):
    names = {n: torch.tensor(eval(v)) for n, v in lets.items()}   # literal test data, not user text
    if "i" in names:
        names["i"] = names["i"].long()
    with pytest.raises(RuntimeError) as info:
        expr_mod.evaluate(program, names, backend=expr_mod.Backend.from_module(torch))
    return str(info.value)


def _marked_columns(lines, label):
    """Column indices of the carets under the shape line starting with label."""
    for i, line in enumerate(lines):
        if line.strip().startswith(label + " ") or line.strip() == label:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if "^" in nxt and not nxt.strip().startswith(("rule", "line")):
                return line, [j for j, c in enumerate(nxt) if c == "^"]
            return line, []
    raise AssertionError(f"no shape line for {label!r} in {lines}")


@pytest.mark.parametrize("case", list(CASES))
def test_eval_draws_the_shapes_under_torchs_message(torch, case):
    program, lets, rows, rule = CASES[case]
    args = ["eval", program]
    for n, v in lets.items():
        args += ["--let", f"{n}={v}"]
    r = runner.invoke(app, args)
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    message = _torch_message(torch, program, lets)
    assert lines[0] == f"tensorcli: error: EXPR: RuntimeError: {message.splitlines()[0]}"
    statement = [s.strip() for s in program.split(";")][-1]
    assert lines[1].strip().startswith(f"line 1: {program}") or statement in lines[1]
    assert any(line.strip().startswith(f"rule: {rule}") for line in lines)
    for label, sizes, dim in rows:
        line, carets = _marked_columns(lines, label)
        assert line.split()[-len(sizes.split()):] == sizes.split()
        if dim is None:
            assert carets == []
        else:
            tokens = sizes.split()
            want_token = tokens[dim]
            # the caret sits under the marked size's last character
            assert len(carets) == 1 and line[carets[0]] == want_token[-1]


def test_grad_command_draws_too_and_other_errors_stay_one_line():
    r = runner.invoke(app, ["grad", "y = (x + w).sum()", "--let", f"x={X}", "--let", "w=[1.0, 2.0]",
                            "--requires-grad", "x"])
    assert r.exit_code == 2 and "rule: broadcasting" in r.stderr
    r = runner.invoke(app, ["eval", "x.foo()", "--let", f"x={X}"])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1


def test_drawing_for_a_core_message_without_a_program():
    from tensorcli.services.shape_errors import drawing
    lines = drawing("shape '[-1, 2]' is invalid for input of size 3", None)
    assert lines[-1].startswith("rule: view / reshape") and "does not divide 3" in lines[-1]
    assert drawing("something else", None) == []
    with pytest.raises(RuntimeError) as info:
        core.ones(3).view(-1, 2)
    assert drawing(str(info.value), None)
