"""The program language's constructs, each in a small program run by PyTorch and by
`tensorcli eval -f` (both seeded): the CLI prints exactly what torch prints, and where torch raises,
the CLI exits 2 with `line N: <Error>: <torch's message>`."""
from __future__ import annotations

import contextlib
import io
import runpy
import textwrap
import traceback
import warnings

import pytest
from typer.testing import CliRunner

import core
from tensorcli.app import app
from tensorcli.errors import one_line
from tensorcli.services import expr

runner = CliRunner()

PROGRAMS = {
    "grad_modes": """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True).clone()
        with torch.no_grad():
            y = x * 2
            with torch.enable_grad():
                z = x * 3
        with torch.set_grad_enabled(False):
            w = x + 1
        torch.set_grad_enabled(True)
        print(y.requires_grad, z.requires_grad, w.requires_grad, torch.is_grad_enabled())
        with torch.inference_mode():
            t = torch.ones(2) * x
        print(t.is_inference(), t.requires_grad)
        v = x[:1]
        v.mul_(2)
        print(v.grad_fn.name(), v._version, x._version, v._base is x)
        """,
    "inference_tensor_in_place": """
        import torch
        with torch.inference_mode():
            a = torch.ones(3)
        b = a * 2
        print(b.is_inference())
        a.add_(1)
        """,
    "decorators_and_closures": """
        import torch
        @torch.no_grad()
        def double(t):
            return t * 2
        @torch.enable_grad()
        def triple(t):
            return t * 3
        def make_scale(k):
            def scale(t):
                return t * k
            return scale
        x = torch.ones(2, requires_grad=True)
        print(double(x).requires_grad, make_scale(5)(x))
        with torch.no_grad():
            print(triple(x).requires_grad)
        """,
    "hooks_and_lambdas": """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.register_hook(lambda g: print("y grad", g))
        h = y.register_hook(lambda g: g * 10)
        s = y.sum()
        s.backward(retain_graph=True)
        print(x.grad)
        h.remove()
        x.grad = None
        s.backward()
        print(x.grad, y.grad_fn.name(), [type(f).__name__ for f, _ in y.grad_fn.next_functions])
        """,
    "training_loop": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(8, 3)
        target = torch.randn(8, 1)
        for step in range(5):
            opt.zero_grad()
            loss = F.mse_loss(model(x), target)
            loss.backward()
            opt.step()
            if step % 2 == 0:
                print(step, round(loss.item(), 6))
        model.eval()
        print(model.training, [n for n, _ in model.named_parameters()])
        print(sum(p.numel() for p in model.parameters()))
        """,
    "manual_sgd_in_no_grad": """
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        lr = 0.5
        for i in range(3):
            loss = ((w - 3) ** 2).sum()
            loss.backward()
            with torch.no_grad():
                w -= lr * w.grad
            w.grad.zero_()
        print(w, w.grad, w.is_leaf)
        w.requires_grad_(False)
        w[0] = 1
        print(w)
        """,
    "leaf_in_place_error": """
        import torch
        w = torch.ones(2, requires_grad=True)
        print("before")
        w += 1
        """,
    "custom_function": """
        import torch
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x ** 2 * k
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                print("needs", ctx.needs_input_grad)
                return 2 * x * g * ctx.k, None
        x = torch.tensor([1.0, 3.0], requires_grad=True)
        y = Square.apply(x, 2.0)
        y.sum().backward()
        print(y, x.grad)
        """,
    "module_class": """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self, hidden=4):
                super().__init__()
                self.fc = nn.Linear(2, hidden)
                self.out = nn.Linear(hidden, 1)
                self.register_buffer("steps", torch.zeros(1))
            def features(self, x):
                return torch.tanh(self.fc(x))
            def forward(self, x):
                self.steps += 1
                return self.out(self.features(x))
        torch.manual_seed(0)
        net = Net()
        print(net)
        y = net(torch.ones(3, 2))
        print(y.shape, y.grad_fn.name(), net.steps)
        for name, child in net.named_children():
            print(name, type(child).__name__)
        print(isinstance(net, nn.Module), type(net).__name__)
        """,
    "python_data": """
        import torch
        xs = [torch.tensor(float(i)) for i in range(4) if i != 2]
        d = {"a": 1, "b": [1, 2]}
        d["c"] = len(xs)
        total = 0
        i = 0
        while i < 10:
            i += 1
            if i == 3:
                continue
            if i > 6:
                break
            total += i
        else:
            total = -1
        print(xs, d, total, sorted([3, 1, 2], reverse=True), list(zip("ab", [1, 2])))
        print(f"{total:>6}|{3.14159:.2f}|{'x'!r}", "{} and {name}".format(1, name="n"))
        print(max(xs), min([4, 2]), any([0, 1]), all([]), abs(-2), divmod(7, 2), list(range(3))[::-1])
        try:
            torch.ones(2) @ torch.ones(3)
        except RuntimeError as e:
            print("caught:", e)
        finally:
            print("finally")
        a, (b, c) = 1, (2, 3)
        del d["a"]
        print(a + b + c, d, torch.Size([2, 3]), torch.float32, x if (x := None) else "no walrus")
        """,
    "assert_fails": """
        import torch
        x = torch.ones(2)
        assert x.sum() == 2, "sum is two"
        assert x.sum() == 3, "sum is {}".format(x.sum().item())
        """,
    "scopes_and_main": """
        import torch
        calls = 0
        seen = []
        def counter(g):
            global calls
            calls += 1
            seen.append(g.sum().item())
        def make():
            n = 0
            def inc():
                nonlocal n
                n += 1
                return n
            return inc
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(counter)
        y.sum().backward()
        inc = make()
        inc()
        def main(*args, scale=1, **kw):
            print(calls, seen, inc(), args, scale, kw)
        if __name__ == "__main__":
            main(1, 2, scale=3, extra=4)
        """,
    "more_idioms": """
        import torch
        import torch.nn as nn
        import torch.optim as optim
        from torch.nn import functional as F
        from torch.autograd import grad
        @torch.no_grad
        def f(t):
            return t * 2
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        print(f(x).requires_grad)
        with torch.autograd.set_grad_enabled(False), torch.autograd.no_grad():
            print((x * 1).requires_grad)
        y = (x ** 3).sum()
        g, = grad(y, x, create_graph=True)
        print(g, g.grad_fn.name())
        z = x * 2
        z.retain_grad()
        z.sum().backward()
        print(z.grad, x.grad)
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2))
        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.1)
                nn.init.zeros_(m.bias)
        model.apply(init)
        opt = optim.Adam(model.parameters(), lr=1e-2)
        crit = nn.CrossEntropyLoss()
        inp = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
        lab = torch.tensor([0, 1])
        for epoch in range(3):
            opt.zero_grad()
            loss = crit(model(inp), lab)
            loss.backward()
            opt.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}")
        sd = model.state_dict()
        print(list(sd.keys()), sd['0.bias'], model.load_state_dict(sd))
        print(F.softmax(torch.tensor([1.0, 2.0]), dim=0), opt.param_groups[0]['lr'], type(opt).__name__)
        """,
    "saved_tensors_hooks": """
        import torch
        packed = []
        def pack(t):
            packed.append(tuple(t.shape))
            return t
        def unpack(t):
            print("unpack", tuple(t.shape))
            return t
        x = torch.ones(2, 3, requires_grad=True)
        w = torch.full((3,), 2.0, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (w ** 2).sum()
            z = torch.exp(x).sum() + torch.sin(w).sum()
            q = (x * 2.0).sum()
        print(packed)
        y.backward()
        z.backward()
        print(x.grad, w.grad)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            u = (w ** 2).sum()
        u.backward()
        print(w.grad)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with torch.inference_mode():
                i = torch.ones(2)
            try:
                v = (w[:2] * i).sum()
            except RuntimeError as e:
                print("error:", e)
        with torch.autograd.graph.save_on_cpu():
            s = torch.sigmoid(w).sum()
        s.backward()
        print(w.grad)
        """,
    "numpy_interop": """
        import numpy as np
        import torch
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        t = torch.from_numpy(a)
        print(t, t.dtype, a.shape, t.numpy().sum(), np.array([1, 2]) * 2)
        """,
}
# "python_data" uses := which the language refuses: swapped below for a plain assignment
PROGRAMS["python_data"] = PROGRAMS["python_data"].replace('x if (x := None) else "no walrus"', '"done"')


def _torch(torch, path):
    torch.manual_seed(0)
    buf = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            runpy.run_path(str(path), run_name="__main__")
        except Exception as e:  # noqa: BLE001
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
            error = (type(e).__name__, str(e).splitlines()[0] if str(e) else "", frames[-1].lineno)
    return buf.getvalue(), error


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_torch_prints(torch, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(PROGRAMS[name]).lstrip(), encoding="utf-8")
    expected, error = _torch(torch, path)
    core.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = runner.invoke(app, ["eval", "-f", str(path)])
    assert r.stdout == expected
    if error is None:
        assert r.exit_code == 0, r.stderr
    else:
        kind, message, line = error
        assert r.exit_code == 2
        assert r.stderr == "tensorcli: error: " + one_line(f"{path}: line {line}: {kind}: {message}") + "\n"


def test_program_from_stdin_and_argument():
    source = "import torch\nx = torch.arange(3)\nfor v in x:\n    print(int(v) * 2)\n"
    r = runner.invoke(app, ["eval", "-f", "-"], input=source)
    assert (r.exit_code, r.stdout) == (0, "0\n2\n4\n")
    r = runner.invoke(app, ["eval", source])      # an EXPR of several lines: its output, no value line
    assert (r.exit_code, r.stdout) == (0, "0\n2\n4\n")
    r = runner.invoke(app, ["eval", "-f", "-", "x"], input=source)
    assert r.exit_code == 2 and "not both" in r.stderr


def test_json_keeps_the_program_output_apart():
    import json
    r = runner.invoke(app, ["eval", "--json", "print('hi')\ny = torch.ones(2) * 3"])
    obj = json.loads(r.stdout)
    assert obj["output"] == "hi\n" and obj["result"]["data"] == [3.0, 3.0]


def test_run_program_records_statements():
    res = expr.run_program("import torch\nx = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n"
                           "    y = x * 2\nz = x * 2\nprint(z.requires_grad)\n", {}, out=lambda s: None)
    lines = [(r.line, r.text, sorted(r.bindings), r.grad_enabled) for r in res.records]
    assert lines == [(1, "import torch", [], True),
                     (2, "x = torch.ones(2, requires_grad=True)", ["x"], True),
                     (4, "y = x * 2", ["y"], False),
                     (5, "z = x * 2", ["z"], True),
                     (6, "print(z.requires_grad)", [], True)]
    assert res.records[2].bindings["y"].requires_grad is False
    assert list(res.namespace) == ["x", "y", "z"] and res.output_chars == 5


def test_run_program_records_the_failing_statement():
    with pytest.raises(RuntimeError) as info:
        expr.run_program("x = torch.ones(2)\ny = x @ torch.ones(3)\n", {}, out=lambda s: None)
    assert expr.error_line(info.value) == 2 and expr.error_prefix(info.value) == "line 2: "


HOOK_PROGRAM = """import torch
x = torch.Tensor([0, 1, 2, 3]).requires_grad_()
y = torch.Tensor([4, 5, 6, 7]).requires_grad_()
w = torch.Tensor([1, 2, 3, 4]).requires_grad_()
z = x+y
def hook_fn(grad):
    print(grad)
z.register_hook(hook_fn)
o = w.matmul(z)
"""


def test_grad_graph_modes_and_memory_take_a_program_file(tmp_path):
    import json
    prog = tmp_path / "hook.py"
    prog.write_text(HOOK_PROGRAM, encoding="utf-8")
    r = runner.invoke(app, ["grad", "-f", str(prog), "--json"])
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)              # the hook's print went to stderr, stdout is the JSON
    assert r.stderr == "tensor([1., 2., 3., 4.])\n"
    grads = {t["name"]: t["grad"] for t in report["tensors"]}
    assert grads["x"] == [1.0, 2.0, 3.0, 4.0] and grads["w"] == [4.0, 6.0, 8.0, 10.0] and grads["z"] is None
    r = runner.invoke(app, ["graph", "-f", str(prog), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["graph"]["name"] == "DotBackward0"
    r = runner.invoke(app, ["modes", "-f", str(prog), "--json"])
    rows = {row["mode"]: row for row in json.loads(r.stdout)["modes"]}
    assert rows["grad"]["grad_fn"] == "DotBackward0" and set(rows) >= {"no_grad", "inference_mode"}
    r = runner.invoke(app, ["memory", "-f", str(prog), "--json"])    # hooks cannot be registered under no_grad
    assert r.exit_code == 2 and r.stderr.startswith(f"tensorcli: error: {prog}: line 8: RuntimeError: cannot register")
    prog.write_text("import torch.nn as nn\nmodel = nn.Linear(4, 2)\nout = model(x)\n", encoding="utf-8")
    r = runner.invoke(app, ["memory", "-f", str(prog), "--let", "x=[[1.0, 2.0, 3.0, 4.0]]", "--json"])
    assert r.exit_code == 0, r.stderr
    assert set(json.loads(r.stdout)["modes"]) >= {"grad", "no_grad"}


def test_errors_of_a_program_file_name_the_file(tmp_path):
    prog = tmp_path / "bad.py"
    prog.write_text("import torch\nx = torch.ones(2)\nprint('before')\ny = x.view(3)\n", encoding="utf-8")
    for command in ("eval", "grad", "graph", "modes"):
        r = runner.invoke(app, [command, "-f", str(prog)])
        assert r.exit_code == 2 and r.stderr.startswith(f"tensorcli: error: {prog}: line 4: RuntimeError: shape '[3]'"), \
            (command, r.stderr)
    r = runner.invoke(app, ["eval", "-f", str(tmp_path / "missing.py")])
    assert r.exit_code == 2 and "cannot read" in r.stderr
