"""The torch side of tests/tensorcli/services/test_backward_steps.py: the same trace taken from torch with torch's own
public hooks (Node.register_prehook / register_hook on every grad_fn node, AccumulateGrad pre-hooks,
register_post_accumulate_grad_hook), so node order, names and every gradient can be compared."""
from __future__ import annotations


def _collect(roots):
    seen, order, stack = set(), [], list(reversed(roots))
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        stack.extend(c for c, _ in reversed(fn.next_functions) if c is not None)
    return order


def _vals(g):
    return None if g is None else g.detach().tolist()


def torch_trace(torch, target, gradient=None, retain_graph=None):
    """[{"node", "received", "sent": [(to_name, grad) per edge], "grad_after"}] in execution order,
    plus the error message (or None)."""
    root = target.grad_fn if target.grad_fn is not None else target.grad_fn
    nodes = _collect([root])
    steps, index, handles = [], {}, []

    def step(fn):
        if fn not in index:
            index[fn] = len(steps)
            steps.append({"node": fn.name().replace("torch::autograd::", ""), "received": None, "sent": None,
                          "grad_after": None})
        return steps[index[fn]]

    for fn in nodes:
        def pre(grads, fn=fn):
            step(fn)["received"] = [_vals(g) for g in grads]
        handles.append(fn.register_prehook(pre))
        if fn.name() == "torch::autograd::AccumulateGrad":
            def post_acc(t, fn=fn):
                step(fn)["grad_after"] = _vals(t.grad)
            handles.append(fn.variable.register_post_accumulate_grad_hook(post_acc))
        else:
            def post(gi, go, fn=fn):
                step(fn)["sent"] = [(c.name().replace("torch::autograd::", ""), _vals(g))
                                    for (c, _), g in zip(fn.next_functions, gi) if c is not None]
            handles.append(fn.register_hook(post))
    error = None
    try:
        target.backward(gradient, retain_graph=retain_graph)
    except RuntimeError as e:
        error = str(e)
    finally:
        for h in handles:
            h.remove()
    return steps, error
