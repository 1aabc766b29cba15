"""Reports of the autograd explorer (`tensorcli grad`, `graph`, `modes`) as plain data.

EXPR is run by ``services.expr`` (a whitelist interpreter: statements separated by ``;``, the
last one is the result); nothing else ever executes user text. The JSON layout of each report is
documented in tensorcli/commands/autograd.py. No Typer, no Rich here: render/autograd.py draws
the reports, commands/autograd.py parses options.
"""
from __future__ import annotations

import ast
import re
import warnings
from contextlib import contextmanager

import core
from core import dtypes, memory
from core.autograd.function import AccumulateGrad, BackwardCFunction
from core.memory import format_bytes

from .. import io
from ..errors import USER_EXCEPTIONS, CliError, describe
from . import expr
from . import limits, vocab
from .functions import CALLABLES


DEFAULT_MAX_BYTES = 2 * 1024 ** 3
DEFAULT_MAX_DEPTH = 100
MAX_JSON_ELEMENTS = 1_000_000
NON_LEAF_NOTE = "non-leaf: .grad is not populated; use --retain-grad NAME"
RESULT_NAME = "(result)"

# mode key -> label shown in tables
# mode key (the Python API's name, as in `memory --json`) -> label shown in tables
MODES = {
    "grad": "grad",
    "no_grad": "no_grad",
    "enable_grad": "no_grad+enable_grad",
    "set_grad_enabled": "set_grad_enabled(False)",
    "inference_mode": "inference_mode",
}

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RESERVED = frozenset({"torch", "core", "F", "nn", "MultiplyAdd", "GradientRescale"})



def _node_name(fn):
    """A node's name as PyTorch prints it in a tensor repr: 'torch::autograd::CopySlices' -> 'CopySlices'."""
    return fn.name().replace("torch::autograd::", "")

def _cli_error(arg, message):
    return CliError(arg, message)


def _first_line(e: BaseException) -> str:
    text = describe(e)
    return text.splitlines()[0] if text else type(e).__name__


def parse_max_bytes(text) -> int:
    """'2GiB', '512M', '1000000' -> bytes (binary units); None: the limit in force (services.limits)."""
    return limits.effective(text)


def split_names(option: str, values) -> list:
    """'x,w' (repeatable) -> ['x', 'w'], each a valid name."""
    out = []
    for v in values or ():
        for name in str(v).split(","):
            name = name.strip()
            if not name:
                continue
            if not (_NAME.match(name) or re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*\[\d+\]", name)):
                raise _cli_error(option, f"{name!r} is not a valid name")
            if name not in out:
                out.append(name)
    return out


def parse_let(value: str):
    """'name=TENSOR' -> (name, TENSOR)."""
    name, sep, spec = str(value).partition("=")
    name = name.strip()
    if not sep or not spec:
        raise _cli_error("--let", f"expected name=TENSOR, got {value!r}")
    if not _NAME.match(name):
        raise _cli_error("--let", f"{name!r} is not a valid name (letters, digits, _; not starting with _)")
    if name in _RESERVED:
        raise _cli_error("--let", f"{name!r} is reserved (module alias or built-in Function)")
    return name, spec


def load_lets(lets, dtype=None, stdin_used=None) -> dict:
    """--let values -> {name: Tensor}, loaded by tensorcli.io (``stdin_used``: io's per-command
    record of the argument reading stdin)."""
    out = {}
    stdin_used = [] if stdin_used is None else stdin_used
    for item in lets or ():
        name, spec = parse_let(item)
        if name in out:
            raise _cli_error("--let", f"{name!r} is given twice")
        out[name] = io.load_tensor(spec, arg=f"--let {name}", dtype=dtype, stdin_used=stdin_used)
    return out


def mark_requires_grad(names: dict, requires_grad) -> None:
    """Set requires_grad on the named --let leaves (PyTorch's error for non-floating dtypes)."""
    for name in requires_grad:
        if name not in names:
            known = ", ".join(names) or "none"
            raise _cli_error("--requires-grad", f"{name!r} is not a --let name (--let names: {known})")
        t = names[name]
        try:
            t.requires_grad_(True)
        except RuntimeError as e:
            raise _cli_error("--requires-grad", f"{name} ({t.dtype}): {_first_line(e)}") from e


@contextmanager
def allocation_limit(max_bytes: int):
    """core.set_allocation_limit(max_bytes) for the duration of the block."""
    old = core.set_allocation_limit(max_bytes)
    try:
        yield
    finally:
        core.set_allocation_limit(old)


def run_expression(source: str, names: dict, max_bytes: int = DEFAULT_MAX_BYTES, program=None):
    """Evaluate EXPR with the built-in Functions; (result, namespace). Refusals and errors raised by
    the expression become CliError('EXPR', ...), a shape error with its drawing (shape_errors.py)."""
    limits = expr.Limits(max_bytes=max_bytes)
    with expression_errors(source=source, names=names, max_bytes=max_bytes):
        if program is None:
            program = expr.parse(source, limits)
        result, namespace = expr.evaluate(program, names, extra_callables=CALLABLES, limits=limits)
    refuse_uninitialized(result, namespace)
    return result, namespace


@contextmanager
def expression_errors(arg: str = "EXPR", *, source=None, names=None, max_bytes=DEFAULT_MAX_BYTES):
    """Refusals (ExprError: 'line L, col C: why') and what the program raised ('line N: RuntimeError:
    torch's message' for a multi-line program) become one CliError naming ``arg``; with ``source``, a
    shape error also gets the failing statement and shapes drawn under it."""
    try:
        yield
    except expr.ExprError as e:
        raise _cli_error(arg, expr.located(e)) from e
    except RecursionError as e:
        raise _cli_error(arg, "expression nested too deeply") from e
    except Exception as e:  # noqa: BLE001 - what the program raised, or core's errors
        # AssertionError: also torch's own for absent devices ("Torch not compiled with CUDA enabled")
        line = expr.error_line(e)
        if line is None and not isinstance(e, USER_EXCEPTIONS + (ArithmeticError, AttributeError,
                                                                   NotImplementedError, AssertionError)):
            raise
        err = _cli_error(arg, f"{expr.error_prefix(e)}{type(e).__name__}: {_first_line(e)}")
        err.__cause__ = e
        if source is None:
            raise err from e
        from .shape_errors import attach   # only on failure: the failing statement and shapes, drawn
        raise attach(err, source, names, max_bytes) from e


def refuse_uninitialized(result, namespace):
    """An UninitializedParameter / UninitializedBuffer has no shape or values (torch raises on
    .shape), so no report can show it: refused by name."""
    from core.nn.parameter import is_lazy
    items = [("the result", result)] + [(repr(k), v) for k, v in namespace.items()]
    for name, value in items:
        for v in (value if isinstance(value, (tuple, list)) else (value,)):
            if isinstance(v, core.Tensor) and is_lazy(v):
                raise _cli_error("EXPR", f"{name} is an {type(v).__name__}: it has no shape or values "
                                         "until materialize(shape) or a lazy module's first call")


def parse_program(source: str, max_bytes: int):
    with expression_errors():
        return expr.parse(source, expr.Limits(max_bytes=max_bytes))


def _require_tensor(value, what="the expression's result"):
    if not isinstance(value, core.Tensor):
        raise _cli_error("EXPR", f"{what} is a {type(value).__name__}, not a tensor")
    return value


def named_tensors(namespace: dict, result, lets: dict | None = None) -> list:
    """[(name, tensor)] in namespace order (tuple/list values as name[i]). A --let tensor the
    expression rebound (``x = x * 2``) stays listed as 'x (--let)'; the result is added as
    '(result)' when no name holds it."""
    out = []
    for name, t in (lets or {}).items():
        if namespace.get(name) is not t:
            out.append((f"{name} (--let)", t))
    for name, value in namespace.items():
        if isinstance(value, core.Tensor):
            out.append((name, value))
        elif isinstance(value, (list, tuple)):
            out.extend((f"{name}[{i}]", v) for i, v in enumerate(value) if isinstance(v, core.Tensor))
    if isinstance(result, core.Tensor) and not any(t is result for _, t in out):
        out.append((RESULT_NAME, result))
    return out


def result_name(namespace: dict, result, program) -> str:
    """The name holding the result: the last statement's target when it is a plain name."""
    last = program.statements[-1]
    if isinstance(last, ast.Assign) and isinstance(last.targets[-1], ast.Name):
        name = last.targets[-1].id
        if namespace.get(name) is result:
            return name
    if isinstance(last, ast.AugAssign) and isinstance(last.target, ast.Name):
        if namespace.get(last.target.id) is result:
            return last.target.id
    return RESULT_NAME


# ---------------------------------------------------------------------------------------------
# Tensor info
# ---------------------------------------------------------------------------------------------

def jsonable_values(t):
    """Nested list of a tensor's values (NaN/Infinity as strings, as tensorcli.io writes them);
    None above the --json threshold (services.vocab; tensor_info then says truncated)."""
    if t is None or t.numel() > vocab.max_elements():
        return None
    return io.json_data(t.detach().numpy())


def _grad_of(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.grad


def grad_note(t) -> str | None:
    """Why .grad is None (or None when it is set)."""
    if _grad_of(t) is not None:
        return None
    if t.grad_fn is not None and not t.retains_grad:
        return NON_LEAF_NOTE
    if not t.requires_grad:
        return "does not require grad"
    return "not reached by backward"


def tensor_info(name: str, t) -> dict:
    g = _grad_of(t)
    return {
        "name": name,
        "shape": list(t.shape),
        "dtype": str(t.dtype),
        "is_leaf": bool(t.is_leaf),
        "requires_grad": bool(t.requires_grad),
        "grad_fn": _node_name(t.grad_fn) if t.grad_fn is not None else None,
        "retains_grad": bool(t.retains_grad),
        "is_inference": bool(t.is_inference()),
        "grad": jsonable_values(g),
        "truncated": g is not None and g.numel() > vocab.max_elements(),
        "summary": vocab.summary(g.detach().numpy()) if g is not None and g.numel() > vocab.max_elements()
        else None,
        "grad_text": str(g) if g is not None else None,
        "note": grad_note(t),
    }


# ---------------------------------------------------------------------------------------------
# grad
# ---------------------------------------------------------------------------------------------

def _lookup(option, name, tensors: dict):
    if name not in tensors:
        known = ", ".join(n for n in tensors if n != RESULT_NAME) or "none"
        raise _cli_error(option, f"unknown tensor {name!r} (named tensors: {known})")
    return tensors[name]


def _snapshot(tensors: dict) -> dict:
    return {n: jsonable_values(_grad_of(t)) for n, t in tensors.items()}


def _install_hooks(tensors, hooks, retain_grads, fired, current_pass, on_hook):
    """--hook NAME (records each gradient in `fired`, calls on_hook) and --retain-grad NAME."""
    for name in hooks:
        t = _lookup("--hook", name, tensors)

        def hook(grad, name=name):
            text = str(grad)
            fired.append({"name": name, "pass": current_pass[0], "grad": jsonable_values(grad), "text": text})
            if on_hook is not None:
                on_hook(name, text)
        try:
            t.register_hook(hook)
        except RuntimeError as e:
            raise _cli_error("--hook", f"{name}: {_first_line(e)}") from e
    for name in retain_grads:
        t = _lookup("--retain-grad", name, tensors)
        try:
            t.retain_grad()
        except RuntimeError as e:
            raise _cli_error("--retain-grad", f"{name}: {_first_line(e)}") from e


def _second_pass(second, second_name, g2, tensors) -> dict:
    """The second backward (--backward-twice / --then): its error is reported, not raised."""
    entry = {"of": second_name, "retain_graph": False, "gradient": jsonable_values(g2), "ok": True, "error": None}
    try:
        second.backward(g2)
    except (RuntimeError, TypeError, ValueError) as e:  # showing it is the point of the flag
        entry["ok"] = False
        entry["error"] = {"type": type(e).__name__, "message": str(e)}
        if "backward through the graph a second time" in str(e):
            entry["explanation"] = ("expected: the first backward freed the tensors the graph "
                                    "saved for backward; rerun with --retain-graph to keep them")
        else:
            entry["explanation"] = "the second backward failed"
    else:
        entry["explanation"] = ("the graph was retained, so the second backward ran and the leaves' "
                                ".grad accumulated the gradients of both passes")
    entry["grads"] = _snapshot(tensors)
    return entry


_NO_GRAD = "does not require grad and does not have a grad_fn"


def requires_grad_hint(msg: str, names: dict) -> str:
    """PyTorch's 'element 0 of tensors does not require grad' + what to type instead."""
    if _NO_GRAD not in msg or any(t.requires_grad for t in names.values()):
        return msg
    floats = [n for n, t in names.items() if t.dtype.is_floating_point] or ["NAME"]
    return (msg + f" (no input requires grad: mark the --let tensors to differentiate, "
                  f"e.g. --requires-grad {','.join(floats)})")


def backward_calls(program) -> list:
    """The `.backward(...)` calls EXPR makes itself: [receiver name or None]."""
    found = []
    for stmt in program.statements:
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "backward"):
                recv = node.func.value
                found.append(recv.id if isinstance(recv, ast.Name) else None)
    return found


_FILE = re.compile(r"(\.(npy|npz|json)(:[A-Za-z0-9_.-]+)?$)|^-$")


def resolve_gradient(text, target, tensors: dict, *, dtype=None, stdin_used=None, max_bytes=None):
    """--gradient: a tensor argument (literal, file, -), ``ones`` (torch.ones_like of the tensor
    backward is called on), or an expression over EXPR's names ('torch.ones_like(y)', '2 * y')."""
    if text is None:
        return None
    t = str(text).strip()
    if t in ("ones", "ones_like"):
        return core.ones_like(target)
    if _FILE.search(t) or not re.search(r"[A-Za-z_]\w*\s*[(.]|^[A-Za-z_]\w*$", t) or t in (
            "nan", "inf", "True", "False"):
        return io.load_tensor(t, arg="--gradient", dtype=dtype, stdin_used=stdin_used)
    names = {n: v for n, v in tensors.items() if n != RESULT_NAME and _NAME.match(n)}
    try:
        value, _ = run_expression(t, names, max_bytes or limits.effective(None))
    except CliError as e:
        raise _cli_error("--gradient", e.message) from e
    return _require_tensor(value, "--gradient")


def _expression_backward(source, names, result, ns, program, receivers, options) -> dict:
    """EXPR called backward itself: report the gradients it produced (no backward of ours)."""
    for opt, given in options.items():
        if given:
            raise _cli_error(opt, "EXPR calls .backward() itself; drop it from EXPR to use " + opt)
    tensors = dict(named_tensors(ns, result, names))
    tensors.pop(RESULT_NAME, None)
    of = next((r for r in receivers if r in tensors), None)
    shown = tensor_info(of, tensors[of]) if of else None
    passes = [{"of": of or "(expression)", "retain_graph": None, "gradient": None, "ok": True, "error": None,
               "grads": _snapshot(tensors), "explanation": "EXPR called backward itself",
               "called_by": "expression"}]
    return {"command": "grad", "expr": source, "result": shown,
            "tensors": [tensor_info(n, t) for n, t in tensors.items()], "backward": passes, "hooks": []}


def grad_report(source: str, names: dict, *, gradient=None, retain_graph: bool = False,
                backward_twice: bool = False, hooks=(), retain_grads=(), of: str | None = None,
                then: str | None = None, on_hook=None, max_bytes: int = DEFAULT_MAX_BYTES,
                dtype=None, stdin_used=None) -> dict:
    """Evaluate, backward (once or twice), and report every named tensor. ``on_hook(name, text)``
    is called as each --hook fires. An EXPR that calls ``.backward(...)`` itself is reported as is.
    ``gradient``: a Tensor, or --gradient's text (see resolve_gradient)."""
    program = parse_program(source, max_bytes)
    receivers = backward_calls(program)
    with allocation_limit(max_bytes):
        try:
            result, ns = run_expression(source, names, max_bytes, program)
        except CliError as e:
            err = _cli_error(e.arg, requires_grad_hint(e.message, names))
            err.detail = getattr(e, "detail", None)    # a shape error's drawing (services/shape_errors.py)
            raise err from e
        if receivers and not isinstance(result, core.Tensor):
            return _expression_backward(source, names, result, ns, program, receivers, {
                "--gradient": gradient is not None, "--of": of, "--then": then, "--hook": hooks,
                "--retain-grad": retain_grads, "--backward-twice": backward_twice, "--retain-graph": retain_graph})
        _require_tensor(result)
        rname = result_name(ns, result, program)
        pairs = named_tensors(ns, result, names)
        tensors = dict(pairs)
        if rname == RESULT_NAME:
            tensors[RESULT_NAME] = result
        target_name = of or rname
        target = _require_tensor(_lookup("--of", target_name, tensors), f"--of {target_name}")
        second_name = then or target_name
        second = _require_tensor(_lookup("--then", second_name, tensors), f"--then {second_name}")
        backward_twice = backward_twice or then is not None
        if gradient is not None and not isinstance(gradient, core.Tensor):
            gradient = resolve_gradient(gradient, target, tensors, dtype=dtype, stdin_used=stdin_used,
                                        max_bytes=max_bytes)

        fired = []
        current_pass = [1]
        _install_hooks(tensors, hooks, retain_grads, fired, current_pass, on_hook)

        passes = []
        try:
            target.backward(gradient, retain_graph=True if retain_graph else None)
        except (RuntimeError, TypeError, ValueError) as e:
            msg = requires_grad_hint(_first_line(e), names)
            arg = ("--gradient" if gradient is not None and "shape" in msg else
                   "--of" if of is not None else "EXPR")
            if "implicitly created only for scalar outputs" in msg:
                msg += (f" ({target_name} has shape {list(target.shape)}; pass --gradient with that shape, "
                        f"or --gradient ones)")
            raise _cli_error(arg, f"{target_name}.backward(): {msg}") from e
        passes.append({"of": target_name, "retain_graph": bool(retain_graph),
                       "gradient": jsonable_values(gradient), "ok": True, "error": None,
                       "grads": _snapshot(tensors), "explanation": None, "called_by": "command"})

        if backward_twice:
            current_pass[0] = 2
            passes.append(_second_pass(second, second_name, gradient if second is target else None, tensors))

        return {
            "command": "grad",
            "expr": source,
            "result": tensor_info(rname, result),
            "tensors": [tensor_info(n, t) for n, t in tensors.items()],
            "backward": passes,
            "hooks": fired,
        }


# ---------------------------------------------------------------------------------------------
# graph
# ---------------------------------------------------------------------------------------------

def _np_dtype_name(a) -> str:
    try:
        return str(dtypes.from_numpy_dtype(a.dtype))
    except TypeError:
        return str(a.dtype)


def _saved_records(node, names_by_array: dict, names_by_tensor: dict) -> list:
    out = []
    for s in node._saved_items():
        name = None
        if s.tensor is not None:
            name = names_by_tensor.get(id(s.tensor))
        if name is None:
            name = names_by_array.get(id(s.data))
        out.append({"name": name, "shape": list(s.data.shape), "dtype": _np_dtype_name(s.data),
                    "bytes": int(s.data.nbytes), "is_output": bool(s.is_output)})
    return out


def build_graph(root_fn, tensors: dict, max_depth: int = DEFAULT_MAX_DEPTH):
    """Nested dicts from ``root_fn`` through next_functions (iterative; shared nodes once)."""
    names_by_tensor = {}
    names_by_array = {}
    for n, t in tensors.items():
        names_by_tensor.setdefault(id(t), n)
        names_by_array.setdefault(id(t._data), n)
    ids = {}
    root = {}
    stack = [(root, root_fn, 0)]
    while stack:
        d, fn, depth = stack.pop()
        d["name"] = _node_name(fn)
        if id(fn) in ids:
            d["id"] = ids[id(fn)]
            d["ref"] = True
            continue
        d["id"] = ids[id(fn)] = len(ids)
        if isinstance(fn, AccumulateGrad):
            v = fn.variable
            d["variable"] = names_by_tensor.get(id(v))
            d["shape"] = list(v.shape)
            d["dtype"] = str(v.dtype)
            continue
        d["saved"] = [] if fn._freed else _saved_records(fn, names_by_array, names_by_tensor)
        if fn._freed:
            d["freed"] = True
        if isinstance(fn, BackwardCFunction):
            d["custom"] = True
            d["needs_input_grad"] = [bool(b) for b in getattr(fn, "needs_input_grad", ())]
        if depth >= max_depth:
            d["truncated"] = True
            d["next"] = []
            continue
        children = []
        pending = []
        for child, _ in fn.next_functions:
            if child is None:
                children.append(None)
            else:
                cd = {}
                children.append(cd)
                pending.append((cd, child, depth + 1))
        d["next"] = children
        stack.extend(reversed(pending))
    return root, ids


def graph_report(source: str, names: dict, *, max_depth: int = DEFAULT_MAX_DEPTH,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> dict:
    """The autograd graph behind the result, from the result back to the leaves."""
    program = parse_program(source, max_bytes)
    with allocation_limit(max_bytes):
        result, ns = run_expression(source, names, max_bytes, program)
        _require_tensor(result)
        rname = result_name(ns, result, program)
        tensors = dict(named_tensors(ns, result, names))
        if result.grad_fn is None:
            graph = None
            note = ("the result is a leaf that requires grad: its graph is just AccumulateGrad"
                    if result.requires_grad else
                    "the result does not require grad, so no graph was recorded "
                    "(mark inputs with --requires-grad)")
        else:
            graph, _ = build_graph(result.grad_fn, tensors, max_depth)
            note = None
        inv = memory.graph_inventory(result, held=list(names.values()))
        return {
            "command": "graph",
            "expr": source,
            "result": tensor_info(rname, result),
            "graph": graph,
            "graph_nodes": inv.nodes,
            "leaves": inv.leaves,
            "saved_tensors": inv.saved_tensors,
            "saved_bytes": inv.saved_bytes,
            "note": note,
        }


# ---------------------------------------------------------------------------------------------
# modes
# ---------------------------------------------------------------------------------------------

@contextmanager
def mode_context(key: str):
    if key == "grad":
        with core.enable_grad():
            yield
    elif key == "no_grad":
        with core.no_grad():
            yield
    elif key == "enable_grad":
        with core.no_grad():
            with core.enable_grad():
                yield
    elif key == "set_grad_enabled":
        with core.set_grad_enabled(False):
            yield
    elif key == "inference_mode":
        with core.inference_mode():
            yield
    else:  # pragma: no cover - keys come from MODES
        raise ValueError(key)


def _fresh(names: dict) -> dict:
    """New leaves with the same values and requires_grad, so in-place ops in one mode's run
    cannot leak into the next."""
    out = {}
    for n, t in names.items():
        c = t.detach().clone()
        if t.requires_grad:
            c.requires_grad_(True)
        out[n] = c
    return out


def modes_report(source: str, names: dict, *, max_bytes: int = DEFAULT_MAX_BYTES) -> dict:
    """Run EXPR under each grad mode and tabulate what the result carries."""
    program = parse_program(source, max_bytes)
    rows = []
    with allocation_limit(max_bytes):
        for key, label in MODES.items():
            row = {"mode": key, "label": label, "ok": True, "error": None, "requires_grad": None,
                   "grad_fn": None, "is_leaf": None, "is_inference": None, "graph_nodes": 0,
                   "saved_tensors": 0, "saved_bytes": 0}
            inputs = _fresh(names)
            try:
                with mode_context(key):
                    result, _ = run_expression(source, inputs, max_bytes, program)
            except CliError as e:
                if isinstance(e.__cause__, expr.ExprError):
                    raise   # a refusal does not depend on the mode
                row["ok"] = False
                row["error"] = e.message
                rows.append(row)
                continue
            if not isinstance(result, core.Tensor):
                raise _cli_error("EXPR", f"the expression's result is a {type(result).__name__}, "
                                         "not a tensor")
            inv = memory.graph_inventory(result, held=list(inputs.values()))
            row.update(requires_grad=bool(result.requires_grad),
                       grad_fn=_node_name(result.grad_fn) if result.grad_fn is not None else None,
                       is_leaf=bool(result.is_leaf), is_inference=bool(result.is_inference()),
                       graph_nodes=inv.nodes, saved_tensors=inv.saved_tensors, saved_bytes=inv.saved_bytes)
            rows.append(row)
            del result, inv, inputs
    if not any(r["ok"] for r in rows):
        errors = {r["error"] for r in rows}
        if len(errors) == 1:
            raise _cli_error("EXPR", rows[0]["error"])
    return {"command": "modes", "expr": source, "modes": rows, "summary": modes_summary(rows)}


def _join(items) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def modes_summary(rows) -> str:
    """One sentence stating what the modes table shows."""
    ok = [r for r in rows if r["ok"]]
    failed = [r for r in rows if not r["ok"]]
    graph = [r for r in ok if r["grad_fn"] is not None]
    none = [r for r in ok if r["grad_fn"] is None]
    parts = []
    if not graph:
        if any(r["requires_grad"] for r in ok):
            parts.append("No mode records a graph: the result is a leaf, so no operation was recorded")
        else:
            parts.append("No mode records a graph: nothing the result depends on requires grad "
                         "(mark inputs with --requires-grad)")
    else:
        nodes = max(r["graph_nodes"] for r in graph)
        saved = max(r["saved_bytes"] for r in graph)
        parts.append(f"{_join(r['label'] for r in graph)} record{'s' if len(graph) == 1 else ''} a graph "
                     f"({nodes} node{'s' if nodes != 1 else ''}, {format_bytes(saved)} saved for backward)")
        if none:
            parts.append(f"{_join(r['label'] for r in none)} build{'s' if len(none) == 1 else ''} none")
    if any(r["is_inference"] for r in ok):
        parts.append("inference_mode results are inference tensors, which cannot be used later in autograd")
    if failed:
        parts.append(f"the expression fails under {_join(r['label'] for r in failed)} (errors above)")
    return "; ".join(parts) + "."


def load_inputs(let, requires_grad, dtype, stdin_used) -> dict:
    """The --let tensors (cast to --dtype) with --requires-grad marked."""
    dt = io.parse_dtype(dtype) if dtype is not None else None
    names = load_lets(let, dt, stdin_used)
    mark_requires_grad(names, split_names("--requires-grad", requires_grad))
    return names
