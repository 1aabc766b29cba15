"""Every command's --json output against docs/json.md's schemas (a small validator, no dependency):
the documentation is the contract, so a key added, renamed or retyped fails here."""
from __future__ import annotations

from paths import ROOT

import json
import os
import re

import pytest
from typer.testing import CliRunner

DOC = os.path.join(ROOT, "docs", "json.md")
SCALARS = {"string": str, "boolean": bool, "null": type(None), "any": object}


def _schemas():
    text = open(DOC, encoding="utf-8").read()
    blocks = re.findall(r"```json schema=(\S+)\n(.*?)```", text, re.S)
    return {name: json.loads(body) for name, body in blocks}


SCHEMAS = _schemas()
DEFS = SCHEMAS.pop("definitions")


def _type_ok(name, v) -> bool:
    if name == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if name == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if name in SCALARS:
        return name == "any" or isinstance(v, SCALARS[name])
    return None


def validate(spec, value, path="$"):
    """Raise AssertionError(path: why) when value does not match spec (docs/json.md's notation)."""
    if isinstance(spec, str):
        errors = []
        for alt in spec.split("|"):
            if alt.startswith("[") and alt.endswith("]"):
                alt_spec = [alt[1:-1]]
            elif alt in DEFS:
                alt_spec = DEFS[alt]
            else:
                ok = _type_ok(alt, value)
                assert ok is not None, f"{path}: unknown type {alt!r} in docs/json.md"
                if ok:
                    return
                errors.append(f"not {alt}")
                continue
            try:
                validate(alt_spec, value, path)
                return
            except AssertionError as e:
                errors.append(str(e))
        raise AssertionError(f"{path}: {type(value).__name__} {str(value)[:60]!r} matches none of {spec!r} "
                             f"({'; '.join(errors)})")
    if isinstance(spec, list):
        assert isinstance(value, list), f"{path}: expected a list, got {type(value).__name__}"
        for i, v in enumerate(value):
            validate(spec[0], v, f"{path}[{i}]")
        return
    assert isinstance(value, dict), f"{path}: expected an object, got {type(value).__name__}"
    keys = {k.rstrip("?"): (s, k.endswith("?")) for k, s in spec.items() if k != "*"}
    for k, (s, optional) in keys.items():
        if k not in value:
            assert optional, f"{path}: missing key {k!r}"
            continue
        validate(s, value[k], f"{path}.{k}")
    extra = set(value) - set(keys)
    if "*" in spec:
        for k in extra:
            validate(spec["*"], value[k], f"{path}.{k}")
    else:
        assert not extra, f"{path}: undocumented keys {sorted(extra)} (add them to docs/json.md)"


@pytest.fixture(scope="module")
def app():
    from tensorcli.app import build_app
    return build_app()


def run_json(app, *args):
    r = CliRunner().invoke(app, [*map(str, args), "--json"], env={"NO_COLOR": "1"})
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def _check_file(tmp_path):
    p = tmp_path / "cases.toml"
    p.write_text('[[case]]\nname = "ok"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\nexpect = [[2]]\n'
                 '[[case]]\nname = "fails"\nop = "gather"\ninput = [[1, 2]]\ndim = 1\nindex = [[1]]\n'
                 'expect = [[1]]\n')
    return p


LET = ("--let", "x=[1.0, 2.0]", "--let", "w=[0.5, 3.0]", "--requires-grad", "x,w")
COMMANDS = {
    "op": ("gather", "[[1,2],[3,4]]", "--dim", "1", "--index", "[[0],[1]]"),
    "op-explain": ("gather", "[[1,2],[3,4]]", "--dim", "1", "--index", "[[0],[1]]", "--explain"),
    "op-tuple": ("max", "[[3.0, 1.0], [2.0, 5.0]]", "--dim", "1"),
    "show": ("show", "[[1.0, NaN], [3.0, 4.0]]"),
    "ops": ("ops",),
    "grad": ("grad", "y = (x * w).sum()", *LET, "--hook", "y"),
    "grad-in-expression": ("grad", "y = (x * w).sum(); y.backward()", *LET),
    "grad-twice": ("grad", "y = (x * w).sum()", *LET, "--backward-twice"),
    "grad-steps": ("grad", "y = (x * w).sum()", *LET, "--steps", "--backward-twice"),
    "grad-steps-in-expression": ("grad", "z = x * w; y = z.sum(); y.backward(); y.backward()", *LET, "--steps"),
    "graph": ("graph", "y = (x * w).sum()", *LET),
    "modes": ("modes", "y = (x * w).sum()", *LET),
    "modes-timeline": ("modes", "with torch.no_grad():\n    y = x * w\nz = y * x\nx.add_(1)", *LET),
    "eval": ("eval", "torch.softmax(x, dim=0)", "--let", "x=[1.0, 2.0]"),
    "eval-tuple": ("eval", "x.max(dim=0)", "--let", "x=[[1.0, 2.0], [3.0, 0.0]]"),
    "eval-number": ("eval", "(x * w).sum().item()", *LET[:4]),
    "eval-size": ("eval", "x.shape", "--let", "x=[[1, 2, 3]]"),
    "memory": ("memory", "--model", "Linear(4,3) -> ReLU()", "--input-shape", "2,4", "--modes", "grad,no_grad,detach"),
}


@pytest.mark.parametrize("key", list(COMMANDS))
def test_every_command_matches_its_documented_schema(app, key):
    obj = run_json(app, *COMMANDS[key])
    name = obj["schema"]
    assert name in SCHEMAS, f"{name} is not documented in docs/json.md"
    assert re.fullmatch(r"tensorcli\.[a-z]+(-[a-z]+)?/2", name)
    assert obj["command"] == COMMANDS[key][0] and list(obj)[:2] == ["schema", "command"]
    validate(SCHEMAS[name], obj)


def test_check_run_and_malformed_files_match_the_schema(app, tmp_path):
    validate(SCHEMAS["tensorcli.check/2"], run_json(app, "check", _check_file(tmp_path)))
    bad = tmp_path / "bad.toml"
    bad.write_text('[[case]]\nname = "x"\nop = "gather"\nexpect = 1\nbogus_field = 2\n')
    r = CliRunner().invoke(app, ["check", str(bad), "--json"], env={"NO_COLOR": "1"})
    assert r.exit_code == 2
    obj = json.loads(r.stdout)
    assert obj["schema"] == "tensorcli.check/2"
    validate(SCHEMAS["tensorcli.check/2"], obj)


def test_dtype_is_spelled_one_way_everywhere(app, torch):
    """"float32" as torch's dtype name without the module, in op, show, grad and graph outputs."""
    texts = [json.dumps(run_json(app, *COMMANDS[k])) for k in ("op-tuple", "show", "grad", "graph")]
    for t in texts:
        assert "torch." not in "".join(re.findall(r'"dtype": "[^"]*"', t))
    assert str(torch.float32).removeprefix("torch.") in texts[1]


def test_mode_names_are_the_python_apis(app, torch):
    modes = [m["mode"] for m in run_json(app, *COMMANDS["modes"])["modes"]]
    for m in modes:
        assert hasattr(torch, m) or hasattr(torch.autograd.grad_mode, m) or m == "grad", m
    assert {"grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode"} == set(modes)


def test_large_data_is_summarised_unless_full_data(app, torch, tmp_path):
    import numpy as np
    x = np.arange(20_001, dtype=np.float32)
    p = tmp_path / "x.npy"
    np.save(p, x)
    obj = run_json(app, "show", p)
    res = obj["result"]
    assert res["data"] is None and res["truncated"] is True and res["numel"] == x.size
    t = torch.from_numpy(x)
    assert res["summary"]["max"] == t.max().item() and res["summary"]["min"] == t.min().item()
    full = run_json(app, "show", p, "--full-data")["result"]
    assert full["truncated"] is False and full["data"] == t.tolist()
    validate(SCHEMAS["tensorcli.show/2"], obj)


def test_grad_summarises_large_gradients_and_says_so(app, torch):
    obj = CliRunner().invoke(app, ["grad", "y = (x * 2).sum()", "--let", "x=[1.0, 2.0, 3.0]", "--requires-grad",
                                   "x", "--json"], env={"NO_COLOR": "1", "TENSORCLI_JSON_MAX_ELEMENTS": "2"})
    d = json.loads(obj.stdout)
    x = next(t for t in d["tensors"] if t["name"] == "x")
    ref = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (ref * 2).sum().backward()
    assert x["grad"] is None and x["truncated"] is True and x["summary"]["max"] == ref.grad.max().item()
    validate(SCHEMAS["tensorcli.grad/2"], d)


def test_the_validator_rejects_what_the_docs_do_not_say():
    with pytest.raises(AssertionError, match="undocumented"):
        validate({"a": "integer"}, {"a": 1, "b": 2})
    with pytest.raises(AssertionError, match="missing"):
        validate({"a": "integer"}, {})
    with pytest.raises(AssertionError, match="matches none"):
        validate({"a": "integer|null"}, {"a": "x"})
    validate(DEFS["tensor"], {"shape": [1], "dtype": "float32", "numel": 1, "data": [1.0], "truncated": False,
                              "summary": None})
