"""Hostile expressions given to `tensorcli grad` (and some to `graph` / `modes`): each exits 2 with
one clear line on stderr, and runs nothing: a canary file that each tries to create never appears,
and the statically refused ones never reach the evaluator's run loop."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

import core
from tensorcli.services import program as program_mod
from tensorcli.app import app

runner = CliRunner()
CANARY = "CANARY_PATH"   # replaced by the test's canary file path


# (expression, words the one-line message must contain); every refusal here is static: found by
# parse/resolve before any statement runs.
STATIC = [
    ("__import__('os').system('touch CANARY_PATH')", "'__import__' is not allowed"),
    ("().__class__.__bases__[0].__subclasses__()", "'__subclasses__' is not allowed"),
    ("x.__class__.__init__.__globals__['os']", "'__globals__' is not allowed"),
    ("torch.Tensor.__init__.__globals__", "'__globals__' is not allowed"),
    ("x.grad_fn.__class__", "'__class__' is not allowed"),
    ("(lambda: open('CANARY_PATH', 'w'))()", "unknown name 'open'"),
    ("f = lambda: __import__('os')", "'__import__' is not allowed"),
    ("(y := open('CANARY_PATH', 'w'))", "assignment expression (:=) is not allowed"),
    ("f\"{open('CANARY_PATH', 'w')}\"", "unknown name 'open'"),
    ("open('CANARY_PATH', 'w')", "unknown name 'open'"),
    ("eval(\"open('CANARY_PATH', 'w')\")", "unknown name 'eval'"),
    ("exec(\"open('CANARY_PATH', 'w')\")", "unknown name 'exec'"),
    ("getattr(x, '__class__')", "unknown name 'getattr'"),
    ("globals()", "unknown name 'globals'"),
    ("breakpoint()", "unknown name 'breakpoint'"),
    ("import os", "import of 'os' is not allowed"),
    ("from os import system", "import of 'os' is not allowed"),
    ("import torch.utils.data", "import of 'torch.utils.data' is not allowed"),
    ("torch.save(x, 'CANARY_PATH')", "'save' of module 'torch' is not allowed"),
    ("torch.load('CANARY_PATH')", "'load' of module 'torch' is not allowed"),
    ("torch.from_file('CANARY_PATH')", "'from_file' of module 'torch' is not allowed"),
    ("x.register_hook(open)", "unknown name 'open'"),
    ("x.apply_(open)", "unknown name 'open'"),
    ("[c for c in ().__class__.__mro__]", "'__mro__' is not allowed"),
    ("{k: v for k, v in x.__dict__}", "'__dict__' is not allowed"),
    ("torch.nn.functional.__dict__", "'__dict__' is not allowed"),
    ("torch.hub.load('a', 'b')", "'hub' of module 'torch' is not allowed"),
    ("torch.jit.script(x)", "'jit' of module 'torch' is not allowed"),
    ("torch.set_num_threads(1)", "'set_num_threads' of module 'torch' is not allowed"),
    ("torch.set_default_dtype(torch.float64)", "'set_default_dtype' of module 'torch' is not allowed"),
    ("MultiplyAdd.forward(x, x, x)", "unknown name 'MultiplyAdd.forward'"),
    ("MultiplyAdd.apply.__self__", "'__self__' is not allowed"),
    ("def f(): open('CANARY_PATH', 'w')", "unknown name 'open'"),
    ("class A: pass", "a class must have exactly one base"),
    ("with open('CANARY_PATH', 'w') as f: pass", "unknown name 'open'"),
    ("x.sum(); __import__('os').system('touch CANARY_PATH')", "'__import__' is not allowed"),
    ("y = x * 2; y if y.sum() else __import__('os')", "'__import__' is not allowed"),
    ("torch", "module 'torch' cannot be used as a value"),
    ("y = torch.save; y(x, 'CANARY_PATH')", "'save' of module 'torch' is not allowed"),
    ("torch = 1", "cannot assign to module alias 'torch'"),

    ("(" * 200 + "x" + ")" * 200, "brackets nested deeper than 50"),
    ("-" * 500 + "x", "nested deeper than 100 levels"),
    ("x" + " + x" * 30000, "source is"),
    ("x\x00", "null bytes"),
    ("x +", "invalid syntax"),
    ("*x, = x", "only plain names can be unpacked into"),
    ("y = [*x]", "starred expression is not allowed"),
    ("x.__reduce_ex__(2)", "'__reduce_ex__' is not allowed"),
    ("x._data", "'_data' is not allowed"),
]

# Refused while running, before the operation: what the value is, not its name, is the problem.
DYNAMIC = [
    ("x.tofile('CANARY_PATH')", "attribute 'tofile' of Tensor is not allowed"),
    ("x.detach().numpy().tofile('CANARY_PATH')", "attribute 'tofile' of ndarray is not allowed"),
    ("x.storage()", "attribute 'storage' of Tensor is not allowed"),
    ("y = x * 2; y.grad_fn.next_functions[0][0].variable.tofile('CANARY_PATH')",
     "attribute 'tofile' of Tensor is not allowed"),
    ("torch.autograd.Function()", "calling class 'torch.autograd.Function' is not allowed"),
    ("'{0.__class__}'.format(x)", "format field '0.__class__' is not allowed"),
    ("while True: pass", "iteration budget exceeded"),
    ("for i in range(10**9): pass", "iterating over 1000000000 items exceeds the iteration budget"),
]

# Refused while running, by a size check made before the operation allocates anything.
SIZES = [
    ("torch.zeros(10**12)", "zeros() would allocate 1000000000000 elements"),
    ("torch.ones(2**40, 2**40)", "ones() would allocate"),
    ("torch.randn(10**6, 10**6)", "randn() would allocate"),
    ("torch.arange(10**13)", "arange() would allocate"),
    ("x.repeat(10**6, 10**6)", "repeat() would allocate"),
    ("x.expand(10**7, 10**7).clone()", "expand() would allocate"),
    ("9 ** 9 ** 9", "integer power"),
    ("x.tolist() * 10**9", "list repetition"),
    ("[x] * 10**9", "list repetition"),
    ("'a' * 10**9", "string repetition"),
]


@pytest.fixture
def canary(tmp_path, monkeypatch):
    path = tmp_path / "canary"
    monkeypatch.chdir(tmp_path)
    runs = []
    original = program_mod.Interpreter.run

    def spy(self):
        runs.append(self.program.source)
        return original(self, *())

    monkeypatch.setattr(program_mod.Interpreter, "run", spy)
    yield path, runs
    assert not path.exists(), "a hostile expression created the canary file"


def _check_refused(result, words):
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert err.startswith("tensorcli: error: EXPR: "), err
    assert err.count("\n") == 1 and "Traceback" not in result.output, err
    assert words in err, err
    assert result.stdout == ""


def _invoke(command, source, canary_path):
    source = source.replace(CANARY, str(canary_path))
    return runner.invoke(app, [command, "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--", source])


def test_corpus_has_at_least_30_hostile_expressions():
    assert len(STATIC) + len(DYNAMIC) + len(SIZES) >= 30


@pytest.mark.parametrize("source,words", DYNAMIC, ids=[s[:50] for s, _ in DYNAMIC])
def test_grad_refuses_forbidden_values_while_running(canary, source, words):
    path, _ = canary
    _check_refused(_invoke("grad", source, path), words)


@pytest.mark.parametrize("source,words", STATIC, ids=[s[:50] for s, _ in STATIC])
def test_grad_refuses_statically_and_runs_nothing(canary, source, words):
    path, runs = canary
    _check_refused(_invoke("grad", source, path), words)
    assert runs == []


@pytest.mark.parametrize("source,words", SIZES, ids=[s for s, _ in SIZES])
def test_grad_refuses_huge_sizes_before_allocating(canary, monkeypatch, source, words):
    path, _ = canary
    calls = []
    for name in ("zeros", "ones", "randn", "arange"):
        original = getattr(core, name)
        monkeypatch.setattr(core, name, lambda *a, _o=original, _n=name, **k: (calls.append(_n), _o(*a, **k))[1])
    _check_refused(_invoke("grad", source, path), words)
    assert calls == []


@pytest.mark.parametrize("command", ["graph", "modes"])
@pytest.mark.parametrize("source,words", [STATIC[0], STATIC[2], STATIC[5],
                                             next(e for e in STATIC if e[0].startswith("torch.save(")), SIZES[0]],
                         ids=["import", "globals", "lambda", "save", "zeros"])
def test_graph_and_modes_refuse_too(canary, command, source, words):
    path, runs = canary
    _check_refused(_invoke(command, source, path), words)
    if source is not SIZES[0][0]:
        assert runs == []


def test_max_bytes_option_lowers_the_limit(canary):
    path, _ = canary
    r = runner.invoke(app, ["grad", "y = torch.zeros(300, requires_grad=True); s = y.sum()", "--max-bytes", "1000"])
    _check_refused(r, "zeros() would allocate 300 elements (1.17 KiB; limit 1000 B)")
    r = runner.invoke(app, ["grad", "y = torch.zeros(200, requires_grad=True); s = y.sum()", "--max-bytes", "1000"])
    assert r.exit_code == 0, r.output


def test_max_bytes_refuses_before_allocating(canary):
    # the default is half of physical memory (issue #16); --max-bytes sets it per command
    path, _ = canary
    r = runner.invoke(app, ["grad", "--max-bytes", "2GiB",
                            "y = torch.zeros(2**29 + 1, requires_grad=True); s = y.sum()"])
    _check_refused(r, "limit 2 GiB")
