"""einsum and tensordot, composed from core ops the way PyTorch's ATen does it (diagonal for
repeated labels, unsqueeze/permute to align operands, left-to-right pairwise contraction by
permute + reshape + bmm), so values, dtypes, grad_fn names and double backward follow PyTorch."""
from __future__ import annotations

import functools

import numpy as np

from ..autograd.function import Op
from ..tensor import Tensor, _wrap_dim
from ..dtypes import scalar_name as _short
from .inplace import ViewOp, _geom, _strided, _view
from .pointwise import _out
from .registry import register

_ELLIPSIS = 52


def _label_to_subscript(c):
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def _subscript_to_label(s):
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


# -- diagonal (private: repeated einsum labels) ----------------------------------------------

class DiagonalBackward0(ViewOp):
    """Main diagonal over dims d1 < d2, appended as the last dim (a view)."""

    @staticmethod
    def forward(ctx, a, d1, d2):
        arr = a._data
        ctx.d1, ctx.d2, ctx.in_shape = d1, d2, arr.shape
        shape, strides, off = _geom(arr)
        keep = [i for i in range(arr.ndim) if i not in (d1, d2)]
        return _strided(arr, tuple(shape[i] for i in keep) + (min(shape[d1], shape[d2]),),
                        tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],), off)

    @staticmethod
    def backward(ctx, g):
        return DiagonalBackwardBackward0.apply(g, ctx.in_shape, ctx.d1, ctx.d2)


class DiagonalBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, d1, d2):
        ctx.d1, ctx.d2 = d1, d2
        out = np.zeros(shape, dtype=g._data.dtype)
        n = g._data.shape[-1]
        idx = [slice(None)] * len(shape)
        ar = np.arange(n)
        idx[d1], idx[d2] = ar, ar
        # advanced indices at d1 and d2 land first when separated, else at d1
        src = np.moveaxis(g._data, -1, 0) if d2 - d1 > 1 else np.moveaxis(g._data, -1, d1)
        out[tuple(idx)] = src
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(DiagonalBackward0, gg, ctx.d1, ctx.d2)


def _diagonal(t, d1, d2):
    if d1 > d2:
        d1, d2 = d2, d1
    return _view(DiagonalBackward0, t, d1, d2)


# -- einsum ----------------------------------------------------------------------------------

def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) via permute + reshape + bmm."""
    if not sum_dims:
        return left * right
    dim = left._data.ndim
    sums = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        ls, rs = left._data.shape[i], right._data.shape[i]
        sl, sr = ls != 1, rs != 1
        if i in sums:
            if sl and sr:
                if ls != rs:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= ls
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if ls != rs:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= ls
        elif sl:
            lo.append(i)
            lo_size *= ls
        else:
            ro.append(i)
            ro_size *= rs
    out_size = ([left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._data.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    if left._data.dtype != right._data.dtype:
        raise RuntimeError(f"expected scalar type {_short(left.dtype)} but found {_short(right.dtype)}")
    left = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    right = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    result = left.bmm(right)    # Tensor.bmm: the linalg family is imported on first use
    return result.view(out_size).permute(operm)


def _parse_sublists(args):
    """einsum(op0, sublist0, op1, sublist1, ..., [out_sublist]) -> (equation, operands)."""
    def sub(lst):
        out = []
        for s in lst:
            if s is Ellipsis:
                out.append("...")
                continue
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
                raise TypeError("einsum(): expected a list of integers (or Ellipsis) as subscripts")
            if not 0 <= s < 52:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
            out.append(_subscript_to_label(int(s)))
        return "".join(out)

    ops = list(args[0::2])
    subs = list(args[1::2])
    eq = None
    if len(ops) > len(subs):     # trailing output sublist
        eq = sub(ops.pop())
    eq_in = ",".join(sub(s) for s in subs)
    return (eq_in + "->" + eq) if eq is not None else eq_in, ops


def _parse_lhs(lhs, num_ops):
    """Labels (subscripts, _ELLIPSIS for '...') of each operand in the equation's left-hand side."""
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    cur = 0
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            op_labels[cur].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            cur += 1
            if cur >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[cur].append(_label_to_subscript(c))
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def _count_labels(op_labels, op_ndims):
    """(occurrences of each label over all operands, dims covered by the widest ellipsis)."""
    label_count = [0] * 52
    ell_num_dim = 0
    for k, labels in enumerate(op_labels):
        ndims = op_ndims[k]
        nlabels = len(labels)
        has_ell = False
        for lab in labels:
            if lab == _ELLIPSIS:
                nlabels -= 1
                has_ell = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[lab] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            how = "is more than" if has_ell else "does not match"
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) {how} the number of "
                               f"dimensions ({ndims}) for operand {k}"
                               + ("" if has_ell else " and no ellipsis was given"))
    return label_count, ell_num_dim


def _parse_rhs(rhs, offset, label_count, label_perm_index, ell_num_dim):
    """Place the explicit output's labels (and ellipsis) first; returns (perm_index, ell_index, ell_in_output)."""
    perm_index = ell_index = 0
    ell_in_output = False
    i = 0
    while i < len(rhs):
        c = rhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_output:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            i += 2
            ell_index = perm_index
            perm_index += ell_num_dim
            ell_in_output = True
        else:
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            lab = _label_to_subscript(c)
            if not (label_count[lab] > 0 and label_perm_index[lab] == -1):
                raise RuntimeError(f"einsum(): output subscript {c}" + (
                    " appears more than once in the output" if label_perm_index[lab] > -1
                    else " does not appear in the equation for any input operand"))
            label_perm_index[lab] = perm_index
            perm_index += 1
        i += 1
    return perm_index, ell_index, ell_in_output


@functools.lru_cache(maxsize=256)
def _plan(equation, op_ndims):
    """Parse an equation for operands of the given ndims (cached): labels per operand and the
    position of every label in the aligned (output dims + contraction dims) layout."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_lhs(lhs, len(op_ndims))
    label_count, ell_num_dim = _count_labels(op_labels, op_ndims)
    label_perm_index = [-1] * 52
    if arrow < 0:      # implicit output: the ellipsis, then labels seen once, A-Z then a-z
        perm_index, ell_index, ell_in_output = ell_num_dim, 0, True
        for lab in range(52):
            if label_count[lab] == 1:
                label_perm_index[lab] = perm_index
                perm_index += 1
    else:
        perm_index, ell_index, ell_in_output = _parse_rhs(equation[arrow + 2:], len(lhs) + 2, label_count,
                                                          label_perm_index, ell_num_dim)
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lab in range(52):
        if label_count[lab] > 0 and label_perm_index[lab] == -1:
            label_perm_index[lab] = perm_index
            perm_index += 1
    return (tuple(tuple(x) for x in op_labels), tuple(label_perm_index), out_num_dim, perm_index, ell_index,
            ell_num_dim)


def _align(operands, op_labels, label_perm_index, perm_index, ell_index, ell_num_dim):
    """Each operand permuted (after taking diagonals of repeated labels and unsqueezing missing ones)
    into the common layout; also how many operands have a non-1 size in each aligned dim."""
    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for k in range(len(operands)):
        op = operands[k]
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[k]:
            if s == _ELLIPSIS:
                ndim = operands[k]._data.ndim - (len(op_labels[k]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    sz = op._data.shape[dim]
                    if sz != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == sz):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {sz} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = sz
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                sz = op._data.shape[dim]
                if sz != 1:
                    if not (label_size[s] == 1 or label_size[s] == sz):
                        raise RuntimeError(f"einsum(): subscript {_subscript_to_label(s)} has size {sz} for operand "
                                           f"{k} which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = sz
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:
                prev = permutation[label_perm_index[s]]
                if op._data.shape[dim] != op._data.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_subscript_to_label(s)} is repeated for operand {k} "
                                       f"but the sizes don't match, {op._data.shape[dim]} != {op._data.shape[prev]}")
                op = _diagonal(op, prev, dim).movedim(-1, prev)
        for idx in range(perm_index):
            if permutation[idx] == -1:
                op = op.unsqueeze(dim)
                permutation[idx] = dim
                dim += 1
        ops.append(op.permute(permutation))

    return ops, dim_counts


def _contract(ops, dim_counts, out_num_dim, perm_index):
    """Left-to-right pairwise contraction, summing each contraction dim as soon as one operand is left holding it."""
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            sa, sb = a._data.shape[d] != 1, b._data.shape[d] != 1
            if sa and sb:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if sa:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif sb:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    return ops[0]


@register(category="shape")
def einsum(*args):
    """Einstein summation: 'ij,jk->ik' style equations with spaces, '...', implicit output and repeated labels."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _parse_sublists(args)
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(f"einsum(): expected Tensor operands, but operand {i} is {type(op).__name__}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    op_labels, label_perm_index, out_num_dim, perm_index, ell_index, ell_num_dim = _plan(
        equation, tuple(op._data.ndim for op in operands))

    ops, dim_counts = _align(operands, op_labels, label_perm_index, perm_index, ell_index, ell_num_dim)
    res = _contract(ops, dim_counts, out_num_dim, perm_index)
    if perm_index - out_num_dim > 0:
        if len(operands) > 1:
            return res.view(res._data.shape[:out_num_dim] + res._data.shape[perm_index:])
        return res.sum(list(range(out_num_dim, perm_index)))
    return res


@register(category="linalg", methods=())
def tensordot(a, b, dims=2, out=None):
    """Contract dims of a with dims of b (an int n: last n of a with first n of b; or two dim lists)."""
    if isinstance(dims, Tensor):
        dims = int(dims.item()) if dims._data.ndim == 0 else dims.tolist()
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(a._data.ndim - dims, a._data.ndim))
        dims_b = list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dims")
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, (int, np.integer)) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, (int, np.integer)) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    na, nb = a._data.ndim, b._data.ndim
    dims_a = [_wrap_dim(d, na) for d in dims_a]
    dims_b = [_wrap_dim(d, nb) for d in dims_b]
    t1, t2 = a, b
    csize = 1
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a._data.shape[da], b._data.shape[db]
        if s2 == 1:
            t1 = t1.sum(da, True)
        elif s1 == 1:
            t2 = t2.sum(db, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {da} and "
                                   f"second has size {s2} in dim {db}")
            csize *= s1
    p1, p2, rsizes = [], [], []
    size1 = size2 = 1
    for i in range(na):
        if i not in dims_a:
            p1.append(i)
            size1 *= t1._data.shape[i]
            rsizes.append(t1._data.shape[i])
    p1 += dims_a
    p2 += dims_b
    for i in range(nb):
        if i not in dims_b:
            p2.append(i)
            size2 *= t2._data.shape[i]
            rsizes.append(t2._data.shape[i])
    t1 = t1.permute(p1).reshape(size1, csize)
    t2 = t2.permute(p2).reshape(csize, size2)
    r = t1.mm(t2).reshape(rsizes)
    if out is not None:
        return _out(r, out)
    return r
