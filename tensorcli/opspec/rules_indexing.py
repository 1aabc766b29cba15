"""Index-mapping rules of the indexing ops for `tensorcli --explain`: each returns the `out[i][j] = ...`
formula as a function of (ndim, dim, **the op's own arguments)."""
from __future__ import annotations

_VARS = "ijklmnpqrs"


def _vars(ndim):
    return [(_VARS[k] if k < len(_VARS) else f"i{k}") for k in range(max(int(ndim), 1))]


def _sub(v):
    return "".join(f"[{x}]" for x in v)


def _rule_dim(ndim, dim):
    n = max(int(ndim), 1)
    d = int(dim) if dim is not None else n - 1
    d = d + n if d < 0 else d
    return min(max(d, 0), n - 1)


def _along(v, d, index_name):
    s = list(v)
    s[d] = f"{index_name}{_sub(v)}"
    return s


def gather_rule(ndim, dim):
    v = _vars(ndim)
    return f"out{_sub(v)} = input{_sub(_along(v, _rule_dim(ndim, dim), 'index'))}"


def scatter_rule(ndim, dim):
    v = _vars(ndim)
    return f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))} = src{_sub(v)}"


def scatter_add_rule(ndim, dim):
    v = _vars(ndim)
    return f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))} += src{_sub(v)}"


def scatter_reduce_rule(ndim, dim, reduce="sum", include_self=True):
    v = _vars(ndim)
    dst = f"self{_sub(_along(v, _rule_dim(ndim, dim), 'index'))}"
    if reduce == "sum":
        return f"{dst} += src{_sub(v)}"
    how = {"prod": "product", "mean": "mean", "amax": "maximum", "amin": "minimum"}.get(reduce, reduce)
    own = "" if include_self else " (self's own value excluded)"
    return f"{dst} = {how} of the src{_sub(v)} scattered to it{own}"


def take_along_dim_rule(ndim, dim):
    if dim is None:
        return "out[i] = input.flatten()[indices.flatten()[i]]"
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"indices{_sub(v)}"
    return f"out{_sub(v)} = input{_sub(s)}"


def index_select_rule(ndim, dim):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    return f"out{_sub(v)} = input{_sub(s)}"


def index_add_rule(ndim, dim, alpha=1):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    scale = "" if alpha == 1 else f"{alpha} * "
    return f"self{_sub(s)} += {scale}source{_sub(v)}"


def index_fill_rule(ndim, dim):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    return f"self{_sub(s)} = value"


def index_put_rule(ndim, dim=None, accumulate=False):
    n = max(int(ndim), 1)
    dst = "".join(f"[indices[{k}][i]]" for k in range(n))
    return f"self{dst} {'+=' if accumulate else '='} values[i]  (one index tensor per dim)"


def take_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)} = input.flatten()[index{_sub(v)}]"


def masked_select_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out[n] = input{_sub(v)} where {_sub(v)} is the n-th True position of mask (row-major)"


def masked_fill_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)} = value if mask{_sub(v)} else input{_sub(v)}"


def _plus(var, k):
    return var if k == 0 else f"{var} + {k}"


def diagonal_rule(ndim, dim=None, offset=0, dim1=0, dim2=1):
    n = max(int(ndim), 2)
    d1, d2 = _rule_dim(n, dim1), _rule_dim(n, dim2)
    rest = list("jklmnpqrs")[:n - 2]
    ins, it = [], iter(rest)
    for d in range(n):
        if d == d1:
            ins.append(_plus("i", max(0, -offset)))
        elif d == d2:
            ins.append(_plus("i", max(0, offset)))
        else:
            ins.append(next(it))
    return f"out{_sub(rest + ['i'])} = input{_sub(ins)}"


def triu_rule(ndim, dim=None):
    return "out[i][j] = input[i][j] if j - i >= diagonal else 0"


def tril_rule(ndim, dim=None):
    return "out[i][j] = input[i][j] if j - i <= diagonal else 0"


def one_hot_rule(ndim, dim=None):
    v = _vars(ndim)
    return f"out{_sub(v)}[c] = 1 if input{_sub(v)} == c else 0"


def diag_embed_rule(ndim, dim=None, offset=0, dim1=-2, dim2=-1):
    n = max(int(ndim), 1) + 1
    d1, d2 = _rule_dim(n, dim1), _rule_dim(n, dim2)
    v = _vars(n - 1)
    t, rest = v[-1], iter(v[:-1])
    outs = []
    for d in range(n):
        if d == d1:
            outs.append(_plus(t, max(0, -offset)))
        elif d == d2:
            outs.append(_plus(t, max(0, offset)))
        else:
            outs.append(next(rest))
    return f"out{_sub(outs)} = input{_sub(v)}"




def index_copy_rule(ndim, dim):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    return f"self{_sub(s)} = source{_sub(v)}"


def index_reduce_rule(ndim, dim, reduce="prod", include_self=True):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    s[d] = f"index[{v[d]}]"
    how = {"prod": "product", "mean": "mean", "amax": "maximum", "amin": "minimum"}.get(reduce, reduce)
    own = "" if include_self else " (self's own value excluded)"
    return f"self{_sub(s)} = {how} of the source{_sub(v)} reduced to it{own}"


def masked_scatter_rule(ndim, dim=None):
    v = _vars(ndim)
    return (f"out{_sub(v)} = source.flatten()[n] if {_sub(v)} is the n-th True position of mask (row-major), "
            f"else input{_sub(v)}")


def put_rule(ndim, dim=None, accumulate=False):
    return f"self.flatten()[index.flatten()[n]] {'+=' if accumulate else '='} source.flatten()[n]"


def select_scatter_rule(ndim, dim=0, index=0):
    v = _vars(max(int(ndim) - 1, 1))
    d = _rule_dim(ndim, dim)
    s = list(v)[:max(int(ndim) - 1, 0)]
    s.insert(d, str(index))
    src = v[:max(int(ndim) - 1, 0)]
    return f"out{_sub(s)} = src{_sub(src)}"


def slice_scatter_rule(ndim, dim=0, start=None, end=None, step=1):
    v = _vars(ndim)
    d = _rule_dim(ndim, dim)
    s = list(v)
    start = 0 if start is None else start
    pos = v[d] if step == 1 else f"{step} * {v[d]}"
    s[d] = pos if start == 0 else f"{start} + {pos}" if start > 0 else f"input.size({d}) - {-start} + {pos}"
    return f"out{_sub(s)} = src{_sub(v)}"


def diagonal_scatter_rule(ndim, dim=None, offset=0, dim1=0, dim2=1):
    lhs, rhs = diagonal_rule(ndim, dim, offset, dim1, dim2).split(" = ")
    return f"out{rhs[len('input'):]} = src{lhs[len('out'):]}"
