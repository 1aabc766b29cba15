"""`tensorcli grad --steps`: the backward pass as the engine runs it, node by node, as plain data.

Observed through PyTorch's public hooks only, so the same trace can be taken from torch: every
graph node gets a pre-hook (``Node.register_prehook``: fires when the engine starts the node, with
the gradients it received after the tensors' own hooks) and a post-hook (``Node.register_hook``:
the gradients it sends along each edge of ``next_functions``); each leaf gets a
``register_post_accumulate_grad_hook`` (its ``.grad`` after accumulation). The tensors' hooks
(``Tensor.register_hook``) are wrapped for the pass, so each firing is recorded with what it
returned; the gradient a node received *before* those hooks is the sum of what its producers sent.
All hooks are removed (and wrapped hooks restored) when the pass ends, whether it raised or not.

A trace is ``{"of", "retain_graph", "gradient", "ok", "error", "steps"}``; a step is one node in
execution order (docs/json.md, ``tensorcli.grad-steps/2``). No Typer, no Rich here.
"""
from __future__ import annotations

import ast

import numpy as np

import core
from core.autograd.function import AccumulateGrad

from ..errors import CliError
from . import autograd as ag
from .autograd import jsonable_values
from .text import fmt_value

__all__ = ["BackwardTracer", "trace_backward", "collect_nodes", "steps_report"]


def _name(fn) -> str:
    return fn.name().replace("torch::autograd::", "")


def _values(g):
    """A gradient as JSON data (None stays None); copied now, so later in-place accumulation
    into a stolen buffer cannot change what was recorded."""
    if g is None:
        return None
    if not isinstance(g, core.Tensor):
        g = core.Tensor._make(np.array(g))
    return jsonable_values(g.detach())


def collect_nodes(roots) -> list:
    """Every node reachable from ``roots`` (grad_fn or AccumulateGrad) through next_functions,
    each once, in discovery order."""
    seen, order, stack = set(), [], list(reversed([r for r in roots if r is not None]))
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        stack.extend(child for child, _ in reversed(fn.next_functions) if child is not None)
    return order


class BackwardTracer:
    """Context manager: hooks every node of the graphs behind ``roots`` (tensors) and records one
    step per node the engine runs. ``names``: {name: tensor} to label nodes, edges and leaves."""

    def __init__(self, roots, names: dict):
        self.names = names
        self.steps: list = []
        self._handles: list = []
        self._restore: list = []
        self._by_node: dict = {}      # id(node) -> step (this pass)
        self._incoming: dict = {}     # (id(node), output_nr) -> raw gradient sum (np array)
        self._ids: dict = {}
        self._label_out = {}          # (id(grad_fn), output_nr) -> tensor name
        self._label_leaf = {}         # id(leaf) -> name
        for n, t in names.items():
            if not isinstance(t, core.Tensor):
                continue
            if t.grad_fn is not None:
                self._label_out.setdefault((id(t.grad_fn), t._output_nr), n)
            else:
                self._label_leaf.setdefault(id(t), n)
        grad_roots = []
        for t in roots:
            if t.grad_fn is not None:
                grad_roots.append(t.grad_fn)
            elif t.requires_grad:
                grad_roots.append(t._get_accumulator())
        self.nodes = collect_nodes(grad_roots)
        for i, fn in enumerate(self.nodes):
            self._ids[id(fn)] = i

    # -- labels ---------------------------------------------------------------------------
    def _tensor_label(self, fn, nr):
        if isinstance(fn, AccumulateGrad):
            return self._label_leaf.get(id(fn.variable))
        return self._label_out.get((id(fn), nr))

    def _saved(self, fn) -> list:
        by_tensor = {id(t): n for n, t in self.names.items() if isinstance(t, core.Tensor)}
        by_array = {id(t._data): n for n, t in self.names.items() if isinstance(t, core.Tensor)}
        out = []
        for s in fn._saved_items():
            name = by_tensor.get(id(s.tensor)) if s.tensor is not None else None
            if name is None:
                name = by_array.get(id(s.data))
            if name is None and s.is_output:
                name = self._tensor_label(fn, s.output_nr)
            out.append({"name": name, "role": "result" if s.is_output else "input",
                        "shape": list(s.data.shape), "dtype": str(core.dtypes.from_numpy_dtype(s.data.dtype))
                        if s.data.dtype.kind != "O" else str(s.data.dtype)})
        return out

    # -- hooks ----------------------------------------------------------------------------
    def _step(self, fn):
        st = self._by_node.get(id(fn))
        if st is None:
            leaf = isinstance(fn, AccumulateGrad)
            st = {"step": len(self.steps) + 1, "id": self._ids.get(id(fn)), "node": _name(fn),
                  "tensors": [], "received": [], "hooks": [], "saved": [], "freed_before": bool(fn._freed),
                  "freed": None, "sent": [], "variable": None, "grad_before": None, "grad_after": None,
                  "error": None}
            if leaf:
                st["variable"] = self._label_leaf.get(id(fn.variable))
                st["tensors"] = [st["variable"]]
            else:
                st["tensors"] = [self._tensor_label(fn, nr) for nr in range(len(fn._output_meta))]
                st["saved"] = [] if fn._freed else self._saved(fn)
            self.steps.append(st)
            self._by_node[id(fn)] = st
        return st

    def _pre(self, fn):
        def hook(grads):
            st = self._step(fn)
            st["received"] = [{"output_nr": nr, "tensor": self._tensor_label(fn, nr),
                               "before_hooks": _values(self._incoming.get((id(fn), nr))),
                               "grad": _values(g)} for nr, g in enumerate(grads)]
            if isinstance(fn, AccumulateGrad):
                st["grad_before"] = _values(fn.variable.grad)
            return None
        return hook

    def _post(self, fn):
        def hook(grad_inputs, grad_outputs):
            st = self._step(fn)
            sent = []
            for i, ((child, nr), g) in enumerate(zip(fn.next_functions, grad_inputs)):
                sent.append({"edge": i, "to": _name(child) if child is not None else None,
                             "to_id": self._ids.get(id(child)) if child is not None else None,
                             "input_nr": nr if child is not None else None,
                             "tensor": self._tensor_label(child, nr) if child is not None else None,
                             "grad": _values(g)})
                if child is not None and g is not None:
                    key = (id(child), nr)
                    arr = np.array(g._data if isinstance(g, core.Tensor) else g)
                    prev = self._incoming.get(key)
                    self._incoming[key] = arr if prev is None else prev + arr
            st["sent"] = sent
            return None
        return hook

    def _post_accumulate(self, fn):
        def hook(leaf):
            self._step(fn)["grad_after"] = _values(leaf.grad)
        return hook

    def _wrap_tensor_hooks(self, store, fn, nr):
        """Record each firing of the tensor's own hooks (Tensor.register_hook) during the pass."""
        if not store:
            return
        label = self._tensor_label(fn, nr)
        for hid, user_hook in list(store.items()):
            def wrapped(grad, user_hook=user_hook):
                r = user_hook(grad)
                self._step(fn)["hooks"].append({"tensor": label, "grad": _values(grad),
                                                "returned": _values(r) if isinstance(r, core.Tensor) else None})
                return r
            store[hid] = wrapped
            self._restore.append((store, hid, user_hook))

    def __enter__(self):
        for fn in self.nodes:
            if isinstance(fn, AccumulateGrad):
                self._handles.append(fn.register_prehook(self._pre(fn)))
                v = fn.variable
                self._handles.append(v.register_post_accumulate_grad_hook(self._post_accumulate(fn)))
                self._wrap_tensor_hooks(v._hooks, fn, 0)
            else:
                self._handles.append(fn.register_prehook(self._pre(fn)))
                self._handles.append(fn.register_hook(self._post(fn)))
            for nr, store in (fn._tensor_hooks or {}).items():
                self._wrap_tensor_hooks(store, fn, nr)
        return self

    def seed(self, target, gradient):
        """The gradient backward starts from (what the root node receives before its hooks)."""
        fn = target.grad_fn if target.grad_fn is not None else target._get_accumulator()
        nr = target._output_nr if target.grad_fn is not None else 0
        g = gradient._data if isinstance(gradient, core.Tensor) else np.ones(tuple(target.shape),
                                                                              target._data.dtype)
        self._incoming[(id(fn), nr)] = np.array(g)

    def __exit__(self, exc_type, exc, tb):
        for h in self._handles:
            h.remove()
        for store, hid, user_hook in self._restore:
            if hid in store:
                store[hid] = user_hook
        for st in self.steps:
            fn = self.nodes[st["id"]] if st["id"] is not None else None
            if fn is not None and not isinstance(fn, AccumulateGrad):
                st["freed"] = bool(fn._freed)
        if exc is not None and self.steps:
            last = self.steps[-1]
            if not last["sent"] and last["node"] != "AccumulateGrad":
                last["error"] = {"type": type(exc).__name__, "message": str(exc)}
        return False


def trace_backward(target, names: dict, *, of: str, gradient=None, retain_graph=None) -> dict:
    """``target.backward(gradient, retain_graph=...)`` under a BackwardTracer; torch's error (a second
    backward through freed buffers...) is recorded, not raised."""
    trace = {"of": of, "retain_graph": bool(retain_graph), "gradient": jsonable_values(gradient),
             "ok": True, "error": None, "steps": []}
    tracer = BackwardTracer([target], names)
    try:
        with tracer:
            tracer.seed(target, gradient)
            target.backward(gradient, retain_graph=retain_graph)
    except (RuntimeError, TypeError, ValueError) as e:
        trace["ok"] = False
        trace["error"] = {"type": type(e).__name__, "message": str(e)}
    trace["steps"] = tracer.steps
    return trace


# ---------------------------------------------------------------------------------------------
# `tensorcli grad --steps`: the report
# ---------------------------------------------------------------------------------------------

def _backward_call(stmt):
    """The `NAME.backward(...)` call a top-level statement makes, or None."""
    node = stmt.value if isinstance(stmt, ast.Expr) else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
            and isinstance(node.func.value, ast.Name)):
        return node
    return None


def _call_args(call, source, ns, max_bytes):
    """(gradient, retain_graph) as the statement passes them (evaluated by the safe language)."""
    grad_node = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "gradient"), None)
    retain_node = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "retain_graph"), None)
    create = next((k.value for k in call.keywords if k.arg == "create_graph"), None)

    def value(node):
        if node is None:
            return None
        v, _ = ag.run_expression(ast.get_source_segment(source, node), ns, max_bytes)
        return v
    retain = value(retain_node)
    if retain is None and create is not None:
        retain = value(create)
    return value(grad_node), retain


def _program_steps(source, names, program, max_bytes):
    """EXPR calls `.backward()` itself: run it statement by statement; each backward statement runs
    under a tracer (its error, e.g. a second backward through freed buffers, ends the program)."""
    ns = dict(names)
    passes = []
    result = None
    for stmt in program.statements:
        seg = ast.get_source_segment(source, stmt)
        call = _backward_call(stmt)
        if call is None or not isinstance(ns.get(call.func.value.id), core.Tensor):
            result, ns = ag.run_expression(seg, ns, max_bytes)
            continue
        of = call.func.value.id
        gradient, retain = _call_args(call, source, ns, max_bytes)
        tensors = dict(ag.named_tensors(ns, None, names))
        trace = trace_backward(ns[of], tensors, of=of, gradient=gradient, retain_graph=retain)
        trace["statement"] = seg
        passes.append(trace)
        if not trace["ok"]:
            break
    return result, ns, passes


def steps_report(source: str, names: dict, *, gradient=None, retain_graph: bool = False,
                 backward_twice: bool = False, of: str | None = None, then: str | None = None,
                 hooks=(), retain_grads=(), max_bytes: int = ag.DEFAULT_MAX_BYTES, dtype=None,
                 stdin_used=None) -> dict:
    """`tensorcli grad --steps`: every backward pass (the command's, or the ones EXPR makes) traced
    node by node. Layout: docs/json.md, ``tensorcli.grad-steps/2``."""
    program = ag.parse_program(source, max_bytes)
    with ag.allocation_limit(max_bytes):
        if ag.backward_calls(program):
            for opt, given in {"--gradient": gradient is not None, "--of": of, "--then": then, "--hook": hooks,
                               "--retain-grad": retain_grads, "--backward-twice": backward_twice,
                               "--retain-graph": retain_graph}.items():
                if given:
                    raise CliError(opt, "EXPR calls .backward() itself; drop it from EXPR to use " + opt)
            result, ns, passes = _program_steps(source, names, program, max_bytes)
            tensors = dict(ag.named_tensors(ns, None, names))
            rname = None
        else:
            result, ns = ag.run_expression(source, names, max_bytes, program)
            ag._require_tensor(result)
            rname = ag.result_name(ns, result, program)
            tensors = dict(ag.named_tensors(ns, result, names))
            target_name = of or rname
            target = ag._require_tensor(ag._lookup("--of", target_name, tensors), f"--of {target_name}")
            if gradient is not None and not isinstance(gradient, core.Tensor):
                gradient = ag.resolve_gradient(gradient, target, tensors, dtype=dtype, stdin_used=stdin_used,
                                               max_bytes=max_bytes)
            ag._install_hooks(tensors, hooks, retain_grads, [], [1], None)   # --hook: seen firing in the steps
            first = trace_backward(target, tensors, of=target_name, gradient=gradient,
                                   retain_graph=True if retain_graph else None)
            if not first["ok"] and not first["steps"]:
                msg = ag.requires_grad_hint(first["error"]["message"].splitlines()[0], names)
                if "implicitly created only for scalar outputs" in msg:
                    msg += (f" ({target_name} has shape {list(target.shape)}; pass --gradient with that shape, "
                            "or --gradient ones)")
                raise CliError("--gradient" if gradient is not None else "EXPR", f"{target_name}.backward(): {msg}")
            passes = [first]
            if (backward_twice or then is not None) and first["ok"]:
                second_name = then or target_name
                second = ag._require_tensor(ag._lookup("--then", second_name, tensors), f"--then {second_name}")
                passes.append(trace_backward(second, tensors, of=second_name,
                                             gradient=gradient if second is target else None))
        for i, p in enumerate(passes, 1):
            p["pass"] = i
            p.setdefault("statement", None)
        return {"command": "grad", "expr": source,
                "result": ag.tensor_info(rname, result) if rname is not None else None,
                "tensors": [ag.tensor_info(n, t) for n, t in tensors.items()],
                "passes": passes, "explanation": explain(passes)}


def explain(passes) -> list:
    """Sentences saying why each leaf's .grad is what it is (hooks that changed a gradient, several
    contributions summed, accumulation over passes, a pass that failed)."""
    out = []
    for p in passes:
        tag = f"pass {p['pass']} ({p['of']}.backward)"
        for st in p["steps"]:
            for h in st["hooks"]:
                if h["returned"] is not None and h["returned"] != h["grad"]:
                    out.append(f"{tag}: a hook on {h['tensor'] or st['node']} replaced the gradient "
                               f"{_short(h['grad'])} with {_short(h['returned'])}")
            if st["node"] == "AccumulateGrad" and st["received"]:
                name = st["variable"] or "a leaf"
                got = st["received"][0]["grad"]
                if st["grad_before"] is None:
                    out.append(f"{tag}: {name}.grad was None, so it becomes the gradient received: {_short(got)}")
                else:
                    out.append(f"{tag}: {name}.grad accumulates: {_short(st['grad_before'])} + {_short(got)} = "
                               f"{_short(st['grad_after'])}")
        if not p["ok"]:
            where = next((st["node"] for st in p["steps"] if st["error"]), None)
            out.append(f"{tag} failed{' at ' + where if where else ''}: {p['error']['type']}: "
                       f"{p['error']['message'].split('. ')[0].split(' (')[0]}")
    return out


def _short(v) -> str:
    """Values as PyTorch writes them compactly ([2., 4.]), cut at 60 characters."""
    def nested(x):
        return "[" + ", ".join(nested(i) for i in x) + "]" if isinstance(x, list) else fmt_value(x)
    text = nested(v) if v is not None else "None"
    return text if len(text) <= 60 else text[:57] + "..."
