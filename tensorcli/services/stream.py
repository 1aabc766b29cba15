"""Ops over .npy files larger than memory: a memory-mapped input, the output written block by block.

`run(op, src, out, dim=..., **args)` streams one op from the .npy file `src` to `out` (a .npy
path, written through io.atomic_output so a failure leaves nothing, or "-" for .npy bytes on
stdout, or None to return the result as an ndarray, for small results such as a reduction):

* reductions over one dim (`sum`, `mean`, `amax`, keepdim or not);
* movement along one dim (`gather` / `take_along_dim` with an index tensor, `index_select`,
  `narrow`, `flip` over any dims), `permute` / `transpose` (blocks of the output's first dim), and
  `cat` of several .npy files (`src` a list of paths).

`NotStreamable` means "run it in memory instead" (take_along_dim that broadcasts, a Fortran-order
file, and with strict=True a float reduction whose blocked order would not be the in-memory one):
the op commands (services/run_op.py) catch it and fall back.

Each block is computed by core's own op (core.sum, core.gather, ...) on a slice of the input that
keeps the op's dim whole, so results, dtypes and errors are the in-memory op's, bit for bit:
blocks run along axis 0 when the op's dim is not 0, and along the output's axis 0 otherwise
(the index rows for gather/index_select); reductions over dim 0 carry an accumulator across
blocks of rows in NumPy's order. The one exception is a reduction over dim 0 of a long vector
(one element per row) larger than a block: partial sums in float64 (int64 for integers) rounded
once, i.e. the correctly rounded sum (see services/show.py for how that relates to torch's
thread-dependent float32 sum).

Memory: a block (`block_bytes`, default 64 MiB) of input and of output; input pages already read
are dropped from the process (madvise DONTNEED: they stay in the page cache), and the output is
written sequentially, so peak RSS does not grow with the file (except permute/transpose across
dims: every block reads every page, which stay mapped; see _permute_plan).

Progress: `progress(done, total)` is called after each block (units: blocks). render/progress.py
owns the bar (Rich, on stderr, shown only when stderr is a terminal, not --quiet, and the work
has lasted over a second); this module never prints.
"""
from __future__ import annotations

import os
import sys

import numpy as np

import core
from core import _sum_order   # torch's dim-0 sum order for blocks of rows (core.sum's own model)

from .. import io
from ..errors import CliError
from ..io import npyfile

BLOCK_BYTES = 64 * 1024 * 1024
REDUCTIONS = ("sum", "mean", "amax")
MOVEMENTS = ("gather", "index_select", "narrow", "flip", "take_along_dim", "permute", "transpose", "cat")
OPS = REDUCTIONS + MOVEMENTS


class NotStreamable(CliError):
    """The op streams, but not these arguments with the in-memory op's exact result: load instead."""


def _t(a):
    return core.from_numpy(np.ascontiguousarray(a))


def _wrap(dim, ndim):
    """dim in [0, ndim); core's IndexError otherwise (the op commands name the op, as in memory)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


class _Plan:
    """An op as: output shape and dtype, its number of rows (blocks split the rows), the input
    bytes per row, and `block(r0, r1)` -> (the rows' values in C order, the input byte range
    consumed, or None for random access)."""

    def __init__(self, shape, dtype, rows, row_bytes, block):
        self.shape, self.dtype, self.rows, self.row_bytes, self.block = shape, dtype, rows, row_bytes, block


def _out_shape(shape, d, keepdim):
    shape = list(shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return tuple(shape)


def _reduce_plan(x, op, dim, keepdim):
    """Reductions keep the reduced dim whole in every block; keepdim only changes the header
    (the bytes of (1, m) and (m,) are the same)."""
    fn = getattr(core, op)
    d = _wrap(dim, x.ndim)
    probe = fn(_t(x[(slice(0, 1),) * x.ndim]), d, keepdim=keepdim)   # dtype (and core's errors)
    shape = _out_shape(x.shape, d, keepdim)
    if d != 0:   # blocks of rows: each block's reduction is the in-memory one for those rows
        row = x[0].nbytes

        def block(r0, r1):
            return fn(_t(x[r0:r1]), d)._data, (r0 * row, r1 * row)
        return _Plan(shape, probe._data.dtype, x.shape[0], row, block)
    return None                          # dim 0: _reduce0 accumulates row blocks


def _gather_checks(x, d, idx):
    """core.gather's shape checks on the whole shapes (blocks would report block shapes)."""
    if idx.size and x.ndim and idx.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(min(x.ndim, idx.ndim)):
        if k != d and idx.shape[k] > x.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no "
                               f"larger than self {list(x.shape)} apart from dimension {d}")


def _probe(x):
    """The first element of every dim of `x` as a tensor: runs core's argument checks cheaply."""
    return _t(x[(slice(0, 1),) * x.ndim])


def _narrow_plan(x, d, row, args):
    start, length = int(args["start"]), int(args["length"])
    stub = core.from_numpy(np.broadcast_to(np.zeros((), x.dtype), x.shape))   # shape only, no data
    shape = tuple(core.narrow(stub, d, start, length).shape)                   # core's checks and errors
    if d == 0:
        s0 = start % x.shape[0] if start < 0 else start
        return _Plan(shape, x.dtype, shape[0], row,
                     lambda r0, r1: (x[s0 + r0:s0 + r1], ((s0 + r0) * row, (s0 + r1) * row)))
    return _Plan(shape, x.dtype, shape[0], row,
                 lambda r0, r1: (core.narrow(_t(x[r0:r1]), d, start, length)._data, (r0 * row, r1 * row)))


def _flip_plan(x, dims, row):
    """flip over `dims`: rows in reverse order when dim 0 is flipped, core.flip on each block for
    the other dims."""
    core.flip(_probe(x), dims)                                   # core's errors (range, duplicates)
    rest = tuple(sorted({k % x.ndim for k in dims} - {0}))
    n = x.shape[0]
    if any(k % x.ndim == 0 for k in dims):
        def block(r0, r1):
            b = x[n - r1:n - r0][::-1]
            return (core.flip(_t(b), rest)._data if rest else b), ((n - r1) * row, (n - r0) * row)
        return _Plan(x.shape, x.dtype, n, row, block)
    return _Plan(x.shape, x.dtype, n, row,
                 lambda r0, r1: (core.flip(_t(x[r0:r1]), rest)._data, (r0 * row, r1 * row)))


def _permute_plan(x, perm, row):
    """permute: blocks of the output's first dim, which is the input's dim perm[0]. When that is
    not dim 0 each block reads a strided slab of the whole file, so every block touches every page:
    those pages stay mapped (clean page cache, up to the file's size in RSS: within the 1.1x output
    + 256 MB target, and the kernel reclaims them under pressure); dropping them after each block
    kept no less at the peak and took twice as long (1 GiB 2-D transpose: 18.8 s vs 9.8 s)."""
    core.permute(_probe(x), perm)                             # core's errors (length, range, repeats)
    perm = tuple(k % x.ndim for k in perm)
    shape = tuple(x.shape[k] for k in perm)
    p0 = perm[0]

    def block(r0, r1):
        sl = [slice(None)] * x.ndim
        sl[p0] = slice(r0, r1)
        vals = core.permute(_t(x[tuple(sl)]), perm)._data
        return vals, ((r0 * row, r1 * row) if p0 == 0 else None)
    return _Plan(shape, x.dtype, shape[0], x.nbytes // max(shape[0], 1), block)


def _index_plan(x, op, d, row, args):
    """gather / take_along_dim (an index of the output's shape) and index_select (a vector)."""
    index = args["indices" if op == "take_along_dim" else "index"]
    idx = index._data if hasattr(index, "_data") else np.asarray(index)
    full = core.from_numpy(x)            # a memory map: core's gather/index_select read only what they index
    if op in ("gather", "take_along_dim"):
        if op == "gather":
            _gather_checks(x, d, idx)
            fn = core.gather
        else:
            core.take_along_dim(_probe(x), _t(idx[(slice(0, 1),) * idx.ndim]), d)   # core's errors
            if idx.ndim != x.ndim or any(idx.shape[k] != x.shape[k] for k in range(x.ndim) if k != d):
                raise NotStreamable("--indices", "take_along_dim streams only indices of the input's shape")

            def fn(t, dd, i):
                return core.take_along_dim(t, i, dd)
        shape = idx.shape
        if d == 0:
            return _Plan(shape, x.dtype, shape[0], None,
                         lambda r0, r1: (fn(full, 0, _t(idx[r0:r1]))._data, None))
        return _Plan(shape, x.dtype, shape[0], row,
                     lambda r0, r1: (fn(_t(x[r0:r1]), d, _t(idx[r0:r1]))._data, (r0 * row, r1 * row)))
    fn = core.index_select
    fn(_probe(x), d, _t(idx[:0] if idx.ndim else idx))   # index checks: core's errors
    shape = list(x.shape)
    shape[d] = idx.size
    vec = idx.reshape(-1)
    if d == 0:
        return _Plan(tuple(shape), x.dtype, vec.size, None,
                     lambda r0, r1: (fn(full, 0, _t(vec[r0:r1]))._data, None))
    return _Plan(tuple(shape), x.dtype, x.shape[0], row,
                 lambda r0, r1: (fn(_t(x[r0:r1]), d, index)._data, (r0 * row, r1 * row)))


def _move_plan(x, op, dim, args):
    row = x[0].nbytes if x.ndim else x.nbytes
    if op == "permute":
        return _permute_plan(x, tuple(args["dims"]), row)
    if op == "transpose":
        a, b = int(args["dim0"]), int(args["dim1"])
        core.transpose(_probe(x), a, b)                       # core's errors
        perm, a, b = list(range(x.ndim)), a % x.ndim, b % x.ndim
        perm[a], perm[b] = perm[b], perm[a]
        return _permute_plan(x, tuple(perm), row)
    if op == "flip":
        return _flip_plan(x, tuple(args.get("dims", (dim,))), row)
    d = _wrap(dim, x.ndim)
    if op == "narrow":
        return _narrow_plan(x, d, row, args)
    return _index_plan(x, op, d, row, args)


def _reduce0(x, op, progress, block_bytes, strict=False):
    """sum/mean/amax over dim 0, accumulating blocks of rows (the result stays in memory: it is at
    most the input over its first dim). Float sums follow core's (torch's) cascade order block by block
    (_sum_order.Dim0Sum); a long vector (one element per row) is summed in float64 (int64) partials and
    rounded once, and refused where `strict` asks for core's exact result."""
    fn = getattr(core, op)
    dt = fn(_t(x[:1]), 0)._data.dtype      # the result dtype, and core's errors (mean of ints...)
    n = x.shape[0]
    if n == 0:
        return fn(_t(x), 0)._data
    row = max(x[0].nbytes, 1)
    rows = max(1, block_bytes // row)
    vector = x[0].size == 1
    steps = -(-n // rows)
    if steps == 1:
        return fn(_t(x), 0)._data           # fits in one block: the in-memory op itself
    if strict and vector and dt.kind == "f" and op != "amax":
        raise NotStreamable(arg_of(op), "a float vector's blocked sum is not NumPy's pairwise sum")
    acc = None
    ordered = None if op == "amax" or dt.kind != "f" or vector else _sum_order.Dim0Sum.create(
        n, x.shape[1:], np.float32 if dt == np.float16 and op == "mean" else dt)   # core's (torch's) sum order
    for k, r0 in enumerate(range(0, n, rows)):
        b = x[r0:r0 + rows]
        if ordered is not None:
            ordered.feed(b.astype(ordered.dtype, copy=False))
        elif op == "amax":
            v = fn(_t(b), 0)._data
            acc = v if acc is None else np.maximum(acc, v)           # NaN propagates, as amax
        elif vector or dt.kind != "f":
            wide = np.float64 if dt.kind == "f" else np.int64
            v = b.sum(axis=0, dtype=wide)
            acc = v if acc is None else acc + v
        else:
            src = b if acc is None else np.concatenate([acc[None].astype(b.dtype, copy=False), b])
            acc = np.add.reduce(src, axis=0, dtype=dt)
        npyfile.release(x, r0 * row, (r0 + b.shape[0]) * row)
        if progress:
            progress(k + 1, steps)
    if ordered is not None:
        acc = ordered.result()
        if op == "mean":   # ATen's mean: the sum divided by the count, in the accumulation dtype
            acc = np.divide(acc, ordered.dtype.type(n), dtype=ordered.dtype)
        return acc.astype(dt)
    acc = np.asarray(acc).astype(dt, copy=False)
    if op == "mean":   # np.mean: the sum divided by the count in the result dtype
        acc = np.true_divide(acc, np.intp(n), out=np.array(acc, dtype=dt), casting="unsafe")
    return np.asarray(acc, dtype=dt)


VARIANCES = ("var", "std")


def variance_all(src, op, *, unbiased=None, correction=None, keepdim=False, arg="INPUT", progress=None,
                 block_bytes=BLOCK_BYTES):
    """var / std over every element of the .npy file `src` in two passes over blocks, in float64 (the
    mean, then the sum of squared deviations), rounded once to the input's dtype: ATen's full
    variance on CPU (a float64 two-pass) rather than NumPy's, whose temporaries are the input's size.
    NotStreamable where the in-memory op should answer (no degrees of freedom left, Fortran order)."""
    from core.ops.reduce.variance import _correction
    x = io.open_npy(src, arg=arg, check=False)
    if not x.flags.c_contiguous:
        raise NotStreamable(arg, "a Fortran-order .npy does not stream")
    fn, keepdim = getattr(core, op), bool(keepdim)
    c = _correction(unbiased, correction)
    flat = x.reshape(-1)
    n = flat.size
    if not 0 <= c < min(n, 1 << 20) - 2:
        raise NotStreamable(arg, "few or no degrees of freedom: the in-memory op warns and answers")
    probe = _t(flat[:int(np.ceil(c)) + 2])                                  # degrees of freedom left
    dt = fn(probe, None, unbiased, keepdim, correction=correction)._data.dtype   # core's errors
    step = max(1, min(block_bytes, 16 << 20) // 8)      # float64 temporaries of 16 MiB
    total = 2 * -(-n // step)

    def blocks():
        for k, i in enumerate(range(0, n, step)):
            yield k, flat[i:i + step].astype(np.float64)
            npyfile.release(flat, i * flat.itemsize, min(i + step, n) * flat.itemsize)
    s = 0.0
    for k, b in blocks():
        s += float(np.add.reduce(b))
        if progress:
            progress(k + 1, total)
    mean = s / n
    m2 = 0.0
    for k, b in blocks():
        b -= mean
        m2 += float(np.dot(b, b))
        if progress:
            progress(total // 2 + k + 1, total)
    v = m2 / (n - c)
    res = np.asarray(np.sqrt(v) if op == "std" else v).astype(dt)
    return res.reshape((1,) * x.ndim if keepdim else ())


def arg_of(op):
    return op.replace("_", "-")


def _rows_per_block(plan, block_bytes):
    out_row = int(np.prod(plan.shape[1:], dtype=np.int64)) * np.dtype(plan.dtype).itemsize if plan.shape else 1
    per_row = max(out_row, plan.row_bytes or 0, 1)
    return max(1, block_bytes // per_row)


def _blocks(plan, x, block_bytes, progress):
    """Yield the output's blocks in order, dropping consumed input pages."""
    rows = _rows_per_block(plan, block_bytes)
    steps = max(1, -(-plan.rows // rows))
    for k, r0 in enumerate(range(0, plan.rows, rows)):
        vals, used = plan.block(r0, min(r0 + rows, plan.rows))
        yield np.ascontiguousarray(vals, dtype=plan.dtype)
        if used is not None:
            npyfile.release(x, *used)
        if progress:
            progress(k + 1, steps)


def _write(plan, chunks, f):
    npyfile.write_header(f, plan.dtype, plan.shape)
    for c in chunks:
        io.write_all(f, memoryview(c.reshape(-1)).cast("B"))


def _cat_plan(srcs, dim, arg):
    """cat of memory-mapped files: each block is core.cat of the inputs' slices (core promotes the
    dtypes); along dim 0 a block of output rows takes rows from the one or two inputs it spans."""
    xs = [io.open_npy(p, arg=f"{arg}[{k}]", check=False) for k, p in enumerate(srcs)]
    if any(x.ndim == 0 or not x.flags.c_contiguous for x in xs) or len({x.ndim for x in xs}) != 1:
        raise NotStreamable(arg, "cat streams C-order inputs of one rank")   # 0-d / legacy empty: in memory
    shape = tuple(core.cat([core.from_numpy(np.broadcast_to(np.zeros((), x.dtype), x.shape)) for x in xs],
                           dim).shape)                                       # core's checks, no data read
    dtype = core.cat([_t(np.zeros(1, x.dtype)) for x in xs])._data.dtype   # core's type promotion
    d = _wrap(dim, xs[0].ndim)
    rows = [x[0].nbytes for x in xs]
    if d != 0:
        def block(r0, r1):
            vals = core.cat([_t(x[r0:r1]) for x in xs], d)._data
            for x, row in zip(xs, rows):
                npyfile.release(x, r0 * row, r1 * row)
            return vals, None
        return xs[0], _Plan(shape, dtype, shape[0], sum(rows), block)
    starts = np.cumsum([0] + [x.shape[0] for x in xs])

    def block0(r0, r1):
        parts = []
        for x, row, s0 in zip(xs, rows, starts):
            a, b = max(r0 - s0, 0), min(r1 - s0, x.shape[0])
            if a < b:
                parts.append(_t(x[a:b]))
                npyfile.release(x, a * row, b * row)
        return core.cat(parts, 0)._data.astype(dtype, copy=False), None
    return xs[0], _Plan(shape, dtype, shape[0], max(rows), block0)


def plan(src, op, *, dim=0, keepdim=False, arg="INPUT", **args):
    """(memory-mapped input, _Plan or None for a long 1-d reduction); CliError/RuntimeError as core."""
    if op not in OPS:
        raise CliError(arg, f"{op} does not stream (streaming ops: {', '.join(OPS)})")
    if op == "cat":
        return _cat_plan(list(src), dim, arg)
    x = io.open_npy(src, arg=arg, check=False)
    if x.ndim == 0:
        raise CliError(arg, f"{src} holds a 0-d tensor: nothing to stream")
    if not x.flags.c_contiguous:
        raise NotStreamable(arg, f"{src}: a Fortran-order .npy does not stream; save it in C order")
    if op in REDUCTIONS:
        return x, _reduce_plan(x, op, dim, keepdim)
    return x, _move_plan(x, op, dim, args)


def run(op, src, out=None, *, dim=0, keepdim=False, block_bytes=BLOCK_BYTES, progress=None, arg="INPUT",
        strict=False, **args):
    """Stream `op` over the .npy file `src` (see the module docstring). Returns the result as an
    ndarray when `out` is None, else the path written ("-": stdout). strict=True: NotStreamable
    where the result could differ from the in-memory op's in the last bits (a float vector's sum)."""
    x, p = plan(src, op, dim=dim, keepdim=keepdim, arg=arg, **args)
    if p is None:
        d = _wrap(dim, x.ndim)
        res = _reduce0(x, op, progress, block_bytes, strict)
        res = res.reshape(_out_shape(x.shape, d, keepdim))
        if out is None:
            return res
        return io.save_result(core.from_numpy(res), out)
    if out is None:
        parts = list(_blocks(p, x, block_bytes, progress))
        res = np.concatenate([c.reshape(-1) for c in parts]) if parts else np.empty(0, p.dtype)
        return res.reshape(p.shape)
    if out == "-":
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None or io.stdout_is_terminal():
            raise CliError("--out", "refusing to write binary .npy data to a terminal; redirect or pipe it")
        with io.output_errors(out):
            sys.stdout.flush()
            _write(p, _blocks(p, x, block_bytes, progress), stream)
            stream.flush()
        return out
    if not out.lower().endswith(".npy"):
        raise CliError("--out", f"streamed results are written as .npy (got {out})")
    with io.output_errors(out), io.atomic_output(out) as tmp, open(tmp, "wb") as f:
        _write(p, _blocks(p, x, block_bytes, progress), f)
    return out
