"""Index formulas of the shape ops for --explain and `tensorcli ops`: each returns the
`out[i][j] = ...` text as a function of (ndim, dim, **the op's own arguments), or None."""
from __future__ import annotations

_LETTERS = "ijklmnopqrstuvwxyzabcdefgh"


def _idx(letters):
    return "".join(f"[{c}]" for c in letters)


def _label_to_subscript(c):
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def _labels_idx(labels):
    return "".join("[...]" if c == "." else f"[{c}]" for c in labels.replace("...", "."))


# -- views (core/ops/shape/views.py) --
def flat_rule(ndim, dim=None, **kw):
    return "out.flatten()[n] = input.flatten()[n]  (row-major order)"


def expand_rule(ndim, dim=None, shape=None, **kw):
    return "out[...][i][...] = input[...][0][...] along each expanded size-1 dim; other indices unchanged"


def unfold_rule(ndim, dim=None, dimension=0, size=None, step=1, **kw):
    ins = list(_LETTERS[:ndim])
    d = dimension % max(ndim, 1)
    w = _LETTERS[ndim]
    outs = ins + [w]
    ins[d] = f"{ins[d]} * {step} + {w}"
    return f"out{_idx(outs)} = input{_idx(ins)}"


def as_strided_rule(ndim, dim=None, size=None, stride=None, storage_offset=0, **kw):
    if stride is None:
        return None
    outs = _LETTERS[:len(stride)]
    terms = ([str(storage_offset)] if storage_offset else []) + [f"{c}*{s}" for c, s in zip(outs, stride)]
    return f"out{_idx(outs)} = storage[{' + '.join(terms) or '0'}]"


# -- squeeze (core/ops/shape/squeeze.py) --
def unsqueeze_rule(ndim, dim=None, **kw):
    d = 0 if dim is None else (dim + ndim + 1 if dim < 0 else dim)
    ins = _LETTERS[:ndim]
    outs = ins[:d] + "0" + ins[d:]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def squeeze_rule(ndim, dim=None, **kw):
    ins = list(_LETTERS[:ndim])
    if dim is None:
        return "out[...] = input[...] with every size-1 dim dropped (index 0)"
    d = dim + ndim if dim < 0 else dim
    outs = ins[:d] + ins[d + 1:]
    ins[d] = "0"
    return f"out{_idx(outs)} = input{_idx(ins)}  (when size(dim) == 1)"


# -- permute (core/ops/shape/permute.py) --
def transpose_rule(ndim, dim=None, dim0=0, dim1=1, **kw):
    if ndim == 0:
        return "out = input"
    outs = list(_LETTERS[:ndim])
    ins = list(outs)
    a, b = dim0 % ndim, dim1 % ndim
    ins[a], ins[b] = ins[b], ins[a]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def t_rule(ndim, dim=None, **kw):
    return "out[i][j] = input[j][i]" if ndim == 2 else "out = input"


def permute_rule(ndim, dim=None, dims=None, **kw):
    if dims is None:
        return None
    dims = [d % ndim for d in dims] if ndim else []
    outs = _LETTERS[:ndim]
    ins = [""] * ndim
    for i, d in enumerate(dims):
        ins[d] = outs[i]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def movedim_rule(ndim, dim=None, source=None, destination=None, **kw):
    if source is None or destination is None:
        return None
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src, dst = [s % ndim for s in src], [d % ndim for d in dst]
    perm = [-1] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(ndim) if i not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return permute_rule(ndim, dims=perm)


# -- slicing (core/ops/shape/slicing.py) --
def narrow_rule(ndim, dim=0, start=0, length=None, **kw):
    ins = list(_LETTERS[:ndim])
    outs = list(ins)
    d = (dim or 0) % max(ndim, 1)
    ins[d] = f"{ins[d]} + {start}"
    return f"out{_idx(outs)} = input{_idx(ins)}"


def select_rule(ndim, dim=0, index=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = ins[:d] + ins[d + 1:]
    ins[d] = str(index)
    return f"out{_idx(outs)} = input{_idx(ins)}"


# -- join (core/ops/shape/join.py) --
def cat_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = list(ins)
    ins[d] = f"{ins[d]} - offset_t"
    return f"out{_idx(outs)} = tensors[t]{_idx(ins)}  (t is the input covering {outs[d]} along dim {d})"


def stack_rule(ndim, dim=0, **kw):
    ins = _LETTERS[:ndim]
    d = (dim or 0) % (ndim + 1)
    outs = ins[:d] + "t" + ins[d:]
    return f"out{_idx(outs)} = tensors[t]{_idx(ins)}"


# -- split (core/ops/shape/split.py) --
def split_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = list(ins)
    ins[d] = f"start_c + {ins[d]}"
    return f"outputs[c]{_idx(outs)} = input{_idx(ins)}  (start_c = sum of the sizes of chunks before c)"


def unbind_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = ins[:d] + ins[d + 1:]
    ins[d] = "c"
    return f"outputs[c]{_idx(outs)} = input{_idx(ins)}"


def hsplit_rule(ndim, dim=None, **kw):
    return split_rule(ndim, 0 if ndim == 1 else 1)


def vsplit_rule(ndim, dim=None, **kw):
    return split_rule(ndim, 0)


def dsplit_rule(ndim, dim=None, **kw):
    return split_rule(ndim, 2) if ndim >= 3 else None


# -- repeat (core/ops/shape/repeat.py) --
def repeat_rule(ndim, dim=None, sizes=None, dims=None, **kw):
    reps = sizes if sizes is not None else dims
    extra = max(len(reps) - ndim, 0) if isinstance(reps, (tuple, list)) else 0
    outs = _LETTERS[:extra + ndim]
    return f"out{_idx(outs)} = input" + "".join(f"[{c} % size({k})]" for k, c in enumerate(outs[extra:]))


def interleave_rule(ndim, dim=None, repeats=None, **kw):
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats <= 0:
        return None
    if dim is None:
        return f"out.flatten()[n] = input.flatten()[n // {repeats}]"
    ins = list(_LETTERS[:ndim])
    d = dim % max(ndim, 1)
    outs = list(ins)
    ins[d] = f"{ins[d]} // {repeats}"
    return f"out{_idx(outs)} = input{_idx(ins)}"


# -- flip_roll (core/ops/shape/flip_roll.py) --
def flip_rule(ndim, dim=None, dims=None, **kw):
    if dims is None:
        return None
    ds = {d % max(ndim, 1) for d in ([dims] if isinstance(dims, int) else dims)}
    outs = _LETTERS[:ndim]
    ins = [f"size({k}) - 1 - {c}" if k in ds else c for k, c in enumerate(outs)]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def roll_rule(ndim, dim=None, shifts=None, dims=None, **kw):
    if shifts is None:
        return None
    sh = [shifts] if isinstance(shifts, int) else list(shifts)
    if dims is None:
        return f"out.flatten()[n] = input.flatten()[(n - {sh[0]}) % numel]"
    ds = [dims] if isinstance(dims, int) else list(dims)
    outs = _LETTERS[:ndim]
    ins = list(outs)
    for s, d in zip(sh, ds):
        k = d % ndim
        ins[k] = f"({ins[k]} - {s}) % size({k})"
    return f"out{_idx(outs)} = input{_idx(ins)}"


# -- block_diag (core/ops/shape/block_diag.py) --
def block_diag_rule(ndim, dim=None, **kw):
    return "out[r_t + i][c_t + j] = tensors[t][i][j]  (block t starts at row r_t, column c_t; zeros elsewhere)"


def diagflat_rule(ndim, dim=None, offset=0, **kw):
    off = offset if isinstance(offset, int) else 0
    i, j = _LETTERS[:2]
    col = f"{i} + {off}" if off > 0 else i
    row = f"{i} + {-off}" if off < 0 else i
    return f"out[{row}][{col}] = input.flatten()[{i}]  (zeros elsewhere)"


# -- grids (core/ops/shape/grids.py) --
def meshgrid_rule(ndim, dim=None, **kw):
    return "out_k[i0][i1]... = tensors[k][ik]  ('xy': the first two grid dims swapped)"


# -- rot90 (core/ops/shape/rot90.py) --
def rot90_rule(ndim, dim=None, k=1, dims=(0, 1), **kw):
    k = (k if isinstance(k, int) else 1) % 4
    if ndim < 2 or len(dims) != 2:
        return None
    d0, d1 = dims[0] % ndim, dims[1] % ndim
    outs = _LETTERS[:ndim]
    ins = list(outs)
    if k == 1:
        ins[d0], ins[d1] = outs[d1], f"size({d1}) - 1 - {outs[d0]}"
    elif k == 2:
        ins[d0], ins[d1] = f"size({d0}) - 1 - {outs[d0]}", f"size({d1}) - 1 - {outs[d1]}"
    elif k == 3:
        ins[d0], ins[d1] = f"size({d0}) - 1 - {outs[d1]}", outs[d0]
    return f"out{_idx(outs)} = input{_idx(ins)}  (size(d) of input)"


# -- einsum (core/ops/einsum.py) --
def einsum_rule(ndim, dim=None, equation=None, **kw):
    if not isinstance(equation, str):
        return None
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    ins = lhs.split(",")
    if "->" not in eq:
        counts = {}
        for c in lhs.replace(",", "").replace(".", ""):
            counts[c] = counts.get(c, 0) + 1
        rhs = "".join(sorted((c for c, n in counts.items() if n == 1), key=_label_to_subscript))
    summed = sorted({c for c in lhs if c.isalpha()} - set(rhs), key=_label_to_subscript)
    prod = " * ".join(f"operands[{k}]{_labels_idx(s)}" for k, s in enumerate(ins))
    total = f"Σ_{','.join(summed)} " if summed else ""
    return f"out{_labels_idx(rhs)} = {total}{prod}"
