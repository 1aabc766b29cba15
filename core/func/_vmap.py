"""torch.func.vmap by a loop: each batch element is sliced out of the mapped inputs (in_dims), the
function runs on it, and the outputs are stacked at out_dims. Values, dtypes and gradients are what
torch's batching rules give; the argument checks and their errors are torch's.

randomness: "error" raises torch's RuntimeError when the function draws from the default generator
(its state is restored first, as torch raises before drawing); "same" rewinds the generator for every
element (each sees the draws one unbatched call makes); "different" draws element after element, which
is torch's batched draw for uniform-type samplers but not always for normal ones (torch's vectorised
normal path orders the draws differently). chunk_size is accepted and ignored (same results). An output that
requires grad has grad_fn StackBackward0 (torch's: the batched op's own, e.g. AddBackward0); gradients
through it are the same."""
from __future__ import annotations

import functools

from ..creation import default_generator
from ..ops.shape import stack
from ..tensor import Tensor
from . import _tree


def _name(func):
    return getattr(func, "__name__", repr(func))


def _check_in_dims(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {_tree.spec_repr(_tree.flatten(in_dims)[1])} "
                         f"but inputs has structure {_tree.spec_repr(_tree.flatten(tuple(args))[1])}.")
    return in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)


def _batched(func, in_dims, args):
    """[(leaf, dim or None)] for each arg's leaves, and the batch size."""
    dims = _check_in_dims(func, in_dims, args)
    flat, sizes = [], []
    for arg, d in zip(args, dims):
        leaves, spec = _tree.flatten(arg)
        leaf_dims = _tree.flatten(d)[0] if isinstance(d, (tuple, list, dict)) else [d] * len(leaves)
        entry = []
        for x, ld in zip(leaves, leaf_dims):
            if ld is not None and isinstance(x, Tensor):
                if not -x.dim() <= ld < max(x.dim(), 1) or x.dim() == 0:
                    raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={ld} for some "
                                     f"input, but that input is a Tensor of dimensionality {x.dim()} so expected "
                                     f"in_dim to satisfy -{x.dim()} <= in_dim < {x.dim()}.")
                ld %= x.dim()
                sizes.append(x.shape[ld])
            elif ld is not None:
                raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={ld} for an input "
                                 f"but the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, "
                                 f"please use None as the respective in_dim")
            entry.append((x, ld))
        flat.append((entry, spec))
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat, sizes[0]


def _stack_out(func, outs, out_dims):
    """Stack the per-element outputs leaf by leaf at out_dims (None: the first element's, unbatched)."""
    leaves = [_tree.flatten(o)[0] for o in outs]
    spec = _tree.flatten(outs[0])[1]
    dims = _tree.flatten(out_dims)[0] if isinstance(out_dims, tuple) else [out_dims] * len(leaves[0])
    if len(dims) != len(leaves[0]):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must have one out_dim per output: got "
                         f"{len(dims)} out_dims for {len(leaves[0])} outputs")
    result = []
    for i, d in enumerate(dims):
        column = [row[i] for row in leaves]
        if d is None:
            result.append(column[0])
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for output?")
        result.append(stack(column, dim=d))
    return _tree.unflatten(spec, result)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap: func mapped over a dimension of its inputs (in_dims), outputs stacked at out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat, size = _batched(func, in_dims, args)
        start, outs = default_generator.get_state(), []
        for i in range(size):
            if randomness == "same":
                default_generator.set_state(start)
            sliced = [_tree.unflatten(spec, [x if d is None else x.select(d, i) for x, d in entry])
                      for entry, spec in flat]
            before = default_generator.get_state() if randomness == "error" else None
            outs.append(func(*sliced, **kwargs))
            if before is not None and not bool((default_generator.get_state() == before).all()):
                default_generator.set_state(start)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stack_out(func, outs, out_dims)
    return wrapped
