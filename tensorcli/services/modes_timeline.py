"""`tensorcli modes --timeline`: a program's grad modes statement by statement, as plain data.

Each statement runs in the mode the program puts it in (``with torch.no_grad():``, ``torch.enable_grad()``,
``torch.inference_mode()``, ``torch.set_grad_enabled(b)``, ``torch.inference_mode(False)`` blocks, nested, or
none), and the timeline records the active mode (read from core's grad-mode state), every tensor the statement
made or changed (``requires_grad``, ``grad_fn``, ``is_leaf``, ``is_inference``, ``_version``) and the error
torch raises there, if any (the program stops at it, as a script does). Next to it: what the same statement
does under each other mode (grad, no_grad, inference_mode), replaying the statements before it on fresh
copies of the --let inputs.

The ``with`` lines are matched structurally here (a call of one of the mode managers above with literal
arguments), never evaluated; every other statement goes to the safe language (services/expr.py) one at a
time, so the timeline takes whatever statements that language evaluates. No Typer, no Rich here.
"""
from __future__ import annotations

import ast
from contextlib import ExitStack

import core
from core._grad_mode import STATE

from ..errors import CliError
from . import autograd as ag

__all__ = ["flatten", "timeline_report", "MODES", "MAX_COMPARED_STATEMENTS"]

MODES = ("grad", "no_grad", "inference_mode")
MAX_COMPARED_STATEMENTS = 40
_MANAGERS = {"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"}


def _manager(item) -> tuple | None:
    """A with-item that is a grad-mode manager -> (name, bool argument or None); else None."""
    call = item.context_expr
    if item.optional_vars is not None or not isinstance(call, ast.Call):
        return None
    parts, f = [], call.func
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if not isinstance(f, ast.Name) or f.id not in ("torch", "core") or not parts or parts[0] not in _MANAGERS:
        return None
    if parts[1:] not in ([], ["autograd"], ["grad_mode", "autograd"]):
        return None
    args = list(call.args) + [k.value for k in call.keywords if k.arg in ("mode", "enabled")]
    if len(args) > 1 or len(call.keywords) > (1 if args and not call.args else 0):
        return None
    if args:
        if not (isinstance(args[0], ast.Constant) and isinstance(args[0].value, bool)):
            return None
        return parts[0], args[0].value
    if parts[0] == "set_grad_enabled":
        return None
    return parts[0], None


def _enter(stack: ExitStack, spec) -> None:
    name, arg = spec
    if name == "no_grad":
        stack.enter_context(core.no_grad())
    elif name == "enable_grad":
        stack.enter_context(core.enable_grad())
    elif name == "set_grad_enabled":
        stack.enter_context(core.set_grad_enabled(arg))
    else:
        stack.enter_context(core.inference_mode(True if arg is None else arg))


def _label(spec) -> str:
    name, arg = spec
    return f"{name}({arg})" if arg is not None else f"{name}()"


def flatten(source: str, body, contexts=()) -> list:
    """[(statement source, line, (manager spec, ...))]: with-blocks of grad-mode managers opened up."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.With):
            specs = [_manager(i) for i in stmt.items]
            if all(specs):
                out.extend(flatten(source, stmt.body, contexts + tuple(specs)))
                continue
        out.append((ast.get_source_segment(source, stmt), stmt.lineno, contexts))
    return out


def active_mode() -> str:
    """The grad mode in force now, as the Python API names it."""
    if STATE.inference:
        return "inference_mode"
    return "grad" if STATE.grad_enabled else "no_grad"


def _tensor_row(name, t) -> dict:
    return {"name": name, "shape": list(t.shape), "dtype": str(t.dtype), "requires_grad": bool(t.requires_grad),
            "grad_fn": ag._node_name(t.grad_fn) if t.grad_fn is not None else None, "is_leaf": bool(t.is_leaf),
            "is_inference": bool(t.is_inference()), "version": _version(t)}


def _version(t):
    """t._version, or None for an inference tensor (torch: "Inference tensors do not track version counter")."""
    return None if t.is_inference() else int(t._version)


def _state(ns) -> dict:
    return {n: (id(t), _version(t), t.requires_grad, t.grad_fn) for n, t in _tensors(ns)}


def _tensors(ns):
    for n, v in ns.items():
        if isinstance(v, core.Tensor):
            yield n, v
        elif isinstance(v, (list, tuple)):
            yield from ((f"{n}[{i}]", x) for i, x in enumerate(v) if isinstance(x, core.Tensor))


def _changed(before: dict, ns) -> list:
    return [_tensor_row(n, t) for n, t in _tensors(ns)
            if before.get(n) != (id(t), _version(t), t.requires_grad, t.grad_fn)]


def _error(e: BaseException) -> dict:
    cause = e.__cause__ if isinstance(e, CliError) and e.__cause__ is not None else e
    msg = str(cause) if not isinstance(e, CliError) or e.__cause__ is not None else e.message
    return {"type": type(cause).__name__, "message": msg.removeprefix("expression: ")}


def _run(seg, contexts, ns, max_bytes, mode=None):
    """One statement under its contexts (or under ``mode`` instead): the new namespace; raises CliError."""
    with ExitStack() as stack:
        if mode is None:
            for spec in contexts:
                _enter(stack, spec)
        else:
            _enter(stack, {"grad": ("enable_grad", None), "no_grad": ("no_grad", None),
                           "inference_mode": ("inference_mode", None)}[mode])
            if mode == "grad":
                stack.enter_context(core.inference_mode(False))
        _, ns = ag.run_expression(seg, ns, max_bytes)
    return ns


def _refusal(e: CliError) -> bool:
    from . import expr
    return isinstance(e.__cause__, expr.ExprError)


def _alternatives(steps, i, names, max_bytes, actual) -> dict:
    """Statement i under each mode, after replaying statements 0..i-1 as the program runs them."""
    out = {}
    for mode in MODES:
        ns = ag._fresh(names)
        try:
            for seg, _, contexts in steps[:i]:
                ns = _run(seg, contexts, ns, max_bytes)
        except CliError:
            return {}
        before = _state(ns)
        seg, _, contexts = steps[i]
        try:
            ns = _run(seg, contexts, ns, max_bytes, mode=mode)
        except CliError as e:
            out[mode] = {"ok": False, "error": _error(e), "tensors": [], "same_as_program": mode == actual}
            continue
        out[mode] = {"ok": True, "error": None, "tensors": _changed(before, ns), "same_as_program": mode == actual}
    return out


def timeline_report(source: str, names: dict, *, max_bytes: int = ag.DEFAULT_MAX_BYTES, compare: bool = True) -> dict:
    """The timeline of ``source`` (docs/json.md, ``tensorcli.modes-timeline/2``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise CliError("EXPR", f"invalid syntax: {e.msg} (line {e.lineno}, col {e.offset})") from None
    steps = flatten(source, tree.body)
    if not steps:
        raise CliError("EXPR", "the program is empty")
    compared = compare and len(steps) <= MAX_COMPARED_STATEMENTS
    rows = []
    ns = ag._fresh(names)     # the --let inputs stay pristine for the replays of _alternatives
    stopped = False
    with ag.allocation_limit(max_bytes):
        for i, (seg, line, contexts) in enumerate(steps):
            row = {"index": i + 1, "line": line, "statement": seg, "context": [_label(c) for c in contexts],
                   "mode": None, "ok": None, "error": None, "tensors": [], "modes": {}}
            rows.append(row)
            if stopped:
                continue
            with ExitStack() as stack:
                for spec in contexts:
                    _enter(stack, spec)
                row["mode"] = active_mode()
            before = _state(ns)
            try:
                ns = _run(seg, contexts, ns, max_bytes)
            except CliError as e:
                if _refusal(e):
                    raise
                row.update(ok=False, error=_error(e))
                stopped = True
            else:
                row.update(ok=True, tensors=_changed(before, ns))
            if compared:
                row["modes"] = _alternatives(steps, i, names, max_bytes, row["mode"])
    return {"command": "modes", "expr": source, "statements": rows, "compared": compared,
            "summary": timeline_summary(rows)}


def timeline_summary(rows) -> list:
    """Sentences: where the modes part ways (a graph recorded or not, inference tensors, errors)."""
    out = []
    for r in rows:
        if r["ok"] is False:
            out.append(f"statement {r['index']} ({r['mode']}) raises {r['error']['type']}: "
                       f"{r['error']['message'].splitlines()[0]}")
        alts = r["modes"]
        if not alts:
            continue
        fails = [m for m, a in alts.items() if not a["ok"]]
        works = [m for m, a in alts.items() if a["ok"]]
        if fails and works:
            out.append(f"statement {r['index']}: fails under {', '.join(fails)}, runs under {', '.join(works)}")
        graphs = {m: any(t["grad_fn"] for t in a["tensors"]) for m, a in alts.items() if a["ok"]}
        if len(set(graphs.values())) > 1:
            out.append(f"statement {r['index']}: records a graph under "
                       f"{', '.join(m for m, g in graphs.items() if g)}, none under "
                       f"{', '.join(m for m, g in graphs.items() if not g)}")
    return out
