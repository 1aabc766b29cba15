"""Hostile programs given to `tensorcli eval` (and through -f): each exits 2 with one line naming the
refusal, and a canary file each tries to create never appears. The program language adds def,
lambda, class, loops and format strings to the expression language: these are the ways out through
them (class bodies, decorators, closures, format fields, frames of generators and tracebacks,
recursion and loop bombs, size bombs)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tensorcli.app import app
from tensorcli.services import program as program_mod

runner = CliRunner()
CANARY = "CANARY_PATH"

HOSTILE = [
    # class bodies and bases
    ("class A(torch.nn.Module):\n    def __getattr__(self, n):\n        return 1", "name '__getattr__' is not allowed"),
    ("class A(torch.nn.Module):\n    __slots__ = ()", "name '__slots__' is not allowed"),
    ("class A(object):\n    pass", "unknown name 'object'"),
    ("class A(int):\n    pass", "a class must derive from torch.autograd.Function or nn.Module"),
    ("class A(type):\n    pass", "a class must derive from torch.autograd.Function or nn.Module"),
    ("class A(torch.Tensor):\n    pass", "a class must derive from torch.autograd.Function or nn.Module"),
    ("class A(torch.nn.Module, metaclass=type):\n    pass", "class keywords (metaclass=...) are not allowed"),
    ("class A(torch.nn.Module, torch.autograd.Function):\n    pass", "exactly one base"),
    ("@print\nclass A(torch.nn.Module):\n    pass", "class decorators are not allowed"),
    ("class A(torch.nn.Module):\n    class B(torch.nn.Module):\n        pass", "a class body may only hold"),
    ("class A(torch.autograd.Function):\n    def __init__(self):\n        pass", "has no __init__"),
    ("class A(torch.nn.Module):\n    def _hidden(self):\n        pass", "'_hidden' is not allowed"),
    ("class A(torch.nn.Module):\n    def f(self):\n        return super().__getattribute__('x')",
     "'__getattribute__' is not allowed"),
    ("class A(torch.nn.Module):\n    pass\nA.__bases__", "'__bases__' is not allowed"),
    ("class A(torch.nn.Module):\n    pass\ntorch.Tensor.add = A", "attribute assignment on a type value is not allowed"),
    ("super(int, 1).__init__()", "obj must be an instance"),
    # lambdas, closures, decorators
    ("f = lambda: x.__class__\nf()", "'__class__' is not allowed"),
    ("f = lambda: globals()\nf()", "unknown name 'globals'"),
    ("g = lambda: (lambda: open('CANARY_PATH', 'w'))\ng()()", "unknown name 'open'"),
    ("@print\ndef f():\n    pass", "decorator is not allowed"),
    ("@torch.jit.script\ndef f():\n    pass", "decorator is not allowed"),
    ("@staticmethod\ndef f():\n    pass", "decorator is not allowed"),
    ("def f():\n    pass\nf.__globals__", "'__globals__' is not allowed"),
    ("def f():\n    pass\nf.interp", "attribute access on a UserFunction value is not allowed"),
    ("def f():\n    pass\nf.node", "attribute access on a UserFunction value is not allowed"),
    # format strings
    ("'{0.__class__}'.format(x)", "format field '0.__class__' is not allowed"),
    ("'{a[0]}'.format(a=[x])", "format field 'a[0]' is not allowed"),
    ("'{:>100000000}'.format(1)", "format width or precision 100000000 is too large"),
    ("f'{1:>{10**9}}'", "format width or precision 1000000000 is too large"),
    ("'%s' % x", "string formatting with % is not allowed"),
    ("'{}'.format_map({})", "attribute 'format_map' of str is not allowed"),
    # frames, tracebacks, generators, the class hierarchy
    ("m = torch.nn.Linear(1, 1)\nm.parameters().gi_frame", "'gi_frame' of generator is not allowed"),
    ("(i for i in [1]).gi_frame.f_globals", "'gi_frame' of list_iterator is not allowed"),
    ("try:\n    torch.ones(2) @ torch.ones(3)\nexcept RuntimeError as e:\n    e.__traceback__",
     "'__traceback__' is not allowed"),
    ("try:\n    torch.ones(2) @ torch.ones(3)\nexcept RuntimeError as e:\n    e.with_traceback(None)",
     "attribute 'with_traceback' of RuntimeError is not allowed"),
    ("type(x).mro()", "attribute 'mro' of type is not allowed"),
    ("type(1).mro()", "attribute 'mro' of type is not allowed"),
    ("print.__self__", "'__self__' is not allowed"),
    ("[].append.__self__", "'__self__' is not allowed"),
    ("x.grad_fn.__class__", "'__class__' is not allowed"),
    ("vars(x)", "unknown name 'vars'"),
    ("getattr(x, 'grad')", "unknown name 'getattr'"),
    ("x.register_hook(lambda g: g.__class__.__init__.__globals__)", "'__globals__' is not allowed"),
    # files and modules
    ("import os\nos.system('touch CANARY_PATH')", "import of 'os' is not allowed"),
    ("import numpy as np\nnp.save('CANARY_PATH', np.zeros(1))", "attribute 'save' of module 'np' is not allowed"),
    ("import numpy as np\nnp.load('CANARY_PATH')", "attribute 'load' of module 'np' is not allowed"),
    ("from torch import hub", "attribute 'hub' of module 'torch' is not allowed"),
    ("from torch import save\nsave(x, 'CANARY_PATH')", "attribute 'save' of module 'torch' is not allowed"),
    ("torch.nn.functional.relu = print", "attribute assignment on a ModuleRef value is not allowed"),
    ("print(x, file=x)", "print(file=...) is not allowed"),
    # recursion and loop bombs
    ("def f(n):\n    return f(n + 1)\nf(0)", "calls nested deeper than 40"),
    ("def a(n):\n    return b(n)\ndef b(n):\n    return a(n)\na(0)", "calls nested deeper than 40"),
    ("y = (lambda f: f(f))(lambda f: f(f))", "calls nested deeper than 40"),
    ("while True:\n    pass", "iteration budget exceeded"),
    ("for i in range(10**9):\n    pass", "iterating over 1000000000 items exceeds the iteration budget"),
    ("n = [i for i in range(10**8)]", "iterating over 100000000 items exceeds the iteration budget"),
    ("n = list(range(10**9))", "iterating over 1000000000 items exceeds the iteration budget"),
    ("def f(g):\n    f(g)\nx.register_hook(f)\nx.sum().backward()", "calls nested deeper than 40"),
    # size bombs
    ("v = torch.zeros(10**5)\nw = v[:, None] * v[None, :]", "'*' would allocate 10000000000 elements"),
    ("s = 'ab'\nfor i in range(40):\n    s = s + s", "'+' would make"),
    ("''.join(['x' * 100000] * 1000)", "join would make a string of 100000000 characters"),
    ("('a' * 1000).replace('a', 'b' * 1000)", "replace would make a string of 1000000 characters"),
    ("a = [0] * 1000\nfor i in range(200):\n    a.extend(a)", "list would have"),
    ("for i in range(100000):\n    print('x' * 100000)", "print() output exceeds 10000000 characters"),
    ("nn.Linear(10**6, 10**6)", "Linear() would allocate 1000000000000 elements"),
    ("nn.Conv2d(10**4, 10**4, 100)", "Conv2d() would allocate"),
    ("nn.LSTM(10**5, 10**5)", "LSTM() would allocate"),
]


@pytest.fixture
def canary(tmp_path, monkeypatch):
    path = tmp_path / "canary"
    monkeypatch.chdir(tmp_path)
    yield path
    assert not path.exists(), "a hostile program created the canary file"


def test_corpus_is_large():
    assert len(HOSTILE) >= 60


@pytest.mark.parametrize("source,words", HOSTILE, ids=[s[:60] for s, _ in HOSTILE])
def test_hostile_program_is_refused(canary, source, words):
    source = source.replace(CANARY, str(canary))
    r = runner.invoke(app, ["eval", "--let", "x=[1.0, 2.0]", "--requires-grad", "x", "--", source])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("tensorcli: error: EXPR: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.output
    assert words in r.stderr, r.stderr


def test_hostile_program_file_is_refused_before_running(canary, tmp_path, monkeypatch):
    runs = []
    original = program_mod.Interpreter.run
    monkeypatch.setattr(program_mod.Interpreter, "run", lambda self: (runs.append(1), original(self))[1])
    prog = tmp_path / "p.py"
    prog.write_text(f"print('ran')\ndef f():\n    open('{canary}', 'w')\nf()\n", encoding="utf-8")
    r = runner.invoke(app, ["eval", "-f", str(prog)])
    assert r.exit_code == 2 and r.stdout == "" and runs == []
    assert r.stderr == f"tensorcli: error: {prog}: line 3, col 5: unknown name 'open'\n"


def test_a_program_cannot_catch_a_refusal(canary):
    source = "try:\n    for i in range(10**9):\n        pass\nexcept Exception:\n    print('escaped')\n"
    r = runner.invoke(app, ["eval", source])
    assert r.exit_code == 2 and "iteration budget" in r.stderr and "escaped" not in r.stdout
