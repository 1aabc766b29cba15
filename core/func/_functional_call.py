"""torch.func.functional_call: call a module with some parameters and buffers replaced for that call only.

Mirrors torch.nn.utils.stateless's semantics: one dict or a tuple of dicts (a key in two is a
ValueError), dotted names (`fc.weight`), strict (missing / unexpected keys: torch's RuntimeError text),
tie_weights (a replacement applies to every name tied to the same tensor), args as a tuple or a single
argument, and the originals restored afterwards, even when the call raises. stack_module_state stacks the
parameters and buffers of same-class models for vmap over functional_call."""
from __future__ import annotations

from ..nn.utils.stateless import _functional_call
from ..ops.shape import stack


def _merge(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return dict(parameter_and_buffer_dicts)
    merged, dups = {}, set()
    for d in parameter_and_buffer_dicts:
        dups |= set(merged) & set(d)
        merged.update(d)
    if dups:
        raise ValueError(f"{sorted(dups)} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return merged


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named tensors standing in for its parameters and buffers: the dicts
    merged, then torch.nn.utils.stateless's reparametrization (tied weights, strict, restored afterwards)."""
    return _functional_call(module, _merge(parameter_and_buffer_dicts), args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _stacked_leaf(tensors, name):
    """torch.stack of one parameter/buffer across models; a leaf requiring grad when all of them do."""
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all(grads) else result


def stack_module_state(models):
    """torch.func.stack_module_state: (params, buffers) of same-class models stacked along a new dim 0,
    for vmap over functional_call (model ensembling)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
