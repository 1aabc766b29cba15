"""torch.func.functional_call: call a module with some parameters and buffers replaced for that call only.

Mirrors torch.nn.utils.stateless's semantics: one dict or a tuple of dicts (a key in two is a
ValueError), dotted names (`fc.weight`), strict (missing / unexpected keys: torch's RuntimeError text),
tie_weights (a replacement applies to every name tied to the same tensor), args as a tuple or a single
argument, and the originals restored afterwards, even when the call raises. stack_module_state stacks the
parameters and buffers of same-class models for vmap over functional_call."""
from __future__ import annotations

from ..ops.shape import stack
from ..tensor import Tensor


def _owner(module, name):
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


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


def _tied(module, given):
    """Extend `given` to every name tied (same tensor) to a given one; differing values for tied names err."""
    names = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names.setdefault(id(t), []).append(name)
    result = dict(given)
    for group in names.values():
        chosen = [n for n in group if n in given]
        if len(group) < 2 or not chosen:
            continue
        if len({id(given[n]) for n in chosen}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(chosen)}, which are tied. "
                             f"Consider using tie_weights=False")
        for n in group:
            result.setdefault(n, given[chosen[0]])
    return result


def _check_strict(module, given):
    expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
        {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(expected - set(given)), sorted(set(given) - expected)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs))


def _swap(module, name, value):
    """Put value under name (parameter, buffer or plain attribute); return how to undo it."""
    owner, leaf = _owner(module, name)
    for store in ("_parameters", "_buffers"):
        d = owner.__dict__[store]
        if leaf in d:
            old = d[leaf]
            d[leaf] = value
            return lambda: d.__setitem__(leaf, old)
    had = leaf in owner.__dict__
    old = owner.__dict__.get(leaf)
    object.__setattr__(owner, leaf, value)
    return (lambda: object.__setattr__(owner, leaf, old)) if had else (lambda: owner.__dict__.pop(leaf, None))


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named tensors standing in for its parameters and buffers."""
    given = _merge(parameter_and_buffer_dicts)
    if tie_weights:
        given = _tied(module, given)
    if strict:
        _check_strict(module, given)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    undo = []
    try:
        for name, value in given.items():
            if not isinstance(value, Tensor) and value is not None:
                raise TypeError(f"functional_call expects tensors, got {type(value).__name__} for {name!r}")
            undo.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for fn in reversed(undo):
            fn()


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
