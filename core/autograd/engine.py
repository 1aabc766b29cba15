"""The backward engine: dependency counting, a ready queue ordered like PyTorch's CPU
engine (most recently created node first), hooks, retain_graph, create_graph and the
input capture that `autograd.grad` needs."""
from __future__ import annotations

import heapq
import itertools

import numpy as np

from .._grad_mode import STATE
from ..tensor import Size, Tensor
from . import node as _node
from .anomaly_mode import STATE as ANOMALY
from .node import AccumulateGrad, get_accumulator

# Ties in the ready queue (AccumulateGrad nodes all share the top sequence number) go first-queued
# first, as torch's std::priority_queue pops equal nodes in the cases a graph meets (not by address).
_QUEUED = itertools.count()


def _make_root_grads(outputs, grad_outputs, create_graph=True):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind != "f":
                    raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                       f"but got {out.dtype}")
                d = out._data
                g = np.array(1, dtype=d.dtype) if not d.shape else np.ones(d.shape, dtype=d.dtype)
                if create_graph:
                    g = Tensor._make(g)     # otherwise a bare array, as the engine passes gradients on
        else:
            if not isinstance(g, Tensor):
                g = Tensor._make(np.asarray(g, dtype=out._data.dtype))
            if g._data.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} "
                                   f"and output[{i}] has a shape of {Size(out._data.shape)}.")
        grads.append(g)
    return grads


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True):
    """Run the graph backward from `outputs`. With accumulate=True, leaves (or only
    `inputs`, when given) get `.grad`; with accumulate=False, return the gradients of
    `inputs` (autograd.grad)."""
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if (inputs is None and not create_graph and len(outputs) == 1 and grad_outputs[0] is None
            and outputs[0].grad_fn is not None):
        _backward_scalar(outputs[0], bool(retain_graph))
        return None
    grads = _make_root_grads(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    capture = _capture_points(inputs)
    captured = [None] * (len(inputs) if inputs is not None else 0)
    roots, buffers = _root_buffers(outputs, grads)
    deps = _dependencies(roots)
    needed = _needed_nodes(roots, {n for n, _ in capture}) if inputs is not None else None
    ready = [(-r._seq, next(_QUEUED), r) for r in roots if deps.get(r, 0) == 0]
    heapq.heapify(ready)
    leaves_wanted = None if not accumulate else (capture if inputs is not None else True)
    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = bool(create_graph)
    try:
        _execute(ready, buffers, deps, capture, captured, needed, leaves_wanted, retain_graph, create_graph)
    finally:
        STATE.grad_enabled = prev_mode
    if inputs is not None and not accumulate:
        return _captured_result(captured, allow_unused, create_graph)
    return None


def _backward_scalar(out, retain_graph):
    """loss.backward(): run_backward for one non-leaf output with an implicit gradient, without the
    general bookkeeping (captures, several roots, create_graph)."""
    d = out._data
    if d.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if d.dtype.kind != "f":
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
    root = out.grad_fn
    buf = [None] * len(root._output_meta)
    buf[out._output_nr] = np.array(1, dtype=d.dtype) if not d.shape else np.ones(d.shape, dtype=d.dtype)
    deps = _dependencies([root])
    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        _execute([(-root._seq, 0, root)], {root: buf}, deps, None, None, None, True, retain_graph, False)
    finally:
        STATE.grad_enabled = prev_mode


def _capture_points(inputs):
    """(node, output_nr) -> indices into `inputs`: where autograd.grad / backward(inputs=) read."""
    capture = {}
    for k, t in enumerate(inputs or ()):
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node = t.grad_fn if t.grad_fn is not None else get_accumulator(t)
        nr = t._output_nr if t.grad_fn is not None else 0
        capture.setdefault((node, nr), []).append(k)
    return capture


def _root_buffers(outputs, grads):
    roots, buffers = [], {}
    for out, g in zip(outputs, grads):
        node = out.grad_fn if out.grad_fn is not None else get_accumulator(out)
        nr = out._output_nr if out.grad_fn is not None else 0
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * len(node._output_meta)
            roots.append(node)
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    return roots, buffers


def _dependencies(roots):
    """How many edges lead into each node reachable from the roots (a node is walked when first counted;
    a root reached from another root is already on the stack)."""
    deps = {}
    rootset = set(roots) if len(roots) > 1 else roots
    stack = list(roots)
    pop, push, get = stack.pop, stack.append, deps.get
    while stack:
        n = pop()
        nxt = n._next
        if nxt is None:     # one edge (most nodes): no tuple to slice
            fn = n._fn0
            if fn is None:
                continue
            c = get(fn)
            if c is None:
                deps[fn] = 1
                if fn not in rootset:
                    push(fn)
            else:
                deps[fn] = c + 1
            continue
        for fn in nxt[::2]:
            if fn is None:
                continue
            c = get(fn)
            if c is None:
                deps[fn] = 1
                if fn not in rootset:
                    push(fn)
            else:
                deps[fn] = c + 1
    return deps


def _execute(ready, buffers, deps, capture, captured, needed, leaves_wanted, retain_graph, create_graph):
    """The ready-queue loop: most recently created node first, as PyTorch's CPU engine runs it."""
    if capture is None and needed is None and leaves_wanted is True and not create_graph and not ANOMALY["enabled"]:
        return _execute_plain(ready, buffers, deps, retain_graph)
    heappop = heapq.heappop
    while ready:
        node = heappop(ready)[2]
        gs = buffers.pop(node)
        is_acc = type(node) is AccumulateGrad
        if node._hooked or (is_acc and node.variable._hooks):   # _hooked: some hook was ever registered
            if node._tensor_hooks or node._pre_hooks or node._retain_hooks or (is_acc and node.variable._hooks):
                gs = _call_pre_hooks(node, _node._as_tensors(gs))
        if capture:
            gs = _node._as_tensors(gs)
            for nr, g in enumerate(gs):
                for k in capture.get((node, nr), ()):
                    captured[k] = g
        if is_acc:
            if leaves_wanted is True or (leaves_wanted and (node, 0) in leaves_wanted):
                node._accumulate(gs[0], create_graph)
                if node.variable.__dict__ and gs[0] is not None:
                    _post_accumulate(node.variable)
            continue
        if needed is not None and node not in needed:
            continue
        if (len(gs) == 1 and gs[0] is not None and not create_graph and node.backward_np is not None
                and not node._post_hooks):
            out_grads = node._run_backward_np(gs)    # the common case: one NumPy gradient in, NumPy out
        else:
            out_grads = _node_grads(node, gs)
        if ANOMALY["enabled"] and ANOMALY["check_nan"]:
            _check_nan(node, out_grads)
        if not retain_graph and node._saved is not None:
            node._release()
        _propagate(node, out_grads, buffers, deps, ready)
        out_grads = None   # drop this frame's references: AccumulateGrad steals unshared arrays


def _execute_plain(ready, buffers, deps, retain_graph):
    """_execute for loss.backward() and the like: no captures, every leaf accumulates, no graph of the
    gradients (the checks those need are left out of the loop; propagation inlined, one edge first)."""
    heappop, heappush = heapq.heappop, heapq.heappush
    while ready:
        node = heappop(ready)[2]
        gs = buffers.pop(node)
        if type(node) is AccumulateGrad:
            if node._hooked or node.variable._hooks:
                if node._tensor_hooks or node._pre_hooks or node._retain_hooks or node.variable._hooks:
                    gs = _call_pre_hooks(node, _node._as_tensors(gs))
            node._accumulate(gs[0], False)
            if node.variable.__dict__ and gs[0] is not None:
                _post_accumulate(node.variable)
            continue
        if node._hooked and (node._tensor_hooks or node._pre_hooks or node._retain_hooks):
            gs = _call_pre_hooks(node, _node._as_tensors(gs))
        if len(gs) == 1 and gs[0] is not None and node.backward_np is not None and not node._post_hooks:
            out_grads = node._run_backward_np(gs)    # the common case: one NumPy gradient in, NumPy out
        else:
            out_grads = _node_grads(node, gs)
        if not retain_graph and node._saved is not None:
            node._release()
        if node._next is not None:
            _propagate(node, out_grads, buffers, deps, ready)
            out_grads = None   # drop this frame's references: AccumulateGrad steals unshared arrays
            continue
        fn = node._fn0     # one edge (most nodes)
        if fn is not None:
            buf = buffers.get(fn)
            if buf is None:
                buf = buffers[fn] = [None] * len(fn._output_meta)
            g = out_grads[0]
            if g is not None:
                nr = node._nr0
                buf[nr] = g if buf[nr] is None else _add_grads(buf[nr], g)
            d = deps[fn] - 1
            deps[fn] = d
            if d == 0:
                heappush(ready, (-fn._seq, next(_QUEUED), fn))
        g = out_grads = None   # drop this frame's references: AccumulateGrad steals unshared arrays


def _propagate(node, out_grads, buffers, deps, ready):
    """Add each input gradient into its next node's buffer; queue the nodes whose last dependency this was."""
    nxt = node._next
    if nxt is None:
        nxt = (node._fn0, node._nr0)
    for i, g in enumerate(out_grads):
        fn = nxt[2 * i]
        if fn is None:
            continue
        nr = nxt[2 * i + 1]
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * len(fn._output_meta)
        if g is not None:
            buf[nr] = g if buf[nr] is None else _add_grads(buf[nr], g)
        d = deps[fn] - 1
        deps[fn] = d
        if d == 0:
            heapq.heappush(ready, (-fn._seq, next(_QUEUED), fn))


def _post_accumulate(leaf):
    """Tensor.register_post_accumulate_grad_hook: each hook(leaf) once .grad holds the new gradient."""
    post = leaf.__dict__.get("_post_accumulate_grad_hooks")
    if post:
        for hook in list(post.values()):
            hook(leaf)


def _check_nan(node, out_grads):
    """Anomaly mode with check_nan: a backward function that returns NaN raises, naming it (torch's text)."""
    for i, g in enumerate(out_grads):
        d = g._data if isinstance(g, Tensor) else g
        if d is not None and d.dtype.kind == "f" and np.isnan(d).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _node_grads(node, gs):
    """Run one node's backward (skipped when no gradient reached it) and its post hooks."""
    for g in gs:
        if g is not None:
            out_grads = node._run_backward(gs)
            break
    else:
        out_grads = [None] * (len(node._edges()) // 2)
    if node._post_hooks:
        out_grads = _node._as_tensors(out_grads)
        for hook in list(node._post_hooks.values()):
            r = hook(tuple(out_grads), tuple(_node._as_tensors(gs)))
            if r is not None:
                out_grads = list(r)
    return out_grads


def _captured_result(captured, allow_unused, create_graph):
    for i, g in enumerate(captured):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                               "graph. Set allow_unused=True if this is the desired behavior.")
    if not create_graph:
        captured = [None if g is None else (g.detach() if g._requires_grad else g) for g in captured]
    return tuple(captured)


def _add_grads(a, b):
    """Sum two gradient contributions; bare arrays (no create_graph) are added with NumPy."""
    if type(a) is np.ndarray or type(b) is np.ndarray:
        r = (a if type(a) is np.ndarray else a._data) + (b if type(b) is np.ndarray else b._data)
        return r if type(r) is np.ndarray else np.asarray(r)   # 0-d + 0-d gives a NumPy scalar
    return a + b


def _needed_nodes(roots, targets):
    """Nodes from which some capture target is reachable."""
    memo = {}
    order = []
    stack = [(r, False) for r in roots]
    while stack:
        n, done = stack.pop()
        if done:
            memo[n] = n in targets or any(fn is not None and memo.get(fn, False) for fn, _ in n.next_functions)
            continue
        if n in memo:
            continue
        memo[n] = False
        stack.append((n, True))
        for fn, _ in n.next_functions:
            if fn is not None and fn not in memo:
                stack.append((fn, False))
        order.append(n)
    return {n for n, v in memo.items() if v}


def _call_pre_hooks(node, gs):
    if node._tensor_hooks:
        gs = list(gs)
        for nr, hooks in node._tensor_hooks.items():
            for hook in list(hooks.values()):
                if gs[nr] is None:
                    continue
                r = hook(gs[nr])
                if r is not None:
                    gs[nr] = r
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks and gs[0] is not None:
            gs = list(gs)
            for hook in list(hooks.values()):
                r = hook(gs[0])
                if r is not None:
                    gs[0] = r
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            r = hook(tuple(gs))
            if r is not None:
                gs = list(r)
    if node._retain_hooks:
        for nr, ref in node._retain_hooks.items():
            t = ref()
            g = gs[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = g if STATE.grad_enabled else g.detach().clone()
            else:
                t._grad = t._grad + g
    return gs
