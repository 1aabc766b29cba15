"""Running the cases of ``tensorcli check`` on core (and on torch with --against-torch), comparing
outcomes with the expectations, and the report object. Loading and validation: services/cases.py;
JSON / JUnit encodings: services/check_report.py; the console view: render/checks.py.
"""
from __future__ import annotations

import dataclasses
import fnmatch
import inspect
import os
import re
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import budget, models
from .cases import (  # noqa: F401 - SCHEMA, discover, load_file: part of this module's API
    MAX_BYTES, MAX_COMPARE, SCHEMA, Case, CaseFileError, TorchUnavailable, _NONE, _allocation_limit,
                    _build, _first_line, discover, load_file, load_paths)

# -- engines (core / torch) ----------------------------------------------------------------------

class _Engine:
    """What a case needs from a tensor library: tensors from arrays, dtypes, ops, grad modes."""

    def __init__(self, name, mod):
        self.name, self.mod = name, mod
        self._backend = None

    def tensor(self, arr):
        if self.name == "core":
            from core.tensor import Tensor
            return Tensor._make(arr.copy())
        return self.mod.from_numpy(arr.copy())

    def dtype(self, name):
        return getattr(self.mod, name)

    def is_tensor(self, x):
        return isinstance(x, self.mod.Tensor)

    def mode(self, mode):
        if mode == "no_grad":
            return self.mod.no_grad()
        if mode == "inference_mode":
            return self.mod.inference_mode()
        return self.mod.enable_grad()

    def backend(self):
        if self._backend is None:
            from .expr import Backend
            self._backend = Backend.from_module(self.mod)
        return self._backend

    def extra_callables(self):
        """The built-in example Functions (services/functions.py); for torch, the same forward and
        backward on a torch.autograd.Function subclass."""
        if not hasattr(self, "_extras"):
            try:
                from .functions import FUNCTIONS
            except ImportError:
                FUNCTIONS = {}
            extras = {}
            for name, cls in FUNCTIONS.items():
                if self.name != "core":
                    body = {k: cls.__dict__[k] for k in ("forward", "backward") if k in cls.__dict__}
                    cls = type(name, (self.mod.autograd.Function,), body)
                extras[f"{name}.apply"] = cls.apply
            self._extras = extras or None
        return self._extras

    def call_op(self, name, sig, args):
        """Call the op with the case's arguments: parameters up to a *varargs go positionally."""
        pos, kw = [], {}
        params = list(sig.parameters.values())
        has_var = any(p.kind is p.VAR_POSITIONAL for p in params)
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                if p.name in args:
                    val = args[p.name]
                    pos.extend(val if isinstance(val, (list, tuple)) else [val])
                has_var = False
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and has_var:
                pos.append(args[p.name] if p.name in args else p.default)
            elif p.name in args:
                kw[p.name] = args[p.name]
        if self.name == "core":
            from core.ops.registry import OPS
            return OPS[name].fn(*pos, **kw)
        fn = getattr(self.mod, name, None)
        if fn is None:   # a Tensor method only in torch (view, expand...): self is the first argument
            if not pos and kw:
                first = next(iter(sig.parameters))
                pos = [kw.pop(first)]
            return getattr(pos[0], name)(*pos[1:], **kw)
        return fn(*pos, **kw)


_ENGINES: dict = {}


def torch_engine():
    """The torch engine (TorchUnavailable when PyTorch is not installed)."""
    return _engine("torch")


def _engine(name):
    if name not in _ENGINES:
        if name == "core":
            import core
            _ENGINES[name] = _Engine("core", core)
        else:
            try:
                with budget.paused():   # torch's own import is not the cases' memory
                    import torch
            except ImportError as e:
                raise TorchUnavailable(f"--against-torch needs PyTorch, which is not installed ({e})") from None
            _ENGINES[name] = _Engine("torch", torch)
    return _ENGINES[name]


# -- running one case -----------------------------------------------------------------------------

@dataclass
class Outcome:
    result: object = None
    error: BaseException | None = None
    stage: str = ""                          # where the error happened
    grads: dict = field(default_factory=dict)
    hooks: dict = field(default_factory=dict)
    memory: dict = field(default_factory=dict)   # mode -> ModeReport


def _seed(eng):
    try:
        eng.mod.manual_seed(0)
    except Exception:   # pragma: no cover - core RNG absent
        pass


def _execute(case: Case, eng) -> Outcome:
    out = Outcome()
    if not case.needs_run():
        return out
    stage = "setup"
    try:
        _seed(eng)
        if case.kind == "op":
            names = {k: _build(val, eng) for k, val in case.args.items()}
        elif case.kind == "expr":
            names = {k: _build(val, eng) for k, val in case.let.items()}
        else:
            names = {}
        for n in case.requires_grad:
            names[n].requires_grad_(True)
        stage = "run"
        with eng.mode(case.grad_mode):
            if case.kind == "op":
                from core.ops.registry import OPS
                result = eng.call_op(case.target, inspect.signature(OPS[case.target].fn), names)
            elif case.kind == "expr":
                from . import expr
                result, ns = expr.evaluate(case.program, names, limits=case.program.limits,
                                           backend=eng.backend(), extra_callables=eng.extra_callables())
                names = ns
            else:
                result = _run_model(case, eng)
        out.result = result
        hooks = case.expects.get("expect_hooks", {})
        for n in hooks:
            t = names.get(n)
            if not eng.is_tensor(t):
                raise TypeError(f"expect_hooks: '{n}' is not a tensor after the run")
            seen = out.hooks.setdefault(n, [])
            t.register_hook(lambda g, seen=seen: seen.append(g.detach().clone()))
        wants_grads = "expect_grad" in case.expects or hooks
        if wants_grads and case.backward is not False and eng.is_tensor(result) and (
                result.requires_grad or case.backward):
            stage = "backward"
            gradient = case.gradient.build(eng) if case.gradient is not None else None
            result.backward(gradient)
        for n in case.expects.get("expect_grad", {}):
            if n not in names:
                raise NameError(f"expect_grad: no tensor named '{n}' after the run")
            t = names[n]
            with warnings.catch_warnings():   # a non-leaf's .grad warns; expecting None is the point
                warnings.simplefilter("ignore", UserWarning)
                out.grads[n] = t.grad if eng.is_tensor(t) else None
    except Exception as e:   # noqa: BLE001 - any exception is an outcome to compare
        out.error, out.stage = e, stage
    return out


def _run_model(case, eng):
    model = models.build_model(case.target, 0)
    if eng.name != "core":
        model = _torch_model(case.target, model, eng)
    if case.input is not None:
        x = case.input.build(eng)
    else:
        x = eng.tensor(np.random.default_rng(1).standard_normal(case.input_shape).astype(np.float32))
    return model(x)


def _torch_model(spec, core_model, eng):
    """The same layers in torch.nn, with core's (seeded) parameters and buffers copied in."""
    nn = eng.mod.nn
    layers = [getattr(nn, name)(*args, **kwargs) for name, args, kwargs in models.parse_model_spec(spec)]
    model = nn.Sequential(*layers)
    state = {k: eng.mod.from_numpy(np.array(v._data)) for k, v in core_model.state_dict().items()}
    model.load_state_dict(state)
    return model


def _memory(case: Case) -> dict:
    """mode -> ModeReport for the modes named by expect_memory (core only)."""
    from . import memory as mem   # the memory runner (tracemalloc): only for expect_memory cases
    modes = tuple(dict.fromkeys(m for m, _ in case.expects["expect_memory"]))
    if case.kind == "model":
        x = case.input.build(_engine("core")) if case.input is not None else None
        rep = mem.run_model(case.target, input_shape=case.input_shape, input_tensor=x, batches=case.batches,
                            modes=modes, keep_outputs=case.keep_outputs)
    else:
        eng = _engine("core")
        names = {k: _build(val, eng) for k, val in case.let.items()}
        for n in case.requires_grad:
            names[n].requires_grad_(True)
        rep = mem.run_expr(case.target, names, batches=case.batches, modes=modes,
                           keep_outputs=case.keep_outputs)
    return rep.modes


# -- comparing --------------------------------------------------------------------------------

def _short(e, limit=300):
    s = f"{type(e).__name__}: {_first_line(e)}"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _to_array(x):
    """A NumPy array for a tensor (core or torch) or plain data; None if not array-like."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach()
        if hasattr(x, "_data"):
            return np.asarray(x._data)
        return x.numpy()
    if isinstance(x, (bool, int, float, np.generic, np.ndarray)):
        return np.asarray(x)
    return None


def _fmt_num(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


def _fmt_value(x, limit=8):
    a = _to_array(x)
    if a is None:
        if isinstance(x, (list, tuple)):
            return "(" + ", ".join(_fmt_value(i) for i in x[:limit]) + (", ..." if len(x) > limit else "") + ")"
        return repr(x)[:80]
    flat = a.flat[:limit]          # never a.reshape(-1): a broadcast view could be terabytes
    body = ", ".join(_fmt_num(v) for v in flat) + (", ..." if a.size > limit else "")
    return f"[{body}] shape {list(a.shape)}" if a.ndim else body


def _dtype_str(x):
    d = getattr(x, "dtype", None)
    return str(d).replace("torch.", "") if d is not None else type(x).__name__


def _compare_values(what, expected, actual, atol, rtol, details):
    """Append differences between expected (array-like) and actual to details; True if equal."""
    act = _to_array(actual)
    if act is None:
        if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple, np.ndarray)):
            if len(expected) != len(actual):
                details.append(f"{what}: expected {len(expected)} results, got {len(actual)}")
                return False
            ok = True
            names = getattr(actual, "_fields", None)
            for i, (e, a) in enumerate(zip(expected, actual)):
                ok &= _compare_values(f"{what}[{names[i] if names else i}]", e, a, atol, rtol, details)
            return ok
        details.append(f"{what}: expected {_fmt_value(expected)}, got {type(actual).__name__} {_fmt_value(actual)}")
        return False
    try:
        exp = np.asarray(expected)
    except ValueError:
        details.append(f"{what}: the expected value is ragged but the result is a tensor of shape {list(act.shape)}")
        return False
    if exp.dtype == object:
        details.append(f"{what}: the expected value is ragged but the result has shape {list(act.shape)}")
        return False
    if exp.shape != act.shape:
        details.append(f"{what} shape: expected {list(exp.shape)}, got {list(act.shape)} "
                       f"(actual {_fmt_value(act)})")
        return False
    if act.size > MAX_COMPARE:
        details.append(f"{what}: {act.size} elements is too many to compare (limit {MAX_COMPARE})")
        return False
    if act.dtype.kind in "fc" or exp.dtype.kind in "fc":
        a64, e64 = act.astype(np.float64), exp.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(a64, e64, atol=atol, rtol=rtol, equal_nan=True)
    else:
        close = act == exp
        a64 = e64 = None
    if close.all():
        return True
    bad = np.argwhere(~close) if close.ndim else np.zeros((1, 0), dtype=int)
    n = int((~close).sum())
    head = f"{what}: {n} of {close.size} elements differ"
    if a64 is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(a64 - e64)
            finite = diff[np.isfinite(diff)]
        if finite.size:
            head += f" (max abs diff {float(finite.max()):.6g}; atol {atol:g}, rtol {rtol:g})"
    details.append(head)
    for idx in bad[:5]:
        t = tuple(int(i) for i in idx)
        details.append(f"  at {list(t)}: expected {_fmt_num(exp[t])}, got {_fmt_num(act[t])}")
    if n > 5:
        details.append(f"  ... and {n - 5} more")
    return False


def _error_matches(case, err):
    ex = case.expects
    msgs = []
    want_type = ex.get("expect_error_type")
    if want_type and want_type not in {c.__name__ for c in type(err).__mro__}:
        msgs.append(f"error type: expected {want_type}, got {type(err).__name__}: {_first_line(err)}")
    want = ex.get("expect_error")
    if want and want not in str(err):
        msgs.append(f"error message: expected it to contain {want!r}, got {type(err).__name__}: "
                    f"{_first_line(err)}")
    return msgs


def check_outcome(case: Case, out: Outcome) -> tuple[str, list[str]]:
    """('passed' | 'failed' | 'error', details) of an outcome against the case's expectations."""
    ex = case.expects
    details: list[str] = []
    if "expect_error" in ex or "expect_error_type" in ex:
        if out.error is None:
            want = ex.get("expect_error") or ex.get("expect_error_type")
            return "failed", [f"expected an error ({want!r}), got a result: {_fmt_value(out.result)}"]
        d = _error_matches(case, out.error)
        return ("failed", d) if d else ("passed", [])
    if out.error is not None:
        where = {"setup": "while building the arguments", "backward": "in backward"}.get(out.stage, "")
        return "error", [f"{_short(out.error)}" + (f" ({where})" if where else "")]
    r = out.result
    if "expect_shape" in ex:
        shape = getattr(r, "shape", None)
        if shape is None:
            details.append(f"shape: expected {ex['expect_shape']}, got a {type(r).__name__} (no shape)")
        elif list(shape) != ex["expect_shape"]:
            details.append(f"shape: expected {ex['expect_shape']}, got {list(shape)}")
    if "expect_dtype" in ex:
        got = _dtype_str(r) if hasattr(r, "dtype") else None
        if got != ex["expect_dtype"]:
            details.append(f"dtype: expected {ex['expect_dtype']}, got {got or type(r).__name__}")
    if "expect" in ex:
        _compare_values("value", ex["expect"], r, case.atol, case.rtol, details)
    for n, exp in ex.get("expect_grad", {}).items():
        g = out.grads.get(n)
        if exp is _NONE:
            if g is not None:
                details.append(f"grad of {n}: expected None, got {_fmt_value(g)}")
        elif g is None:
            details.append(f"grad of {n}: expected {_fmt_value(exp)}, got None")
        else:
            _compare_values(f"grad of {n}", exp, g, case.atol, case.rtol, details)
    for n, calls in ex.get("expect_hooks", {}).items():
        seen = out.hooks.get(n, [])
        if len(seen) != len(calls):
            details.append(f"hook on {n}: expected {len(calls)} call(s), got {len(seen)}")
        for i, (e, g) in enumerate(zip(calls, seen)):
            _compare_values(f"hook on {n} call {i + 1}", e, g, case.atol, case.rtol, details)
    for mode, checks in ex.get("expect_memory", []):
        rep = out.memory.get(mode)
        if rep is None:
            details.append(f"memory ({mode}): not measured")
            continue
        for key, (op, want) in checks.items():
            got = getattr(rep, key)
            if not _cmp(got, op, want):
                details.append(f"memory ({mode}) {key}: expected {op} {_fmt_num(want)}, got {_fmt_num(got)}")
    return ("failed", details) if details else ("passed", [])


def _cmp(got, op, want):
    return {"==": got == want, "!=": got != want, "<": got < want, "<=": got <= want, ">": got > want,
            ">=": got >= want}[op]


def compare_outcomes(case: Case, core_out: Outcome, torch_out: Outcome) -> list[str]:
    """Where core and torch disagree: error class, result type/shape/dtype/values, grads, hooks."""
    d: list[str] = []
    ce, te = core_out.error, torch_out.error
    if ce is not None or te is not None:
        if ce is None:
            d.append(f"torch raised {_short(te)}; core returned {_fmt_value(core_out.result)}")
        elif te is None:
            d.append(f"core raised {_short(ce)}; torch returned {_fmt_value(torch_out.result)}")
        elif type(ce).__name__ != type(te).__name__:
            d.append(f"error class: core {_short(ce)}; torch {_short(te)}")
        return d
    _diff_results("result", core_out.result, torch_out.result, case, d)
    for n in sorted(set(core_out.grads) | set(torch_out.grads)):
        _diff_results(f"grad of {n}", core_out.grads.get(n), torch_out.grads.get(n), case, d)
    for n in sorted(set(core_out.hooks) | set(torch_out.hooks)):
        a, b = core_out.hooks.get(n, []), torch_out.hooks.get(n, [])
        if len(a) != len(b):
            d.append(f"hook on {n}: core saw {len(a)} call(s), torch {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _diff_results(f"hook on {n} call {i + 1}", x, y, case, d)
    return d


def _diff_results(what, c, t, case, d):
    ca, ta = _to_array(c), _to_array(t)
    if c is None or t is None:
        if (c is None) != (t is None):
            d.append(f"{what}: core {_fmt_value(c) if c is not None else 'None'}, "
                     f"torch {_fmt_value(t) if t is not None else 'None'}")
        return
    if ca is None or ta is None:
        if isinstance(c, (list, tuple)) and isinstance(t, (list, tuple)):
            if len(c) != len(t):
                d.append(f"{what}: core returned {len(c)} values, torch {len(t)}")
                return
            for i, (x, y) in enumerate(zip(c, t)):
                _diff_results(f"{what}[{i}]", x, y, case, d)
            return
        if (ca is None) != (ta is None) or type(c).__name__ != type(t).__name__:
            d.append(f"{what}: core {type(c).__name__} {_fmt_value(c)}, torch {type(t).__name__} {_fmt_value(t)}")
        return
    ct, tt = hasattr(c, "dtype") and not isinstance(c, np.generic), hasattr(t, "dtype") and not isinstance(t, np.generic)
    if ct != tt:
        d.append(f"{what}: core {type(c).__name__} {_fmt_value(c)}, torch {type(t).__name__} {_fmt_value(t)}")
        return
    if ct and _dtype_str(c) != _dtype_str(t):
        d.append(f"{what} dtype: core {_dtype_str(c)}, torch {_dtype_str(t)}")
    if ca.shape != ta.shape:
        d.append(f"{what} shape: core {list(ca.shape)}, torch {list(ta.shape)}")
        return
    if ca.size > MAX_COMPARE:   # shape and dtype agree; values of views this large are not compared
        return
    sub: list[str] = []
    if not _compare_values(what, ta, ca, case.atol, case.rtol, sub):
        d.extend(s.replace("expected", "torch").replace("got", "core") for s in sub)


def _alloc_refusal(err):
    if err is None:
        return False
    s = str(err)
    return ("would allocate" in s) or ("not enough memory" in s) or ("refuses allocations" in s)


# -- running many ---------------------------------------------------------------------------

@dataclass
class CaseResult:
    file: str
    name: str
    classname: str
    status: str                  # passed | failed | error | skipped
    duration: float
    message: str = ""
    details: list = field(default_factory=list)
    torch: dict | None = None

    def to_dict(self):
        return {"file": self.file, "name": self.name, "classname": self.classname, "status": self.status,
                "duration": round(self.duration, 6), "message": self.message, "details": list(self.details),
                "torch": self.torch}


@dataclass
class Report:
    files: list
    results: list
    deselected: int = 0
    duration: float = 0.0
    against_torch: bool = False

    def count(self, status):
        return sum(1 for r in self.results if r.status == status)

    @property
    def exit_code(self):
        return 1 if any(r.status in ("failed", "error") for r in self.results) else 0

    def summary(self):
        return {"tests": len(self.results), "passed": self.count("passed"), "failed": self.count("failed"),
                "errors": self.count("error"), "skipped": self.count("skipped"), "deselected": self.deselected,
                "duration": round(self.duration, 6), "against_torch": self.against_torch}


def select(cases, patterns):
    """Cases whose 'file::name' matches any -k pattern: a glob when it has * ? or [, else a
    case-insensitive substring."""
    if not patterns:
        return list(cases)
    out = []
    for c in cases:
        ident = c.id.lower()
        for p in patterns:
            p = p.lower()
            if (any(ch in p for ch in "*?[") and (fnmatch.fnmatchcase(ident, p) or fnmatch.fnmatchcase(
                    c.name.lower(), p))) or p in ident:
                out.append(c)
                break
    return out


def run_case(case: Case, against_torch=False) -> CaseResult:
    res = CaseResult(case.file, case.name, case.classname, "passed", 0.0)
    if case.skip is not None:
        res.status, res.message = "skipped", case.skip
        return res
    core_eng = _engine("core")
    t0 = time.perf_counter()
    out = _execute(case, core_eng)
    if "expect_memory" in case.expects and out.error is None:
        try:
            out.memory = _memory(case)
        except Exception as e:   # noqa: BLE001
            out.error, out.stage = e, "memory"
    status, details = check_outcome(case, out)
    res.duration = time.perf_counter() - t0
    res.status, res.details = status, details
    if against_torch:
        res.torch = _against_torch(case, out, res)
    if res.status != "passed":
        res.message = res.details[0] if res.details else res.status
    return res


def _against_torch(case, core_out, res) -> dict:
    if not case.needs_run():
        return {"status": "skipped", "message": "memory figures have no torch counterpart",
                "duration": 0.0, "details": []}
    if _alloc_refusal(core_out.error):
        return {"status": "skipped", "message": "not run on torch: core refused the allocation",
                "duration": 0.0, "details": []}
    eng = _engine("torch")
    t0 = time.perf_counter()
    tout = _execute(case, eng)
    dur = time.perf_counter() - t0
    from .expr import ExprError
    if isinstance(tout.error, ExprError) and not _alloc_refusal(tout.error):
        return {"status": "skipped", "message": f"torch: {_first_line(tout.error)}", "duration": dur,
                "details": []}
    disagree = compare_outcomes(case, core_out, tout)
    tstatus, tdetails = check_outcome(case, tout)
    details = [f"core and torch disagree: {d}" for d in disagree]
    if tstatus != "passed":
        details += [f"torch: {d}" for d in tdetails]
    info = {"status": "disagree" if disagree else "agree", "duration": dur,
            "expectations": tstatus, "details": details,
            "message": details[0] if details else "torch agrees with core"}
    if tout.error is not None:
        info["error"] = _short(tout.error)
    else:
        info["result"] = _fmt_value(tout.result)
    if details:
        if res.status == "passed":
            res.status = "failed"
        res.details = res.details + details
    return info


DEFAULT_TIMEOUT = 60.0   # seconds per case (core and torch runs together) unless --timeout says


def run(cases, *, against_torch=False, fail_fast=False, files=(), deselected=0, progress=None,
        timeout=DEFAULT_TIMEOUT, max_bytes=None) -> Report:
    """Run the cases under one memory budget (`max_bytes`, default MAX_BYTES: core's allocation
    limit and the process's data limit, services/budget.py) and a time budget per case: a case
    that runs out of time fails ("timed out after N s") and the run goes on."""
    if against_torch:
        _engine("torch")
    nbytes = MAX_BYTES if max_bytes is None else int(max_bytes)
    report = Report(list(map(str, files)), [], deselected, 0.0, against_torch)
    t0 = time.perf_counter()
    stop = False
    with _allocation_limit(nbytes), budget.enforced(nbytes):
        for case in cases:
            if stop:
                r = CaseResult(case.file, case.name, case.classname, "skipped", 0.0,
                               "not run (--fail-fast after a failure)")
            else:
                r = _run_timed(case, against_torch, timeout)
                if fail_fast and r.status in ("failed", "error"):
                    stop = True
            report.results.append(r)
            if progress is not None:
                progress(r)
    report.duration = time.perf_counter() - t0
    return report


def _run_timed(case, against_torch, timeout) -> CaseResult:
    t0 = time.perf_counter()
    try:
        with budget.time_limit(timeout, what=f"case {case.id}"):
            return run_case(case, against_torch)
    except budget.TimedOut as e:
        msg = f"{e} (the time budget of a case; raise it with --timeout SECONDS)"
        return CaseResult(case.file, case.name, case.classname, "failed", time.perf_counter() - t0, msg, [msg],
                          {"status": "skipped", "message": str(e), "duration": 0.0, "details": []}
                          if against_torch else None)


def run_paths(paths, *, patterns=(), against_torch=False, fail_fast=False, progress=None,
              timeout=DEFAULT_TIMEOUT, max_bytes=None, allow=()) -> Report:
    """Load (raising the first CaseFileError), select and run; `allow`: check --allow-path roots."""
    files, cases, errors = load_paths(paths, allow=allow)
    if errors:
        raise errors[0]
    chosen = select(cases, patterns)
    return run(chosen, against_torch=against_torch, fail_fast=fail_fast, files=files,
               deselected=len(cases) - len(chosen), progress=progress, timeout=timeout, max_bytes=max_bytes)
