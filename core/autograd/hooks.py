"""Hooks: handles, Tensor.register_hook, and the engine's calls of them in PyTorch's order (tensor pre-hooks,
leaf tensor hooks, node pre-hooks, retain_grad; post hooks after a node's backward; post-accumulate-grad hooks
once a leaf's .grad holds the new gradient)."""
from __future__ import annotations

import itertools

from .. import _methods
from .._grad_mode import STATE


class RemovableHandle:
    """Returned by register_hook; `.remove()` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, store):
        self._store = store
        self.id = next(self._ids)

    def remove(self):
        self._store.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


@_methods.method("register_hook")
def register_hook(self, hook):
    """Tensor.register_hook: call hook(grad) when the gradient w.r.t. this tensor is computed; a
    returned tensor replaces the gradient. Returns a handle with .remove()."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = {}
    h = RemovableHandle(self._hooks)
    self._hooks[h.id] = hook
    return h


def call_pre_hooks(node, gs, leaf_hooks=None):
    """Gradients into `node` after its tensor hooks (per output), the leaf's tensor hooks (AccumulateGrad),
    retain_grad's capture, then the node's pre-hooks: torch's call_tensor_pre_hooks (tensor pre-hooks, then
    retains_grad hooks) followed by call_pre_hooks."""
    if node._tensor_hooks:
        gs = list(gs)
        for nr, hooks in node._tensor_hooks.items():
            for hook in list(hooks.values()):
                if gs[nr] is None:
                    continue
                r = hook(gs[nr])
                if r is not None:
                    gs[nr] = r
    if leaf_hooks and gs[0] is not None:
        gs = list(gs)
        for hook in list(leaf_hooks.values()):
            r = hook(gs[0])
            if r is not None:
                gs[0] = r
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
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            r = hook(tuple(gs))
            if r is not None:
                gs = list(r)
    return gs


def call_post_hooks(node, out_grads, gs):
    """Node.register_hook: each hook(grad_inputs, grad_outputs), a returned tuple replacing grad_inputs."""
    for hook in list(node._post_hooks.values()):
        r = hook(tuple(out_grads), tuple(gs))
        if r is not None:
            out_grads = list(r)
    return out_grads


def call_post_accumulate(leaf):
    """Tensor.register_post_accumulate_grad_hook: each hook(leaf) once .grad holds the new gradient."""
    post = leaf.__dict__.get("_post_accumulate_grad_hooks")
    if post:
        for hook in list(post.values()):
            hook(leaf)
