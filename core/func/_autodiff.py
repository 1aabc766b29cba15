"""torch.func's reverse-mode transforms on core's autograd: grad, grad_and_value, vjp, jacrev, jacfwd,
hessian.

Each call makes the differentiated inputs fresh leaves that require grad (an input that already requires
grad, e.g. inside another transform, is used as is and the gradient graph is kept: transforms nest, as
torch's levels do), runs the function under enable_grad, and differentiates with autograd.grad.
Outputs that do not depend on an input give zeros. Not mirrored: jacfwd is computed in reverse mode
(same Jacobian; `randomness` is accepted and ignored), chunk_size is ignored."""
from __future__ import annotations

from .. import autograd
from .._grad_mode import enable_grad
from ..creation import zeros_like
from ..ops.shape import stack
from ..tensor import Tensor
from . import _tree


def _argnums_tuple(argnums, nargs):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(n)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
    return tuple(n % nargs for n in nums)


def _prepare(args, argnums):
    """args with the differentiated ones as leaves requiring grad; their flat leaves and specs; whether an
    outer level (or the caller) already tracks them (then results keep their graph)."""
    args, diff, outer = list(args), [], False
    for n in argnums:
        leaves, spec = _tree.flatten(args[n])
        fresh = []
        for x in leaves:
            if x.requires_grad:
                outer = True
                fresh.append(x)
            else:
                fresh.append(x.detach().requires_grad_())
        args[n] = _tree.unflatten(spec, fresh)
        diff.append((fresh, spec))
    return args, diff, outer


def _grads(output, inputs, keep, grad_output=None):
    """d output / d inputs (zeros for unused inputs), with the graph kept when `keep`."""
    got = autograd.grad(output, inputs, grad_outputs=grad_output, retain_graph=True, create_graph=keep,
                        allow_unused=True)
    return [zeros_like(x) if g is None else g for x, g in zip(inputs, got)]


def _plain(tree, keep):
    return tree if keep else _tree.tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f)(*args): output of function f should be a tuple: (output, aux) "
                           f"if has_aux is True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value: (gradient w.r.t. argnums, value) of a function returning a scalar tensor
    ((gradient, (value, aux)) with has_aux)."""
    def wrapper(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args))
        with enable_grad():
            args_, diff, keep = _prepare(args, nums)
            out, aux = _split_aux(func(*args_, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   f"instead?")
            flat = [x for leaves, _ in diff for x in leaves]
            got = _grads(out, flat, keep) if out.requires_grad else [zeros_like(x) for x in flat]
        grads, at = [], 0
        for leaves, spec in diff:
            grads.append(_tree.unflatten(spec, got[at:at + len(leaves)]))
            at += len(leaves)
        grads = grads[0] if not isinstance(argnums, tuple) else tuple(grads)
        value = _plain(out, keep)
        return (grads, (value, _plain(aux, keep))) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad: the gradient of a scalar-valued function w.r.t. argnums ((gradient, aux) with has_aux)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: (output, vjp_fn[, aux]); vjp_fn(cotangents) is a tuple with one gradient per primal."""
    with enable_grad():
        args, diff, keep = _prepare(primals, tuple(range(len(primals))))
        out, aux = _split_aux(func(*args), has_aux, "vjp")
    out_leaves, _ = _tree.flatten(out)

    def vjp_fn(cotangents):
        cot_leaves, _ = _tree.flatten(cotangents)
        flat = [x for leaves, _ in diff for x in leaves]
        pairs = [(o, c) for o, c in zip(out_leaves, cot_leaves) if o.requires_grad]
        with enable_grad():
            got = (_grads([o for o, _ in pairs], flat, keep or any(c.requires_grad for _, c in pairs),
                          [c for _, c in pairs]) if pairs else [zeros_like(x) for x in flat])
        result, at = [], 0
        for leaves, spec in diff:
            result.append(_tree.unflatten(spec, got[at:at + len(leaves)]))
            at += len(leaves)
        return tuple(result)
    value = _plain(out, keep)
    return (value, vjp_fn, _plain(aux, keep)) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (func(*primals), J @ tangents) (with aux), J @ v computed by differentiating the
    vector-Jacobian product once more (reverse mode twice; torch uses forward mode: same values)."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
                           f"Got primals with structure {primals} and tangents with structure {tangents}")
    with enable_grad():
        args, diff, keep = _prepare(primals, tuple(range(len(primals))))
        out, aux = _split_aux(func(*args), has_aux, "jvp")
        out_leaves, out_spec = _tree.flatten(out)
        flat = [x for leaves, _ in diff for x in leaves]
        flat_t = [t for tan in tangents for t in _tree.flatten(tan)[0]]
        dummies = [zeros_like(o).requires_grad_() for o in out_leaves]
        live = [(o, u) for o, u in zip(out_leaves, dummies) if o.requires_grad]
        if live:
            vjps = autograd.grad([o for o, _ in live], flat, [u for _, u in live], create_graph=True,
                                 allow_unused=True)
            pairs = [(g, t) for g, t in zip(vjps, flat_t) if g is not None]
            jv = autograd.grad([g for g, _ in pairs], dummies, [t for _, t in pairs], create_graph=keep,
                               allow_unused=True) if pairs else [None] * len(dummies)
        else:
            jv = [None] * len(dummies)
        jv = [zeros_like(o) if j is None else j for o, j in zip(out_leaves, jv)]
    value, tangent_out = _plain(out, keep), _plain(_tree.unflatten(out_spec, jv), keep)
    return (value, tangent_out, _plain(aux, keep)) if has_aux else (value, tangent_out)


def _jacobian_rows(out, inputs, keep):
    """d out / d each input, shaped out.shape + input.shape (one backward per output element)."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(flat.numel()):
        got = _grads(flat[k], inputs, keep) if out.requires_grad else [zeros_like(x) for x in inputs]
        for i, g in enumerate(got):
            rows[i].append(g)
    return [stack(r).reshape(tuple(out.shape) + tuple(x.shape)) if r else
            zeros_like(x).reshape(tuple(out.shape) + tuple(x.shape)) for r, x in zip(rows, inputs)]


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev: the Jacobian of each output w.r.t. argnums, shaped output.shape + input.shape
    (tuples where the outputs or argnums are tuples)."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        with enable_grad():
            args_, diff, keep = _prepare(args, nums)
            out, aux = _split_aux(func(*args_), has_aux, "jacrev")
            out_leaves, out_spec = _tree.flatten(out)
            flat = [x for leaves, _ in diff for x in leaves]
            per_out = []
            for o in out_leaves:
                jac = _jacobian_rows(o, flat, keep)
                per_arg, at = [], 0
                for leaves, spec in diff:
                    per_arg.append(_tree.unflatten(spec, jac[at:at + len(leaves)]))
                    at += len(leaves)
                per_out.append(per_arg[0] if not isinstance(argnums, tuple) else tuple(per_arg))
        result = _tree.unflatten(out_spec, per_out)
        return (result, _plain(aux, keep)) if has_aux else result
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the same Jacobian as jacrev (computed in reverse mode here)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)
