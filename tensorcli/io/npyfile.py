""".npy files without loading them: memory-mapped inputs, budgeted .npz members, atomic outputs.

* `open_npy(path)` maps a .npy file read-only (np.load(mmap_mode='r') semantics, header checked by
  us first: no pickles, supported dtypes, file long enough for its header's shape).
* `read_member(stream, nbytes_limit)` reads an .npz member's data growing ONE buffer as bytes are
  actually decompressed, so a member whose header or zip entry lies about its size costs at most
  what it really holds (and never more than the allocation limit).
* `atomic_output(path)` yields a temporary path in the same directory, renamed over `path` only
  when the block succeeds; on any failure the temporary file is removed and `path` is untouched.
"""
from __future__ import annotations

import contextlib
import mmap
import os
import tempfile

import numpy as np
from numpy.lib import format as npf

MMAP_MIN_BYTES = 64 * 1024 * 1024   # .npy files from this size on are mapped rather than read
CHUNK = 16 * 1024 * 1024


def read_header(f):
    """(shape, fortran_order, dtype, data_offset) of a .npy stream positioned at 0 (offset None
    for streams without tell(), e.g. stdin)."""
    version = npf.read_magic(f)
    reader = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
    shape, fortran, dtype = reader(f)
    tell = getattr(f, "tell", None)
    return tuple(int(s) for s in shape), bool(fortran), dtype, tell() if tell else None


def write_header(f, dtype, shape):
    """The .npy header np.save writes for a C-order array (version 1.0 unless it does not fit)."""
    header = {"descr": npf.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
              "shape": tuple(int(s) for s in shape)}
    try:
        npf.write_array_header_1_0(f, header)
    except ValueError:
        npf.write_array_header_2_0(f, header)


def map_npy(path, shape, fortran, dtype, offset, mode="r"):
    """The array of a .npy file as a memory map (C or Fortran order as stored); 0-size safe."""
    count = 1
    for s in shape:
        count *= s
    if count == 0:
        return np.empty(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode=mode, offset=offset, shape=shape,
                     order="F" if fortran else "C")


def _mmap_of(a):
    """(the mmap.mmap behind an array of map_npy, the array's data address) or (None, None)."""
    base = a
    while base is not None and not isinstance(base, np.memmap):
        base = getattr(base, "base", None)
    mm = getattr(base, "_mmap", None)
    if mm is None:
        return None, None
    start = base.ctypes.data - base.offset % mmap.ALLOCATIONGRANULARITY
    return mm, start


def release(a, lo, hi):
    """Drop the pages of bytes [lo, hi) of the memory-mapped array `a` (offsets from a's first byte)
    from this process (madvise DONTNEED; read-only shared pages stay in the page cache), so a
    sequential pass over a map does not pile the file up in RSS. No-op for other arrays."""
    mm, start = _mmap_of(a)
    if mm is None or hi <= lo or not hasattr(mm, "madvise"):
        return
    page = mmap.PAGESIZE
    rel_lo = a.ctypes.data - start + lo
    rel_hi = min(a.ctypes.data - start + hi, len(mm))
    first = rel_lo - rel_lo % page
    if rel_hi > first:
        with contextlib.suppress(OSError, ValueError):
            mm.madvise(mmap.MADV_DONTNEED, first, rel_hi - first)


def read_member(stream, nbytes, limit):
    """Exactly `nbytes` of data from a decompressing stream into one bytearray, grown as bytes
    arrive; stops early (returning what it got) when the stream ends, raises MemoryError past
    `limit`. The caller compares len() with nbytes to report truncation."""
    if nbytes > limit:
        raise MemoryError(nbytes)
    buf = bytearray()
    while len(buf) < nbytes:
        chunk = stream.read(min(CHUNK, nbytes - len(buf)))
        if not chunk:
            break
        buf += chunk
    return buf


@contextlib.contextmanager
def atomic_output(path):
    """Yield a temporary path next to `path`; rename it to `path` when the block succeeds, delete
    it otherwise (KeyboardInterrupt and MemoryError included), so `-o` never leaves a partial file."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".part", dir=d)
    os.close(fd)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)   # mkstemp's 0600 would otherwise survive the rename
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
