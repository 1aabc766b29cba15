"""The backward engine, after PyTorch's (torch/csrc/autograd/engine.cpp): count the dependencies of every
node reachable from the roots, then run a ready queue ordered by sequence number (the most recently created
node first, as torch's CPU ready queue does), each node's gradients accumulated in its input buffer until
its last dependency has run. Hooks, retain_graph, create_graph and the captures `autograd.grad` and
`backward(inputs=...)` need are parts of the same loop."""
from __future__ import annotations

import heapq
import itertools

import numpy as np

from .._grad_mode import STATE
from ..tensor import Size, Tensor
from .accumulate import AccumulateGrad, get_accumulator
from .anomaly_mode import STATE as ANOMALY
from .graph_node import _as_tensors
from .hooks import call_post_accumulate, call_post_hooks, call_pre_hooks


# Ties in the ready queue (AccumulateGrad nodes all share the top sequence number) go first-queued
# first, as torch's std::priority_queue pops equal nodes in the cases a graph meets (not by address).
_QUEUED = itertools.count()

def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True):
    """Run the graph backward from `outputs`. With accumulate=True, leaves (or only `inputs`, when given) get
    `.grad`; with accumulate=False, return the gradients of `inputs` (autograd.grad)."""
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if inputs is None and not create_graph and len(outputs) == 1 and grad_outputs[0] is None \
            and outputs[0].grad_fn is not None:
        return _backward_from_scalar(outputs[0], bool(retain_graph))
    grads = _make_root_grads(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    capture = _capture_points(inputs) if inputs is not None else None
    captured = [None] * len(inputs) if inputs is not None else None
    roots, buffers = _root_buffers(outputs, grads)
    deps = compute_dependencies(roots)
    needed = _needed_nodes(roots, {n for n, _ in capture}) if capture is not None else None
    ready = [(-r._seq, next(_QUEUED), r) for r in roots if r not in deps]
    heapq.heapify(ready)
    leaves = (capture if capture is not None else True) if accumulate else False   # which leaves accumulate
    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = bool(create_graph)
    try:
        execute(ready, buffers, deps, capture, captured, needed, leaves, retain_graph, create_graph)
    finally:
        STATE.grad_enabled = prev_mode
    if captured is not None and not accumulate:
        return _captured_result(captured, allow_unused, create_graph)
    return None


def _backward_from_scalar(out, retain_graph):
    """loss.backward(): run_backward's set-up for one non-leaf output and its implicit gradient of 1 (the
    same loop runs; only the general preparation of roots and captures is skipped)."""
    d = out._data
    if d.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if d.dtype.kind != "f":
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
    root = out.grad_fn
    buf = [None] * len(root._output_meta)
    buf[out._output_nr] = np.array(1, dtype=d.dtype) if not d.shape else np.ones(d.shape, dtype=d.dtype)
    deps = compute_dependencies((root,))
    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        execute([(-root._seq, 0, root)], {root: buf}, deps, None, None, None, True, retain_graph, False)
    finally:
        STATE.grad_enabled = prev_mode


def _make_root_grads(outputs, grad_outputs, create_graph=True):
    """The gradients the roots start from: given ones checked for shape, an implicit 1 for a scalar output
    (a bare array unless create_graph: the engine passes gradients on as arrays)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                d = out._data
                if d.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if d.dtype.kind != "f":
                    raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                       f"but got {out.dtype}")
                g = np.array(1, dtype=d.dtype) if not d.shape else np.ones(d.shape, dtype=d.dtype)
                if create_graph:
                    g = Tensor._make(g)
        else:
            if not isinstance(g, Tensor):
                g = Tensor._make(np.asarray(g, dtype=out._data.dtype))
            if g._data.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} "
                                   f"and output[{i}] has a shape of {Size(out._data.shape)}.")
        grads.append(g)
    return grads


def _capture_points(inputs):
    """(node, output_nr) -> indices into `inputs`: where autograd.grad / backward(inputs=) read."""
    capture = {}
    for k, t in enumerate(inputs):
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node = t.grad_fn if t.grad_fn is not None else get_accumulator(t)
        nr = t._output_nr if t.grad_fn is not None else 0
        capture.setdefault((node, nr), []).append(k)
    return capture


def _root_buffers(outputs, grads):
    """The roots (each output's node, once) and their input buffers holding the starting gradients."""
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


def compute_dependencies(roots):
    """torch's compute_dependencies: how many edges lead into each node reachable from the roots (a node is
    walked when first counted; a root reached from another root is not walked twice)."""
    deps = {}
    seen = set(roots) if len(roots) > 1 else roots
    stack = list(roots)
    pop, push, get = stack.pop, stack.append, deps.get
    while stack:
        nxt = pop()._next
        for i in range(0, len(nxt), 2):
            fn = nxt[i]
            if fn is not None:
                c = get(fn)
                if c is None:
                    deps[fn] = 1
                    if fn not in seen:
                        push(fn)
                else:
                    deps[fn] = c + 1
    return deps


def execute(ready, buffers, deps, capture, captured, needed, leaves, retain_graph, create_graph):
    """The ready-queue loop (torch's thread_main + evaluate_function). `capture` maps (node, output_nr) to
    indices of `captured` to fill; `needed` (or None: all) are the nodes worth running; `leaves` says which
    AccumulateGrad nodes accumulate: True (all), False (none) or the capture map (those captured)."""
    arrays_only = not create_graph      # gradients may stay bare NumPy arrays
    check_nan = ANOMALY["enabled"] and ANOMALY["check_nan"]
    heappop, heappush = heapq.heappop, heapq.heappush
    while ready:
        node = heappop(ready)[2]
        gs = buffers.pop(node)
        if type(node) is AccumulateGrad:        # a leaf: its hooks, then .grad
            hooks = node.variable._hooks
            if (node._hooked or hooks) and (node._tensor_hooks or node._pre_hooks or hooks):
                gs = call_pre_hooks(node, _as_tensors(gs), hooks)
            if capture:
                gs = _capture(node, gs, capture, captured)
            if leaves is True or (leaves and (node, 0) in leaves):
                node._accumulate(gs[0], create_graph)
                if node.variable.__dict__ and gs[0] is not None:
                    call_post_accumulate(node.variable)
            continue
        if node._hooked and (node._tensor_hooks or node._pre_hooks or node._retain_hooks):
            gs = call_pre_hooks(node, _as_tensors(gs))
        if capture:
            gs = _capture(node, gs, capture, captured)
        if needed is not None and node not in needed:
            continue
        if arrays_only and len(gs) == 1 and gs[0] is not None and node.backward_np is not None \
                and not node._post_hooks:
            out = node._run_backward_np(gs)    # the common case: one NumPy gradient in, NumPy out
        else:
            out = call_function(node, gs)
        if check_nan:
            _check_nan(node, out)
        if not retain_graph and node._saved is not None:
            node._release()
        nxt = node._next
        i = 0
        for g in out:       # add each input gradient into its next node's buffer
            fn = nxt[i]
            if fn is not None:
                nr = nxt[i + 1]
                buf = buffers.get(fn)
                if buf is None:
                    buf = buffers[fn] = [None] * len(fn._output_meta)
                if g is not None:
                    buf[nr] = g if buf[nr] is None else _add_grads(buf[nr], g)
                d = deps[fn] - 1
                deps[fn] = d
                if not d:
                    heappush(ready, (-fn._seq, next(_QUEUED), fn))
            i += 2
        g = out = None     # drop this frame's references: AccumulateGrad steals unshared arrays


def _capture(node, gs, capture, captured):
    """Record the gradients of `node`'s outputs that autograd.grad / backward(inputs=) asked for."""
    gs = _as_tensors(gs)
    for nr, g in enumerate(gs):
        for k in capture.get((node, nr), ()):
            captured[k] = g
    return gs


def call_function(node, gs):
    """One node's backward (nothing when no gradient reached it), then its post hooks."""
    for g in gs:
        if g is not None:
            out = node._run_backward(gs)
            break
    else:
        out = [None] * (len(node._next) // 2)
    if node._post_hooks:
        out = call_post_hooks(node, _as_tensors(out), _as_tensors(gs))
    return out


def _check_nan(node, out_grads):
    """Anomaly mode with check_nan: a backward function that returns NaN raises, naming it (torch's text)."""
    for i, g in enumerate(out_grads):
        d = g._data if isinstance(g, Tensor) else g
        if d is not None and d.dtype.kind == "f" and np.isnan(d).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


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
    """Nodes from which some capture target is reachable (torch's exec_info)."""
    memo = {}
    stack = [(r, False) for r in roots]
    while stack:
        n, done = stack.pop()
        if done:
            memo[n] = n in targets or any(fn is not None and memo.get(fn, False) for fn in n._next[::2])
            continue
        if n in memo:
            continue
        memo[n] = False
        stack.append((n, True))
        for fn in n._next[::2]:
            if fn is not None and fn not in memo:
                stack.append((fn, False))
    return {n for n, v in memo.items() if v}
