"""`tensorcli eval EXPR --let NAME=TENSOR`: the value of an expression, compared with PyTorch evaluating
the SAME text (tensorcli.services.expr with a torch backend): values, dtypes, shapes, the printed
repr, tuple and number results, -o round trips, --json, and the one-line errors (exit 2)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tensorcli.app import build_app
from tensorcli.services import expr as expr_mod

runner = CliRunner()
X = "[[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]"
W = "[[0.5, 1.0], [2.0, -1.0], [1.0, 0.0]]"
I = "[[0, 2], [1, 0]]"
LETS = {"x": X, "w": W, "i": I}

TENSOR_EXPRS = [
    "x @ w",
    "torch.softmax(x, dim=1)",
    "x.sum(dim=0)",
    "x.mean()",
    "torch.where(x > 0, x, 0.0)",
    "x.gather(1, i)",
    "y = x * 0.5; z = y.exp(); z.log_softmax(dim=0)",
    "x.int() // 2",
    "(x > 0).sum(dim=1)",
    "torch.einsum('ij,jk->ik', x, w)",
    "torch.relu(x) + torch.ones(3)",
    "x.T.reshape(3, 2).cumsum(0)",
    "torch.arange(6).float().view(2, 3) / 4",
    "torch.clamp(x, min=-1.0, max=2.0) ** 2",
]


@pytest.fixture(scope="module")
def app():
    return build_app()


def run(app, *args):
    return runner.invoke(app, ["eval", *args], env={"NO_COLOR": "1"})


def torch_eval(torch, source):
    """PyTorch running the same text through the same interpreter."""
    names = {"x": torch.tensor(json.loads(X)), "w": torch.tensor(json.loads(W)), "i": torch.tensor(json.loads(I))}
    backend = expr_mod.Backend.from_module(torch)
    result, _ = expr_mod.evaluate(source, names, backend=backend)
    return result


def all_lets():
    return [a for n, t in LETS.items() for a in ("--let", f"{n}={t}")]


def json_of(app, source, *extra):
    r = run(app, source, *all_lets(), *extra, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("source", TENSOR_EXPRS)
def test_tensor_values_dtype_shape_and_print_equal_torch(app, torch, source):
    ref = torch_eval(torch, source)
    obj = json_of(app, source)
    assert obj["kind"] == "tensor" and obj["type"] == "torch.Tensor"
    res = obj["result"]
    assert res["shape"] == list(ref.shape)
    assert res["dtype"] == str(ref.dtype).removeprefix("torch.")
    np.testing.assert_allclose(np.asarray(res["data"], dtype=np.float64), ref.double().numpy(), rtol=1.3e-6, atol=1e-5)  # torch.testing's float32
    text = run(app, source, *all_lets()).stdout
    header, body = text.split("\n", 1)
    assert header == f"{source} -> {str(ref.dtype).removeprefix('torch.')} {list(ref.shape)}"
    assert body.rstrip("\n") == repr(ref)


@pytest.mark.parametrize("source", ["x.max(dim=1)", "x.split(1)", "torch.sort(x, dim=1, descending=True)",
                                    "[x.sum(), w.t()]"])
def test_tuple_results_print_each_tensor_as_torch(app, torch, source):
    ref = torch_eval(torch, source)
    fields = type(ref).__module__ == "torch.return_types"   # a structseq: (values, indices) here
    if fields:
        assert ref.values is ref[0] and ref.indices is ref[1]
    names = ["values", "indices"] if fields else [f"out[{k}]" for k in range(len(ref))]
    obj = json_of(app, source)
    assert obj["kind"] == "tensors" and [r["name"] for r in obj["result"]] == names
    cls = type(ref)
    expected_type = (f"torch.return_types.{cls.__name__}" if fields else cls.__name__)
    assert obj["type"] == expected_type
    for r, t in zip(obj["result"], ref):
        assert r["shape"] == list(t.shape) and r["dtype"] == str(t.dtype).removeprefix("torch.")
        np.testing.assert_allclose(np.asarray(r["data"], dtype=np.float64), t.double().numpy(), rtol=1e-6)
    lines = run(app, source, *all_lets()).stdout
    expected = [f"{source} -> {len(ref)} tensors"]
    for n, t in zip(names, ref):
        expected += [f"{n}: {str(t.dtype).removeprefix('torch.')} {list(t.shape)}", repr(t)]
    assert lines.rstrip("\n") == "\n".join(expected)


@pytest.mark.parametrize("source,kind", [("x.sum().item()", "number"), ("x.numel()", "number"),
                                         ("(x > 0).any().item()", "number"), ("x.shape", "size"),
                                         ("x.size(1)", "number"), ("x.dtype", "value"),
                                         ("(x @ w).tolist()", "value"), ("x.dim() * 1.5", "number")])
def test_python_values_print_as_python_prints_them(app, torch, source, kind):
    ref = torch_eval(torch, source)
    obj = json_of(app, source)
    assert obj["kind"] == kind and obj["result"]["text"] == repr(ref)
    assert obj["type"] == ("torch.Size" if kind == "size" else "torch.dtype" if kind == "value" and
                           isinstance(ref, torch.dtype) else type(ref).__name__)
    if kind == "size":
        assert obj["result"]["value"] == list(ref)
    elif kind == "number":
        assert obj["result"]["value"] == ref and type(obj["result"]["value"]) is type(ref)
    text = run(app, source, *all_lets()).stdout
    assert text.split("\n")[1] == repr(ref)


@pytest.mark.parametrize("ext", ["npy", "json", "npz"])
def test_out_round_trip(app, torch, tmp_path, ext):
    source = "torch.softmax(x, dim=1) * 3"
    path = tmp_path / f"r.{ext}"
    r = run(app, source, *all_lets(), "-o", str(path))
    assert r.exit_code == 0 and r.stdout == ""
    back = run(app, "y", "--let", f"y={path}", "--json")
    assert back.exit_code == 0, back.output
    res = json.loads(back.stdout)["result"]
    ref = torch_eval(torch, source)
    assert res["shape"] == list(ref.shape) and res["dtype"] == "float32"
    np.testing.assert_allclose(np.asarray(res["data"], dtype=np.float32), ref.numpy(), rtol=1.3e-6, atol=1e-5)


def test_out_stdout_and_tuple_npz(app, torch, tmp_path):
    import io as pyio
    r = runner.invoke(app, ["eval", "x * 2", *all_lets(), "-o", "-"])
    assert r.exit_code == 0
    ref = torch_eval(torch, "x * 2")
    np.testing.assert_array_equal(np.load(pyio.BytesIO(r.stdout_bytes)), ref.numpy())
    path = tmp_path / "t.npz"
    assert run(app, "x.max(dim=1)", *all_lets(), "-o", str(path)).exit_code == 0
    ref = torch_eval(torch, "x.max(dim=1)")
    with np.load(path) as z:
        np.testing.assert_array_equal(z["values"], ref.values.numpy())
        np.testing.assert_array_equal(z["indices"], ref.indices.numpy())


def test_json_large_result_is_summarised_unless_full_data(app, torch):
    r = runner.invoke(app, ["eval", "torch.arange(30)", "--json"], env={"TENSORCLI_JSON_MAX_ELEMENTS": "10"})
    res = json.loads(r.stdout)["result"]
    assert res["data"] is None and res["truncated"] and res["summary"]["max"] == torch.arange(30).max().item()
    r = runner.invoke(app, ["eval", "torch.arange(30)", "--json", "--full-data"],
                      env={"TENSORCLI_JSON_MAX_ELEMENTS": "10"})
    assert json.loads(r.stdout)["result"]["data"] == torch.arange(30).tolist()


def test_requires_grad_and_dtype_as_torch(app, torch):
    r = run(app, "x * 2", "--let", "x=[1.0, 2.0]", "--requires-grad", "x")
    ref = torch.tensor([1.0, 2.0], requires_grad=True) * 2
    assert r.stdout.split("\n", 1)[1].rstrip("\n") == repr(ref)
    r = run(app, "x / 2", "--let", "x=[1, 2]", "--dtype", "float64", "--json")
    ref = torch.tensor([1, 2], dtype=torch.float64) / 2
    res = json.loads(r.stdout)["result"]
    assert res["dtype"] == "float64" and res["data"] == ref.tolist()


@pytest.mark.parametrize("args,arg", [
    (("x.sum(",), "EXPR"),                                   # syntax error
    (("y * 2", "--let", "x=[1.0]"), "EXPR"),                 # unknown name
    (("x.__class__", "--let", "x=[1.0]"), "EXPR"),           # forbidden dunder
    (("().__class__.__subclasses__()",), "EXPR"),
    (("torch.zeros(100000, 100000)", "--max-bytes", "1GiB"), "EXPR"),   # refused before allocating
    (("x.reshape(5)", "--let", "x=[1.0, 2.0]"), "EXPR"),     # torch's RuntimeError
    (("x", "--let", "x=[1,"), "--let x"),                    # bad tensor literal
    (("x", "--let", "x=missing.npy"), "--let x"),
    (("x", "--let", "1x=[1]"), "--let"),
    (("x.shape", "--let", "x=[1]", "-o", "s.npy"), "--out"),  # not a tensor: nothing to write
    (("x", "--let", "x=[1]", "--json", "-o", "-"), "--json"),
])
def test_errors_exit_2_with_one_line_naming_the_argument(app, args, arg):
    r = runner.invoke(app, ["eval", *args], env={"NO_COLOR": "1"})
    assert r.exit_code == 2, r.output
    lines = r.stderr.rstrip("\n").splitlines()
    assert lines[0].startswith(f"tensorcli: error: {arg}"), r.stderr
    if "reshape" in args[0]:     # a shape error: its drawing follows, indented (tests/tensorcli/services/test_shape_errors.py)
        assert lines[-1].startswith("  rule: view / reshape") and all(x.startswith("  ") for x in lines[1:])
    else:
        assert len(lines) == 1, r.stderr
    if "--json" in args:   # with --json the error is also a JSON object on stdout (docs/json.md)
        assert json.loads(r.stdout)["schema"] == "tensorcli.error/2"
    else:
        assert r.stdout == ""


def test_runtime_error_message_is_torchs(app, torch):
    with pytest.raises(RuntimeError) as e:
        torch.tensor([1.0, 2.0]).reshape(5)
    r = run(app, "x.reshape(5)", "--let", "x=[1.0, 2.0]")
    assert str(e.value).splitlines()[0] in r.stderr


def test_help_examples_run(app, tmp_path, monkeypatch):
    """Every example of `tensorcli eval --help` runs (exit 0) as written."""
    import shlex
    from tensorcli.commands.eval import EXAMPLES
    monkeypatch.chdir(tmp_path)
    for example in EXAMPLES:
        argv = shlex.split(example)[1:]
        r = runner.invoke(app, argv, env={"NO_COLOR": "1"})
        assert r.exit_code == 0, (example, r.output)
    help_text = runner.invoke(app, ["eval", "--help"], env={"NO_COLOR": "1"}).stdout
    assert "Examples" in help_text and "tensorcli eval" in help_text


def test_eval_starts_without_building_op_commands():
    """The fast path: `tensorcli eval` builds no op command (and the module imports no heavy package)."""
    import subprocess
    import sys
    code = ("import sys; import tensorcli.commands.eval; "
            "bad = [m for m in ('core', 'numpy', 'rich', 'torch') if m in sys.modules]; "
            "assert not bad, bad; "
            "from tensorcli import app; a = app.build_app({'eval'}); "
            "names = [c.name or c.callback.__name__ for c in a.registered_commands]; "
            "assert 'eval' in names and 'gather' not in names, names")
    subprocess.run([sys.executable, "-c", code], check=True)
