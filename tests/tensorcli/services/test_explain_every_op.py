"""--explain / --backward on EVERY op command, run with its example (tensorcli/opspec/):

* the input elements each output element lists are exactly those its value depends on, with the
  right weights: checked by perturbing each input element of core's op in float64 (central
  differences; at a kink, the weight must be a one-sided derivative or between them, as torch's
  subgradients are), and each row's value is the op's result there;
* ops without a gradient (comparisons, integer results, samples) list their operand elements without
  weights: an elementwise op's are the broadcast ones, each row's value is the op's result there;
* --backward's values are torch's gradients (ones and a random grad_output), its `from` weights are
  the rows of torch's Jacobian, and the grad_fn it names is the one torch records; where torch's
  result has no gradient (or torch has no derivative formula), --backward refuses in one line.

Each op's CLI runs are shared by its two tests (one --explain --backward --json run when both work),
so the file stays fast with every registry op a command.
"""
from __future__ import annotations

import json
import shlex
import inspect
from types import SimpleNamespace

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import core
from core.ops.registry import OPS
from tensorcli import app as cli_app
from tensorcli import opspec
from tensorcli.services import dependencies as deps, explain_any, explain_values as values
from tensorcli.services.run_op import Call
from tensorcli.spec import examples

COMMANDS = [name for name, info in OPS.items() if opspec.is_command(name) and examples(info)]
NO_ROWS = set()     # every command explains itself (ops without a gradient by broadcasting or probing)
FROM_VALUE = {"argmax", "argmin"}


_SEEN = {}


@pytest.fixture(scope="module")
def app():
    """The op commands, with explain_any.explain / backward spied once (the Call each run used)."""
    mp = pytest.MonkeyPatch()
    orig, orig_bw = explain_any.explain, explain_any.backward

    def spy(call, result, **kw):
        _SEEN["call"], _SEEN["result"] = call, result
        return orig(call, result, **kw)

    def spy_bw(call, *a, **kw):
        _SEEN["call"] = call
        return orig_bw(call, *a, **kw)
    mp.setattr(explain_any, "explain", spy)
    mp.setattr(explain_any, "backward", spy_bw)
    # one app object: conftest makes typer's CliRunner convert it to a click command once, not on
    # every invoke (~2 s with every registry op a command)
    yield cli_app.build_app(modules=("ops",))
    mp.undo()


_RUNS = {}
BOTH = ["--explain", "--backward", "--json", "--max-rows", "0"]


def run_op(app, name, mode):
    """(code, JSON or stderr, seen) of the op's example with --explain or --backward (JSON, all rows);
    one run with both flags serves both tests when both work."""
    if name not in _RUNS:
        _RUNS[name] = {"both": invoke(app, example_argv(name) + BOTH)}
    runs = _RUNS[name]
    if runs["both"][0] == 0:
        return runs["both"]
    if mode not in runs:
        runs[mode] = invoke(app, example_argv(name) + [f"--{mode}", "--json", "--max-rows", "0"])
    return runs[mode]


def example_argv(name):
    argv = shlex.split(examples(OPS[name])[0])[1:]
    return [a for a in argv if a != "--explain"]


def invoke(app, argv):
    """(exit code, JSON or stderr, the Call the command ran) for one CLI run."""
    _SEEN.clear()
    r = CliRunner().invoke(app, argv, env={"NO_COLOR": "1"})
    seen = dict(_SEEN)
    if r.exit_code:
        return r.exit_code, r.stderr, seen
    return 0, json.loads(r.stdout), seen


# -- the perturbation oracle ----------------------------------------------------------------------

def _float_values(call, convert_ints):
    vals, leaves = dict(call.values), {}
    for name, v in call.values.items():
        if name in ("running_mean", "running_var") and isinstance(v, core.Tensor):   # must match input's dtype
            vals[name] = core.from_numpy(np.asarray(v._data, dtype=np.float64).copy())
            continue
        if name in opspec.steering(call.info.name):
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


def _first_float_output(res, k=0):
    outs = [res] if isinstance(res, core.Tensor) else list(res)
    if k:
        return np.asarray(outs[k]._data, dtype=np.float64)
    return next(np.asarray(o._data, dtype=np.float64) for o in outs if o.is_floating_point())


def weighted(rows):
    """Rows carrying autograd's weights (an op without a gradient lists its elements without)."""
    return all("weight" in s for r in rows for s in r["from"])


def perturbation_jacobian(call, which=0):
    """{label: (left, right)} one-sided derivative arrays of shape out.shape + operand.shape (output `which`)."""
    for convert in (True, False):
        vals, leaves = _float_values(call, convert)
        try:
            with core.no_grad():
                f0 = _first_float_output(Call(call.info, call.specs, vals).run(), which)
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
                    fs.append(_first_float_output(Call(call.info, call.specs, v).run(), which))
            right[(Ellipsis,) + e] = (fs[0] - f0) / h
            left[(Ellipsis,) + e] = (f0 - fs[1]) / h
        out[lab] = (left, right)
    return out, f0


def check_rows(rows, jac, f0):
    """The listed weights are the perturbation Jacobian's entries (values: check_values, on the op's
    actual result: nan_to_num's float32 extremes differ from the float64 rerun's)."""
    listed = {}
    for r in rows:
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
def test_explain_lists_exactly_what_each_element_depends_on(app, name):
    code, obj, seen = run_op(app, name, "explain")
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
    k = obj.get("explain_output", 0)
    if OPS[name].category == "random":
        return check_values(rows, result, k)
    if OPS[name].kind:   # movement rows keep their own JSON (tests/tensorcli/services/test_explain.py); check the autograd rows
        rows = [r[0] for r in explain_any._dependencies(call, result, None, 0).rows]
    if not weighted(rows) or not _has_float_output(result):
        check_values(rows, result, k)
        if values.is_elementwise(OPS[name]):
            check_broadcast(rows, call, result)
        return
    jac, f0 = perturbation_jacobian(call, k)
    check_values(rows, result, k)
    if name not in SYMMETRIC_INPUT:
        check_rows(rows, jac, f0)


def _has_float_output(res):
    outs = [res] if isinstance(res, core.Tensor) else list(res) if isinstance(res, (tuple, list)) else []
    return any(isinstance(o, core.Tensor) and o.is_floating_point() for o in outs)


def check_values(rows, result, k=0):
    """Each row's value is the op's result (output k) at that element (a Python scalar: one row)."""
    out = values.first_tensor(result) if not k else result[k]
    res = np.asarray(out._data)
    assert len(rows) == max(res.size, 1)
    for r in rows:
        want = res[tuple(r["out"])]
        got = r["value"]
        if isinstance(got, str):      # NaN / Infinity spelt as strings
            got = float(got.replace("Infinity", "inf"))
        assert got == want or np.isclose(float(got), float(want), rtol=1e-6, equal_nan=True), (r, want)


def check_broadcast(rows, call, result):
    """An elementwise row lists, for each operand, the element broadcasting puts at that position."""
    shape = tuple(values.first_tensor(result).shape)
    for lab, a in values.operands(call, steering=True):
        if np.broadcast_shapes(a.shape, shape) != shape:
            continue
        # the index of a's element at each output position: a's own index grids, broadcast by NumPy
        own = [np.broadcast_to(g, shape) for g in np.indices(a.shape)] if a.ndim else []
        for r in rows:
            src = [s for s in r["from"] if s["input"] == lab]
            assert len(src) == 1, (lab, r)
            assert src[0]["index"] == [int(g[tuple(r["out"])]) for g in own], (lab, r)
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
    if "." in name:                       # linalg.det, special.erfcx
        space, attr = name.split(".", 1)
        return getattr(getattr(torch, space, None), attr, None)
    if OPS[name].category == "nn":
        return getattr(F, name, None) or getattr(torch, name, None)
    # then Tensor methods (view_as, contiguous, repeat, ...)
    return getattr(torch, name, None) or getattr(F, name, None) or getattr(torch.Tensor, name, None)


# torch's function takes these arguments in another form than the CLI passes them (im2col is
# F.unfold; torch.reshape / flip / permute want tuples; F.fold wants a pair for kernel_size)
TORCH_SIGNATURE_DIFFERS = {"im2col", "reshape", "unfold", "permute", "flip", "fold"}
# core records another grad_fn name than torch (reported; the test fails once core matches torch)
GRAD_FN_DIFFERS = {"pairwise_distance": ("LinalgVectorNormBackward0", "NormBackward1"),
                   "dist": ("LinalgVectorNormBackward0", "DistBackward0"),
                   "linalg.tensorinv": ("ViewBackward0", "ReshapeAliasBackward0"),
                   "linalg.householder_product": ("SubBackward0", "LinalgHouseholderProductBackward0"),
                   "orgqr": ("SubBackward0", "LinalgHouseholderProductBackward0"),
                   "ormqr": ("SubBackward0", "OrmqrBackward0")}
# batch_norm's example passes int64 running stats, which torch refuses ("mixed dtype") and core
# accepts (reported): torch gets float ones here
FLOAT_STEERING = {"batch_norm": ("running_mean", "running_var")}
# torch wants int32 pivots (the CLI reads int64 ones, which core accepts: reported)
INT32_PIVOTS = {"lu_unpack": ("LU_pivots",), "lu_solve": ("LU_pivots",), "linalg.lu_solve": ("pivots",)}
# torch's gradient of scatter with a duplicate index sends grad_out to EVERY src element aimed at
# the cell (a gather), not only the one written: autograd rows differ from perturbation there
# (--explain's rows for scatter come from position codes; --backward is checked against torch)
AUTOGRAD_IS_NOT_PERTURBATION = {"scatter"}
# ops that read one triangle of a symmetric input (cholesky, eigh, ...): torch's gradient is the
# symmetrised one (half to A[i][j], half to A[j][i]), while perturbing the unread triangle alone
# changes nothing; their values are still checked, and --backward is checked against torch
SYMMETRIC_INPUT = {"linalg.cholesky", "linalg.cholesky_ex", "cholesky", "cholesky_solve", "cholesky_inverse",
                   "linalg.eigh", "linalg.eigvalsh"}


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
            if name in INT32_PIVOTS.get(call.info.name, ()):
                return torch.tensor(np.asarray(t._data, dtype=np.int32))
            return torch.tensor(np.asarray(t._data)) if isinstance(t, core.Tensor) else t
        if isinstance(v, core.Tensor):
            tvals[name] = conv(v)
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], core.Tensor):
            tvals[name] = type(v)(conv(t, k) for k, t in enumerate(v))
        else:
            tvals[name] = v
    fn = torch_fn(torch, call.info.name)
    try:
        res = Call(SimpleNamespace(fn=fn, signature=call.info.signature), call.specs, tvals).run()
    except TypeError:    # torch's keyword names differ from the documented ones
        res = torch_run(fn, call.info.signature, tvals)
    if isinstance(res, torch.Tensor):
        return res, tleaves
    outs = [r for r in res if isinstance(r, torch.Tensor)] if isinstance(res, (tuple, list)) else []
    return next((r for r in outs if r.requires_grad), None), tleaves


def torch_run(fn, signature, vals):
    """Call torch's function: parameters positionally up to the first one not given (torch's keyword
    names differ from the documented ones: linalg.det(A) is `input`, dot's `other` is `tensor`),
    the rest by keyword."""
    args, kwargs, gap = [], {}, False
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(vals.get(p.name, ()))
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) and not gap:
            if p.name in vals:
                args.append(vals[p.name])
            else:
                gap = True
        elif p.name in vals:
            kwargs[p.name] = vals[p.name]
    return fn(*args, **kwargs)


def torch_has_gradient(torch, call):
    """Whether torch's result has a gradient torch can compute (False: --backward must refuse)."""
    if call.info.category == "random":
        return False
    try:
        _, leaves = deps.traced(call)
    except ValueError:
        leaves = {}
    if not leaves:
        leaves = deps.differentiable_copies(call)[1]
    try:
        out, tleaves = torch_call(torch, call, leaves)
        if out is None or not out.requires_grad or not tleaves:
            return False
        torch.autograd.grad(out.sum(), list(tleaves.values()), allow_unused=True)
    except (RuntimeError, NotImplementedError):
        return False
    return True


BACKWARD_OPS = [n for n in COMMANDS if n not in NO_ROWS | FROM_VALUE | TORCH_SIGNATURE_DIFFERS]


@pytest.mark.parametrize("name", BACKWARD_OPS)
def test_backward_is_torchs_gradient(torch, app, name):
    if torch_fn(torch, name) is None:
        pytest.skip(f"torch has no {name}")
    code, b, seen = run_op(app, name, "backward")
    if code:
        assert code == 2 and len(b.strip().splitlines()) == 1 and "--backward" in b, b
        call = seen.get("call") or run_op(app, name, "explain")[2]["call"]
        assert not torch_has_gradient(torch, call), f"core refuses --backward where torch has a gradient: {b}"
        return
    _, leaves = deps.traced(seen["call"])
    out, tleaves = torch_call(torch, seen["call"], leaves)
    for grad_output in ("ones", "random"):
        if grad_output == "random":
            go = np.round(np.random.default_rng(0).uniform(-2, 2, size=tuple(out.shape)), 1)
            code, b, seen = invoke(app, example_argv(name) + ["--backward", "--json", "--max-rows", "0",
                                                               "--grad-output", json.dumps(go.tolist())])
            assert code == 0, b
        tgo = torch.ones_like(out) if grad_output == "ones" else torch.tensor(go, dtype=out.dtype)
        grads = torch.autograd.grad(out, list(tleaves.values()), tgo, retain_graph=True, allow_unused=True)
        want = {lab: (np.zeros(tuple(t.shape)) if gr is None else gr.detach().numpy(force=True))
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
            j = np.zeros(0) if j is None else j.numpy(force=True)
            mine = {tuple(r["index"]): w["weight"] for r in b["backward"] if r["grad_of"] == lab
                    for w in r["from"] if w["grad_out"] == oi}
            nz = ([()] if j != 0 else []) if j.ndim == 0 else zip(*np.nonzero(j))
            theirs = {tuple(int(i) for i in e): float(j[e]) for e in nz} if j.size else {}
            for e in set(mine) | set(theirs):   # rounding-level entries (1e-9) may be exact zeros in one
                assert np.isclose(float(mine.get(e, 0.0)), theirs.get(e, 0.0), rtol=1e-4, atol=1e-6), (lab, oi, e)


# -- --dim all on every command with a dim -------------------------------------------------------

def _dim_commands():
    from tensorcli import spec
    out = []
    for name in COMMANDS:
        argv = example_argv(name)
        if "--dim" in argv and any(s.name == "dim" for s in spec.classify(OPS[name])):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _dim_commands())
def test_dim_all_runs_the_op_under_every_dim(app, name):
    """--dim all: one column per dim of the input, each the op's result under that dim (or that dim's
    own error), with its explanation."""
    argv = example_argv(name)
    i = argv.index("--dim")
    base = argv[:i] + argv[i + 2:]
    code, obj, _ = invoke(app, base + ["--dim", "all", "--explain", "--json"])
    assert code == 0, obj
    assert obj["dims"], name
    for col in obj["dims"]:
        c, single, _ = invoke(app, base + ["--dim", str(col["dim"]), "--json"])
        if "error" in col:
            assert c == 2
            continue
        assert c == 0 and col["result"] == single["result"], (name, col["dim"])
        assert "explain" in col
