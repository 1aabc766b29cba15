"""torch's CPU floating sum order, reproduced with NumPy reductions (bit for bit).

PyTorch (ATen/native/cpu/SumKernel.cpp, `cascade_sum`, one thread) sums a float tensor as follows.
TensorIterator puts the reduced dims first (smallest input stride first), then the kept dims in the
output's order, and coalesces adjacent dims; the first two dims form a 2-D kernel call, the others are
outer loops, and every call adds its partial sums into the zero-filled output (`out += partial`).
The kernel: a contiguous inner reduction loads 32-byte vectors, keeps 4 of
them as independent accumulators (ILP), sums them with a 4-level cascade (`multi_row_sum`, chunks of
`2 ** max(4, ceil_log2(n) // 4)` rows), adds leftover vectors to accumulator 0, folds the 4 together,
then adds the scalar tail and the vector's lanes one by one; an outer reduction (contiguous kept dim)
runs the cascade column-wise over groups of 4 vectors of columns, then single vectors and single
columns with the same 4-way row interleave; strided cases use 4 scalar accumulators the same way.

Half (float16) adds in float: a 16-half vector loads as 8 float lanes, lane i = h[i] + h[8 + i]; the
output (half) takes `out += partial` rounded each call; and when the first two iterator dims are both
reduced, ATen (should_use_acc_buffer) sums self.to(float) in float32 and rounds once.

Every chain of additions there is a left fold, which `np.add.reduce` over a non-innermost axis is
(NumPy's pairwise summation only applies along the innermost axis), so each step below is one NumPy
reduction over a reshaped view. `torch_sum` returns None where this module does not reproduce torch
(zero or negative strides, a CPU other than x86-64, other dtypes): callers keep their own path there.
Torch with several threads splits a large full sum between them (a different order): the single-threaded
order is the one reproduced.
"""
from __future__ import annotations

import platform

import numpy as np

from ._warn import _ERRSTATE, _IGNORE

# Bytes of one Vectorized<T> in the sum kernel on x86-64: 32. DispatchStub runs a kernel's AVX512 build only
# for kernels registered with ALSO_REGISTER_AVX512, which sum_stub is not, so an AVX512 CPU runs the AVX2
# kernel (8 floats), and the generic build's Vectorized is 32 bytes too. Other CPUs are not modelled.
_VEC_BYTES = 32 if platform.machine().lower() in ("x86_64", "amd64") else None
MODELLED = _VEC_BYTES is not None


def _fold(a, axis):
    """Left fold (((a0 + a1) + a2) + ...) along axis, the way one C accumulator adds: np.add.reduce unless
    the reduced axis would be NumPy's inner loop (then NumPy sums pairwise), else a cumulative sum."""
    n = a.shape[axis]
    if n == 1:
        return np.take(a, 0, axis)
    if n and _outer_axis(a, axis % a.ndim):
        return np.add.reduce(a, axis)
    return np.add.accumulate(a, axis).take(-1, axis) if n else np.zeros(np.delete(a.shape, axis), a.dtype)


def _outer_axis(a, axis):
    """True when some other axis of size > 1 has a smaller stride than `axis`, so NumPy's iterator keeps
    `axis` out of the inner loop and adds whole rows in order."""
    s = abs(a.strides[axis])
    return any(m > 1 and abs(st) < s for i, (m, st) in enumerate(zip(a.shape, a.strides)) if i != axis)


def _red(a):
    """_fold over axis -2 of (..., rows, lanes): the common case checked in O(1)."""
    if a.shape[-2] == 1:
        return a[..., 0, :]
    if a.shape[-1] > 1 and abs(a.strides[-1]) < abs(a.strides[-2]):
        if a.size >= _BIG and a.ndim > 2 and a.strides[-1] == a.itemsize and a.shape[-1] * a.itemsize <= 256:
            return _red_transposed(a)
        return np.add.reduce(a, -2)
    return _fold(a, a.ndim - 2)


_BIG = 1 << 16


def _red_transposed(a):
    """_red of a large (..., rows, lanes) with short contiguous lanes. NumPy pays ~10 ns per inner loop, i.e.
    per row of lanes; moving whole lane-rows as opaque items (one memcpy each) to a (rows, ...) buffer
    lets the fold run over long contiguous rows instead: about half the time, the same additions."""
    lanes = a.shape[-1]
    items = a.view(np.dtype((np.void, lanes * a.itemsize)))[..., 0]
    if a.ndim == 3 and a.nbytes > _BLOCK_BYTES:
        return _red_transposed_blocks(a, items)
    buf = np.empty((a.shape[-2],) + a.shape[:-2], items.dtype)
    np.copyto(buf, np.moveaxis(items, -1, 0))
    flat = buf.view(a.dtype).reshape(a.shape[-2], -1)
    return np.add.reduce(flat, 0).reshape(a.shape[:-2] + (lanes,))


_BLOCK_BYTES = 1 << 20


def _red_transposed_blocks(a, items):
    """_red_transposed of a large (chunks, rows, lanes) through one buffer of ~1 MiB, block of chunks by block: the
    same folds (each chunk's rows in order), but a buffer the allocator reuses and the cache keeps, instead of a
    fresh copy of the whole array (its page faults alone were ~25% of a 4 MiB sum's time)."""
    chunks, rows, lanes = a.shape
    k = max(1, _BLOCK_BYTES // (rows * lanes * a.itemsize))
    scratch = np.empty(k * rows, items.dtype)
    out = np.empty((chunks, lanes), a.dtype)
    red, copyto = np.add.reduce, np.copyto
    for i in range(0, chunks, k):
        j = min(i + k, chunks)
        b = scratch[:rows * (j - i)].reshape(rows, j - i)
        copyto(b, items[i:j].T)
        red(b.view(a.dtype).reshape(rows, -1), 0, out=out[i:j].reshape(-1))
    return out


def _ceil_log2(n):
    return 0 if n <= 1 else (n - 1).bit_length()


def _cascade(a):
    """multi_row_sum: a is (..., rows, lanes); each lane summed over rows through 4 levels of
    accumulators, chunks of 2**level_power rows, then acc0 + acc1 + acc2 + acc3. Returns (..., lanes)."""
    size = a.shape[-2]
    step = 1 << max(4, _ceil_log2(size) // 4)
    if size < step:                     # every row lands in acc0
        return _red(a)
    lead, lanes = a.shape[:-2], a.shape[-1]
    total = None                        # acc0 + acc1 + ..., the leftover partial of each level in turn
    cur = a
    for level in range(4):
        n = cur.shape[-2]
        full = n // step * step if level < 3 else 0
        if full < n:
            part = _red(cur[..., full:, :])
            total = part if total is None else total + part
        if not full:
            break
        cur = _red_chunks(cur[..., :full, :].reshape(lead + (full // step, step, lanes)))
    return total


_CHUNK_BYTES = 16 << 20


def _red_chunks(a):
    """_red of (chunks, step, lanes), a few MiB of chunks at a time: each chunk's fold is independent of
    the others, so the values are _red's, and the temporaries (_red_transposed's buffer) stay small
    whatever the input's size (a memory-mapped file of GiBs). Other shapes: _red."""
    per = a.nbytes // max(a.shape[0], 1) if a.ndim == 3 else 0
    if not per or a.nbytes <= _CHUNK_BYTES:
        return _red(a)
    k = max(1, _CHUNK_BYTES // per)
    out = np.empty((a.shape[0], a.shape[2]), a.dtype)
    for i in range(0, a.shape[0], k):
        out[i:i + k] = _red(a[i:i + k])
    return out


def _ilp_rows(a):
    """row_sum: a is (..., n, lanes) summed over n with 4 interleaved accumulators (row 4i+k goes to
    accumulator k), each through the cascade; leftover rows are added to accumulator 0, then
    acc0 + acc1 + acc2 + acc3. Returns (..., lanes)."""
    n = a.shape[-2]
    q = n // 4
    lead, lanes = a.shape[:-2], a.shape[-1]
    if not q:
        return _red(a)
    p = _cascade(a[..., :4 * q, :].reshape(lead + (q, 4 * lanes))).reshape(lead + (4, lanes))
    if 4 * q == n:
        return _red(p)
    return _red(np.concatenate((p[..., :1, :], a[..., 4 * q:, :], p[..., 1:, :]), -2))


def _inner_vec(rows, vec, half=False):
    """vectorized_inner_sum over contiguous rows (..., n) with n >= vec: vectors of `vec` elements through
    row_sum, then 0 + the scalar tail + the lanes, one at a time. A half vector (16 elements) loads as 8
    float lanes, each the sum of two neighbours (load_reduce_vec)."""
    n = rows.shape[-1]
    nv = n // vec
    vecs = rows[..., :nv * vec].reshape(rows.shape[:-1] + (nv, vec))
    if half:
        vecs = vecs.astype(np.float32)
        vecs = vecs[..., :vec // 2] + vecs[..., vec // 2:]
    acc = _ilp_rows(vecs)
    tail = rows[..., nv * vec:]
    chain = np.concatenate((tail.astype(acc.dtype, copy=False), acc), -1) if nv * vec < n else acc
    return np.add.accumulate(chain, -1)[..., -1]


def _outer_vec(block, vec):
    """vectorized_outer_sum on (..., rows, cols) with contiguous cols: the cascade over all rows for
    each group of 4 vectors of columns, row_sum (4-way row interleave) for the remaining columns."""
    cols = block.shape[-1]
    g = cols // (4 * vec) * (4 * vec)
    if g == cols:
        return _cascade(block)
    if not g:
        return _ilp_rows(block)
    return np.concatenate((_cascade(block[..., :g]), _ilp_rows(block[..., g:])), -1)


def _layout(shape, strides, reduced):
    """TensorIterator's dims for a sum, innermost first: reduced dims (by input stride), then kept dims
    (last dim innermost), size-1 dims dropped, neighbours of one kind coalesced where the input's strides
    allow (the output is contiguous, so its strides always do). [(size, stride, is_reduced)], or None."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if any(strides[d] <= 0 for d in dims):
        return None
    red = sorted((d for d in dims if d in reduced), key=lambda d: strides[d])
    out = []
    for d in red + [d for d in reversed(dims) if d not in reduced]:
        r = d in reduced
        if out and out[-1][2] == r and out[-1][0] * out[-1][1] == strides[d]:
            out[-1] = (out[-1][0] * shape[d], out[-1][1], r)
        else:
            out.append((shape[d], strides[d], r))
    return out


def _kernel(view, lay, vec):
    """One cascade_sum kernel call for every outer position at once. view's axes are lay's reversed
    (outermost first); returns the partial sums per (outer..., dim 1), or (outer...,) for a 1-d layout.
    vec: elements per Vectorized<scalar_t>; half inputs add in float (8 lanes), loaded as float."""
    isz = view.itemsize
    half = view.dtype == np.float16
    lanes = vec // 2 if half else vec
    size0, s0, _ = lay[0]
    if s0 == isz and size0 >= vec:
        return _inner_vec(view, vec, half)
    if half:
        view = view.astype(np.float32)
    if len(lay) == 1:
        return _ilp_rows(view[..., None])[..., 0]
    size1, s1, red1 = lay[1]
    if not red1 and s1 == isz and size1 >= vec:
        return _outer_vec(np.swapaxes(view, -1, -2), lanes)
    if red1 or s0 < s1:
        return _ilp_rows(view[..., None])[..., 0]
    return _outer_vec(np.swapaxes(view, -1, -2), 1)


def _flat(x, vec):
    """vectorized_inner_sum of one contiguous 1-d array (n >= vec): _inner_vec with the fewest NumPy calls,
    the common full sum of a small tensor."""
    n = x.size
    nv = n // vec
    q = nv >> 2
    w = vec << 2
    if q:
        if q < 16:                           # every row in the cascade's acc0
            p = x[:w] if q == 1 else np.add.reduce(x[:q * w].reshape(q, w), 0)
        elif q < 256:                        # chunks of 16 rows (acc1) + leftover rows (acc0): _cascade inlined
            nb = q >> 4
            if nb > 1:
                p = np.add.reduce(np.add.reduce(x[:nb * 16 * w].reshape(nb, 16, w), 1), 0)
            else:
                p = np.add.reduce(x[:16 * w].reshape(16, w), 0)
            if q > nb * 16:
                left = x[nb * 16 * w:q * w].reshape(-1, w)
                p = (np.add.reduce(left, 0) if len(left) > 1 else left[0]) + p
        else:
            p = _cascade(x[:q * w].reshape(q, w))
        if nv > 4 * q:                       # leftover vectors go to accumulator 0 before the others
            p = np.concatenate((p[:vec], x[q * w:nv * vec], p[vec:]))
        p0 = np.add.reduce(p.reshape(-1, vec), 0)
    else:
        p0 = np.add.reduce(x[:nv * vec].reshape(nv, vec), 0) if nv > 1 else x[:vec]
    if nv * vec < n:
        p0 = np.concatenate((x[nv * vec:], p0))
    return np.add.accumulate(p0)[-1]


def torch_sum(d, reduced):
    """The sum of ndarray d (float16, float32 or float64, already in the result dtype) over the dims in
    `reduced`, added in torch's order; returns the kept dims' values as a C-ordered array of the kept
    sizes (the caller reshapes), or None where torch's order is not modelled (module docstring). Silent on
    overflow, as torch (whatever the user's warning filters)."""
    tok = _ERRSTATE.set(_IGNORE)     # quietly(), inlined: a bias gradient's sum is on every training step
    try:
        return _torch_sum(d, reduced)
    finally:
        _ERRSTATE.reset(tok)


def full_sum(d):
    """torch_sum(d, all dims) for a C-contiguous float32 / float64 d with at least one element (x.sum(), a loss's
    sum): _torch_sum's first case without its dtype and layout checks, as a 0-dim array."""
    tok = _ERRSTATE.set(_IGNORE)
    try:
        vec = _VEC_BYTES // d.itemsize
        x = d.reshape(-1)
        if x.size >= vec:
            r = _flat(x, vec)
        else:                                # row_sum's 4 scalar accumulators: x0 + x4.. + x1 + x2 + x3
            r = np.add.accumulate(x if x.size < 4 else np.concatenate((x[:1], x[4:], x[1:4])))[-1]
        return np.array(r if r else _ZEROS[d.dtype])
    finally:
        _ERRSTATE.reset(tok)


_ZEROS = {np.dtype(np.float32): np.float32(0), np.dtype(np.float64): np.float64(0)}
# sum_leading's plans for a C-ordered (rows, cols) whose rows are whole 16-row chunks (16 <= rows < 256, whole
# groups of 4 vectors of columns): (shape, dtype, k) -> ((chunks, 16, *kept), the output's 0, the kept shape,
# the C-ordered strides)
_LEAD_PLANS = {}
_addred = np.add.reduce


def sum_leading(d, k):
    """torch_sum(d, (0, ..., k-1)) for the common at::sum_to of a bias gradient (k < d.ndim), without the
    general layout analysis: TensorIterator coalesces a C-ordered array's leading reduced dims into one
    (rows) and its kept dims into one (cols), so the kernel is vectorized_outer_sum on (rows, cols). With
    fewer than 256 rows and whole groups of 4 vectors of columns that is the cascade's acc0 (rows past the
    last 16-row chunk) + acc1 (the chunks' sums, in order), then the output's 0 + partial. That 0 is added
    first here ((0 + a) + b equals 0 + (a + b) bit for bit: adding 0 only turns -0.0 into 0.0)."""
    plan = _LEAD_PLANS.get((d.shape, d.dtype, k))
    if plan is not None and d.strides == plan[3]:     # the same two reductions as below, planned once a shape
        return sum_planned(d, plan)
    dt = d.dtype
    if _VEC_BYTES is not None and (dt == np.float32 or dt == np.float64) and d.flags.c_contiguous:
        rows = 1
        for m in d.shape[:k]:
            rows *= m
        cols = d.size // rows if rows else 0
        if rows > 1 and cols > 1:
            vec = _VEC_BYTES // d.itemsize
            block = d.reshape(rows, cols)
            zero = _ZEROS[dt]
            tok = _ERRSTATE.set(_IGNORE)
            try:
                if rows >= 256 or cols % (4 * vec):
                    part = _outer_vec(block, vec if cols >= vec else 1)
                    part += zero
                    return part
                if rows < 16:
                    return np.add.reduce(block, 0, initial=zero)
                full = rows >> 4 << 4
                if full == rows and len(_LEAD_PLANS) < 256:
                    _LEAD_PLANS[(d.shape, dt, k)] = ((rows >> 4, 16) + d.shape[k:], zero, d.shape[k:], d.strides)
                if full == 16:
                    out = np.add.reduce(block[:16], 0, initial=zero)
                else:
                    out = np.add.reduce(np.add.reduce(block[:full].reshape(full >> 4, 16, cols), 1), 0,
                                        initial=zero)
                if full < rows:     # acc0 (the rows past the last chunk) + acc1 (the chunks)
                    out = np.add.reduce(block[full:], 0) + out if rows - full > 1 else block[full] + out
                return out
            finally:
                _ERRSTATE.reset(tok)
    return torch_sum(d, tuple(range(k)))


def sum_planned(d, plan):
    """sum_leading by a plan of _LEAD_PLANS (d of the plan's shape, dtype and strides), shaped as the kept dims: the
    chunks' sums, then the output's 0 + their sum; NumPy's warnings off unless the caller (a backward formula)
    already turned them off."""
    if _ERRSTATE.get() is _IGNORE:
        return _addred(_addred(d.reshape(plan[0]), 1), 0, None, None, False, plan[1])
    tok = _ERRSTATE.set(_IGNORE)
    try:
        return _addred(_addred(d.reshape(plan[0]), 1), 0, None, None, False, plan[1])
    finally:
        _ERRSTATE.reset(tok)


def _torch_sum(d, reduced):
    dt = d.dtype
    if _VEC_BYTES is None or d.size == 0 or (dt != np.float32 and dt != np.float64 and dt != np.float16):
        return None
    vec = _VEC_BYTES // d.itemsize
    zero = dt.type(0)
    if dt != np.float16 and d.flags.c_contiguous and (d.ndim == 1 or len(reduced) == d.ndim):
        x = d.reshape(-1)                    # the common full sum, first
        if x.size >= vec:
            r = _flat(x, vec)
        else:                                # row_sum's 4 scalar accumulators: x0 + x4.. + x1 + x2 + x3
            r = np.add.accumulate(x if x.size < 4 else np.concatenate((x[:1], x[4:], x[1:4])))[-1]
        return np.array(r if r else zero)
    lay = _layout(d.shape, d.strides, reduced)
    if lay is None:
        return None
    if not lay or not lay[0][2]:             # nothing left to reduce: out = 0 + x
        return np.add(d, zero)
    view = np.lib.stride_tricks.as_strided(d, tuple(s for s, _, _ in reversed(lay)),
                                           tuple(st for _, st, _ in reversed(lay)), writeable=False)
    nred = sum(1 for _, _, r in lay[1:] if r)
    if nred and dt == np.float16:
        # should_use_acc_buffer: a half sum whose first two dims are both reduced runs as a float32 sum of
        # self.to(float) (its dims in the input's stride order, as NumPy's order="K"), rounded to half once
        part = torch_sum(d.astype(np.float32, order="K"), reduced)
        return None if part is None else part.astype(dt)
    part = _kernel(view, lay, vec)
    if nred:                                 # each kernel call adds its rows' sums into the same outputs
        part = _fold(part.reshape(part.shape[:part.ndim - nred] + (-1,)), part.ndim - nred)
    return np.add(part, np.float32(0) if part.dtype == np.float32 else zero).astype(dt, copy=False)


class _Level:
    """One accumulator of multi_row_sum fed a stream of lane vectors: folds them, and hands its sum to the
    next level after every `step` of them (never, for the last level; only within the first `limit` items
    for level 0, whose rows past the last whole chunk stay in acc0)."""

    def __init__(self, step, depth, limit=None):
        self.step, self.limit, self.count, self.acc = step, limit, 0, None
        self.up = _Level(step, depth - 1) if depth > 1 else None

    def feed(self, x):
        """x: (m, lanes) items, in order."""
        while len(x):
            room = len(x) if self.up is None else self.step - self.count % self.step
            if self.limit is not None:
                room = min(room, self.limit - self.count) if self.count < self.limit else len(x)
            if self.up is not None and self.count % self.step == 0 and (self.limit is None or
                                                                       self.count + self.step <= self.limit):
                k = len(x) // self.step if self.limit is None else \
                    min(len(x) // self.step, (self.limit - self.count) // self.step)
                if k:                     # whole chunks at once: their folds go up as one block
                    self.up.feed(_red(x[:k * self.step].reshape(k, self.step, -1)))
                    self.count += k * self.step
                    x = x[k * self.step:]
                    continue
            take = x[:room]
            self.acc = _red(take if self.acc is None else np.concatenate((self.acc[None], take)))
            self.count += len(take)
            x = x[len(take):]
            if self.up is not None and self.count % self.step == 0 and (self.limit is None or
                                                                       self.count <= self.limit):
                self.up.feed(self.acc[None])
                self.acc = None

    def total(self):
        """acc0 + acc1 + acc2 + acc3 (levels that never received anything add nothing)."""
        t, lv = None, self
        while lv is not None:
            if lv.acc is not None:
                t = lv.acc if t is None else t + lv.acc
            lv = lv.up
        return t


class Dim0Sum:
    """torch's sum over dim 0 of a C-ordered (n, ...) float32/float64 array whose rows arrive in blocks
    (a reduction streamed block by block): `feed` consecutive blocks of rows, then `result()` equals
    torch_sum(whole, {0}) bit for bit. The one-column case (a vector, n > 1) is not handled: None from
    `create`."""

    @classmethod
    def create(cls, n, row_shape, dtype):
        dtype = np.dtype(dtype)
        cols = int(np.prod(row_shape, dtype=np.int64))
        if not MODELLED or dtype not in (np.float32, np.float64) or n < 2 or cols < 2:
            return None
        return cls(n, tuple(row_shape), dtype)

    def __init__(self, n, row_shape, dtype):
        self.n, self.shape, self.dtype = n, row_shape, dtype
        cols = int(np.prod(row_shape, dtype=np.int64))
        vec = _VEC_BYTES // dtype.itemsize
        group = 4 * vec if cols >= vec else 4          # vectorized_outer_sum or scalar_outer_sum
        self.g = cols // group * group
        step = 1 << max(4, _ceil_log2(n) // 4)
        self.cascade = _Level(step, 4, n // step * step) if self.g else None
        q = n // 4
        qstep = 1 << max(4, _ceil_log2(q) // 4)
        self.ilp = _Level(qstep, 4, q // qstep * qstep) if self.g < cols else None
        self.pending = np.empty((0, cols - self.g), dtype)   # rows of an unfinished group of 4
        self.left = []                                         # the n % 4 last rows, for accumulator 0
        self.seen = 0

    def feed(self, block):
        b = np.ascontiguousarray(block, self.dtype).reshape(len(block), -1)
        if self.cascade is not None:
            self.cascade.feed(b[:, :self.g])
        if self.ilp is not None:
            rest = b[:, self.g:]
            grouped = self.n // 4 * 4
            inside = max(0, min(len(rest), grouped - self.seen))
            self.left.extend(rest[inside:])
            rows = np.concatenate((self.pending, rest[:inside])) if len(self.pending) else rest[:inside]
            whole = len(rows) // 4 * 4
            if whole:
                self.ilp.feed(rows[:whole].reshape(whole // 4, -1))
            self.pending = rows[whole:]
        self.seen += len(b)

    def result(self):
        """The sums, shaped like one row."""
        parts = []
        if self.cascade is not None:
            parts.append(self.cascade.total())
        if self.ilp is not None:
            lanes = self.pending.shape[1]
            p = self.ilp.total()
            p = np.zeros(4 * lanes, self.dtype) if p is None else p
            p = p.reshape(4, lanes)
            stack = np.concatenate((p[:1], np.array(self.left, self.dtype).reshape(-1, lanes), p[1:]))
            parts.append(_red(stack))
        r = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return np.add(r, self.dtype.type(0)).reshape(self.shape)
