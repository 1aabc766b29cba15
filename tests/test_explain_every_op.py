"""--explain / --backward on EVERY op command, run with its registration's cli_example:

* the input elements each output element lists are exactly those its value depends on, with the
  right weights: checked by perturbing each input element of core's op in float64 (central
  differences; at a kink, the weight must be a one-sided derivative or between them, as torch's
  subgradients are), and each row's value is the op's result there;
* --backward's values are torch's gradients (ones and a random grad_output), its `from` weights are
  the rows of torch's Jacobian, and the grad_fn it names is the one torch records.
"""
from __future__ import annotations

import json
import shlex
from types import SimpleNamespace

import numpy as np
import pytest
from typer.testing import CliRunner

import core
from core.ops.registry import OPS
from tensorcli import app as cli_app
from tensorcli.services import dependencies as deps, explain_any
from tensorcli.services.run_op import Call
from tensorcli.spec import examples

COMMANDS = [name for name, info in OPS.items() if info.cli and examples(info)]
# no gradient with respect to their data operands, and no rows from the value: one-line refusal
NO_ROWS = {"nonzero", "argwhere", "one_hot", "unravel_index"}
FROM_VALUE = {"argmax", "argmin"}


@pytest.fixture(scope="module")
def app():
    return cli_app.build_app(modules=("ops",))


def example_argv(name):
    argv = shlex.split(examples(OPS[name])[0])[1:]
    return [a for a in argv if a != "--explain"]


def invoke(app, argv, monkeypatch=None):
    """(exit code, JSON or stderr, the Call the command ran) for one CLI run."""
    seen = {}
    if monkeypatch is not None:
        orig, orig_bw = explain_any.explain, explain_any.backward

        def spy(call, result, **kw):
            seen["call"], seen["result"] = call, result
            return orig(call, result, **kw)

        def spy_bw(call, *a, **kw):
            seen["call"] = call
            return orig_bw(call, *a, **kw)
        monkeypatch.setattr(explain_any, "explain", spy)
        monkeypatch.setattr(explain_any, "backward", spy_bw)
    r = CliRunner().invoke(app, argv, env={"NO_COLOR": "1"})
    if r.exit_code:
        return r.exit_code, r.stderr, seen
    return 0, json.loads(r.stdout), seen


# -- the perturbation oracle ----------------------------------------------------------------------

def _float_values(call, convert_ints):
    vals, leaves = dict(call.values), {}
    for name, v in call.values.items():
        if name in deps.STEERING:
            continue
        items = [(None, v)] if isinstance(v, core.Tensor) else (
            list(enumerate(v)) if isinstance(v, (list, tuple)) and v and isinstance(v[0], core.Tensor) else [])
        new = []
        for k, t in items:
            if t.is_floating_point() or convert_ints:
                a = np.asarray(t._data, dtype=np.float64).copy()
                leaves[deps.label(call, name, k)] = (name, k, a)
                new.append(core.from_numpy(a))
            else:
                new.append(t)
        if items:
            vals[name] = new[0] if isinstance(v, core.Tensor) else type(v)(new)
    return vals, leaves


def _first_float_output(res):
    outs = [res] if isinstance(res, core.Tensor) else list(res)
    return next(np.asarray(o._data, dtype=np.float64) for o in outs if o.is_floating_point())


def perturbation_jacobian(call):
    """{label: (left, right)} one-sided derivative arrays of shape out.shape + operand.shape."""
    for convert in (True, False):
        vals, leaves = _float_values(call, convert)
        try:
            with core.no_grad():
                f0 = _first_float_output(Call(call.info, call.specs, vals).run())
            break
        except Exception:  # noqa: BLE001 - the op wants its integer operand as is (embedding)
            continue
    out = {}
    for lab, (name, k, a) in leaves.items():
        left, right = np.zeros(f0.shape + a.shape), np.zeros(f0.shape + a.shape)
        for e in np.ndindex(*a.shape):
            h = 1e-6 * max(1.0, abs(a[e]))
            fs = []
            for sign in (1, -1):
                b = a.copy()
                b[e] += sign * h
                t = core.from_numpy(b)
                v = dict(vals)
                v[name] = t if k is None else type(vals[name])(t if i == k else x for i, x in enumerate(vals[name]))
                with core.no_grad():
                    fs.append(_first_float_output(Call(call.info, call.specs, v).run()))
            right[(Ellipsis,) + e] = (fs[0] - f0) / h
            left[(Ellipsis,) + e] = (f0 - fs[1]) / h
        out[lab] = (left, right)
    return out, f0


def check_rows(rows, jac, f0):
    listed = {}
    for r in rows:
        assert np.isclose(float(r["value"]), f0[tuple(r["out"])], rtol=1e-4, atol=1e-5), r
        for s in r["from"]:
            listed[(tuple(r["out"]), s["input"], tuple(s["index"]))] = float(s["weight"])
    assert len(rows) == f0.size
    for lab, (left, right) in jac.items():
        for o in np.ndindex(*f0.shape):
            for e in np.ndindex(*left.shape[f0.ndim:]):
                lo, hi = left[o + e], right[o + e]
                w = listed.pop((o, lab, e), 0.0)
                tol = 1e-3 * max(1.0, abs(lo), abs(hi))
                if abs(lo - hi) <= tol:      # smooth here: the derivative, listed iff non-zero
                    mid = (lo + hi) / 2
                    assert abs(w - mid) <= tol, f"out{list(o)} <- {lab}{list(e)}: weight {w}, perturbation {mid}"
                else:                        # a kink: a subgradient (a one-sided derivative or between)
                    assert min(lo, hi) - tol <= w <= max(lo, hi) + tol, (o, lab, e, w, lo, hi)
    assert not listed, f"listed but not an operand element: {listed}"


@pytest.mark.parametrize("name", COMMANDS)
def test_explain_lists_exactly_what_each_element_depends_on(app, monkeypatch, name):
    argv = example_argv(name)
    code, obj, seen = invoke(app, argv + ["--explain", "--json", "--max-rows", "0"], monkeypatch)
    if name in NO_ROWS:
        assert code == 2 and len(obj.strip().splitlines()) == 1 and "no element mapping" in obj
        return
    assert code == 0, obj
    call, result = seen["call"], seen["result"]
    if name in FROM_VALUE:
        return check_arg_extreme(obj, call)
    rows = obj["explain"]
    if name in AUTOGRAD_IS_NOT_PERTURBATION:
        return
    if OPS[name].kind:   # movement rows keep their own JSON (tests/test_explain.py); check the autograd rows
        rows = [r[0] for r in explain_any._dependencies(call, result, None, 0).rows]
    jac, f0 = perturbation_jacobian(call)
    check_rows(rows, jac, f0)


def check_arg_extreme(obj, call):
    """Rows from the value: the candidates are the reduced line, the value NumPy's arg (first on ties)."""
    x = np.asarray(call.values["input"]._data)
    dim, keep = call.values.get("dim"), call.values.get("keepdim", False)
    fn = np.argmax if call.info.name == "argmax" else np.argmin
    assert obj["explain"]
    for r in obj["explain"]:
        o = tuple(r["out"])
        if dim is None:
            cands, line = list(np.ndindex(*x.shape)), x.ravel()
        else:
            d = dim % x.ndim
            rest = o[d + 1:] if keep else o[d:]
            cands = [o[:d] + (j,) + rest for j in range(x.shape[d])]
            line = x[o[:d] + (slice(None),) + rest]
        assert [tuple(s["index"]) for s in r["from"]] == cands
        assert r["value"] == int(fn(line))


# -- --backward against torch ---------------------------------------------------------------------

def torch_fn(torch, name):
    import torch.nn.functional as F
    if OPS[name].category == "nn":
        return getattr(F, name, None) or getattr(torch, name, None)
    return getattr(torch, name, None) or getattr(F, name, None)


# torch's function takes these arguments in another form than the CLI passes them (im2col is
# F.unfold; torch.reshape / flip / permute want tuples; F.fold wants a pair for kernel_size)
TORCH_SIGNATURE_DIFFERS = {"im2col", "reshape", "unfold", "permute", "flip", "fold"}
# core records another grad_fn name than torch (reported; the test fails once core matches torch)
GRAD_FN_DIFFERS = {"pairwise_distance": ("LinalgVectorNormBackward0", "NormBackward1"),
                   "embedding_bag": ("MmBackward0", "EmbeddingBagBackward0")}
# batch_norm's cli_example passes int64 running stats, which torch refuses ("mixed dtype") and core
# accepts (reported): torch gets float ones here
FLOAT_STEERING = {"batch_norm": ("running_mean", "running_var")}
# torch's gradient of scatter with a duplicate index sends grad_out to EVERY src element aimed at
# the cell (a gather), not only the one written: autograd rows differ from perturbation there
# (--explain's rows for scatter come from position codes; --backward is checked against torch)
AUTOGRAD_IS_NOT_PERTURBATION = {"scatter"}


def torch_call(torch, call, leaves):
    """Run the same call in torch: leaves as torch leaves (same dtype), other tensors as they are."""
    tvals, tleaves = {}, {}
    for name, v in call.values.items():
        def conv(t, k=None):
            lab = deps.label(call, name, k)
            if lab in leaves:
                leaf = torch.tensor(np.asarray(leaves[lab].detach()._data), requires_grad=True)
                tleaves[lab] = leaf
                return leaf
            if name in FLOAT_STEERING.get(call.info.name, ()):
                return torch.tensor(np.asarray(t._data, dtype=np.float32))
            return torch.tensor(np.asarray(t._data)) if isinstance(t, core.Tensor) else t
        if isinstance(v, core.Tensor):
            tvals[name] = conv(v)
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], core.Tensor):
            tvals[name] = type(v)(conv(t, k) for k, t in enumerate(v))
        else:
            tvals[name] = v
    fake = SimpleNamespace(fn=torch_fn(torch, call.info.name), signature=call.info.signature)
    res = Call(fake, call.specs, tvals).run()
    out = res if isinstance(res, torch.Tensor) else next(r for r in res if r.requires_grad)
    return out, tleaves


BACKWARD_OPS = [n for n in COMMANDS if n not in NO_ROWS | FROM_VALUE | TORCH_SIGNATURE_DIFFERS]


@pytest.mark.parametrize("name", BACKWARD_OPS)
def test_backward_is_torchs_gradient(torch, app, monkeypatch, name):
    if torch_fn(torch, name) is None:
        pytest.skip(f"torch has no {name}")
    argv = example_argv(name)
    out = None
    for grad_output in ("ones", "random"):
        extra = []
        if grad_output == "random":
            go = np.round(np.random.default_rng(0).uniform(-2, 2, size=tuple(out.shape)), 1)
            extra = ["--grad-output", json.dumps(go.tolist())]
        code, b, seen = invoke(app, argv + ["--backward", "--json", "--max-rows", "0"] + extra, monkeypatch)
        assert code == 0, b
        if out is None:
            _, leaves = deps.traced(seen["call"])
            out, tleaves = torch_call(torch, seen["call"], leaves)
        tgo = torch.ones_like(out) if grad_output == "ones" else torch.tensor(go, dtype=out.dtype)
        grads = torch.autograd.grad(out, list(tleaves.values()), tgo, retain_graph=True, allow_unused=True)
        want = {lab: (np.zeros(tuple(t.shape)) if gr is None else gr.detach().numpy())
                for (lab, t), gr in zip(tleaves.items(), grads)}
        assert len(b["backward"]) == sum(w.size for w in want.values())
        for r in b["backward"]:
            assert np.isclose(float(r["value"]), want[r["grad_of"]][tuple(r["index"])], rtol=1e-4, atol=1e-5), r
        theirs = out.grad_fn.name() if out.grad_fn is not None else None
        assert (b["grad_fn"], theirs) == GRAD_FN_DIFFERS.get(name, (theirs, theirs))
    # the weights are the rows of torch's Jacobian
    flat = out.reshape(-1)
    for p in range(flat.numel()):
        js = torch.autograd.grad(flat[p], list(tleaves.values()), retain_graph=True, allow_unused=True)
        oi = list(np.unravel_index(p, tuple(out.shape))) if out.dim() else []
        for (lab, _), j in zip(tleaves.items(), js):
            j = np.zeros(0) if j is None else j.numpy()
            mine = {tuple(r["index"]): w["weight"] for r in b["backward"] if r["grad_of"] == lab
                    for w in r["from"] if w["grad_out"] == oi}
            theirs = {tuple(int(i) for i in e): float(j[e]) for e in zip(*np.nonzero(j))} if j.size else {}
            for e in set(mine) | set(theirs):   # rounding-level entries (1e-9) may be exact zeros in one
                assert np.isclose(float(mine.get(e, 0.0)), theirs.get(e, 0.0), rtol=1e-4, atol=1e-6), (lab, oi, e)
