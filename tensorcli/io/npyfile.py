""".npy files without loading them: memory-mapped inputs, budgeted .npz members, atomic outputs.

* `open_npy(path)` maps a .npy file read-only (np.load(mmap_mode='r') semantics, header checked by
  us first: no pickles, supported dtypes, file long enough for its header's shape).
* `read_member(stream, nbytes_limit)` reads an .npz member's data growing ONE buffer as bytes are
  actually decompressed, so a member whose header or zip entry lies about its size costs at most
  what it really holds (and never more than the allocation limit).
* `atomic_output(path)` yields a temporary path in the same directory, renamed over `path` only
  when the block succeeds; on any failure the temporary file is removed and `path` is untouched.
  It refuses a path that this run reads (`record_input`), a path that is not a regular file, and
  keeps the mode of the file it replaces.
* `read_header(f)` parses a .npy header itself (NumPy's parser quotes the header bytes in its
  errors): versions 1.0, 2.0 and 3.0, at most 10000 bytes, non-negative dims; HeaderError otherwise.
"""
from __future__ import annotations

import ast
import contextlib
import mmap
import os
import stat
import struct
import tempfile

import numpy as np
from numpy.lib import format as npf

MMAP_MIN_BYTES = 64 * 1024 * 1024   # .npy files from this size on are mapped rather than read
CHUNK = 16 * 1024 * 1024


VERSIONS = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}
MAX_HEADER_BYTES = 10000   # NumPy's own limit for headers it parses without allow_pickle
_KEYS = {"descr", "fortran_order", "shape"}


class HeaderError(ValueError):
    """A .npy header that cannot be used; the message never quotes the file's bytes."""


def _read_n(f, n):
    out = b""
    while len(out) < n:
        chunk = f.read(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


def read_header(f):
    """(shape, fortran_order, dtype, data_offset) of a .npy stream positioned at 0 (offset None
    for streams without tell(), e.g. stdin). HeaderError names what is wrong (version, length,
    syntax, keys, shape, descr) without quoting the header text."""
    magic = _read_n(f, 8)
    if len(magic) < 8 or magic[:6] != b"\x93NUMPY":
        raise HeaderError("bad magic bytes")
    version = (magic[6], magic[7])
    if version not in VERSIONS:
        raise HeaderError(f"unsupported .npy format version {version[0]}.{version[1]} (supported: 1.0, 2.0, 3.0)")
    fmt, encoding = VERSIONS[version]
    size_bytes = _read_n(f, struct.calcsize(fmt))
    if len(size_bytes) < struct.calcsize(fmt):
        raise HeaderError("the file ends inside the header")
    hlen = struct.unpack(fmt, size_bytes)[0]
    if hlen > MAX_HEADER_BYTES:
        raise HeaderError(f"header of {hlen} bytes is longer than {MAX_HEADER_BYTES}")
    raw = _read_n(f, hlen)
    if len(raw) < hlen:
        raise HeaderError("the file ends inside the header")
    try:
        d = ast.literal_eval(raw.decode(encoding))
    except Exception:  # noqa: BLE001 - SyntaxError, ValueError, MemoryError, RecursionError...
        raise HeaderError("the header is not a Python dict literal") from None
    if not isinstance(d, dict) or set(d) != _KEYS:
        raise HeaderError("the header must be a dict with exactly the keys 'descr', 'fortran_order', 'shape'")
    shape = d["shape"]
    if not isinstance(shape, tuple) or not all(type(x) is int for x in shape):
        raise HeaderError("'shape' is not a tuple of integers")
    if any(x < 0 for x in shape):
        raise HeaderError(f"'shape' {shape} has a negative dimension")
    if len(shape) > 64:
        raise HeaderError(f"'shape' has {len(shape)} dimensions (at most 64)")
    if not isinstance(d["fortran_order"], bool):
        raise HeaderError("'fortran_order' is not True or False")
    try:
        dtype = npf.descr_to_dtype(d["descr"])
    except Exception:  # noqa: BLE001 - NumPy raises TypeError, ValueError, KeyError... for odd descrs
        raise HeaderError("'descr' is not a NumPy dtype description") from None
    tell = getattr(f, "tell", None)
    return tuple(shape), d["fortran_order"], dtype, tell() if tell else None


def data_bytes(shape, dtype):
    """Bytes of data a header promises (shape x itemsize), as a Python int (no overflow)."""
    n = dtype.itemsize
    for s in shape:
        n *= s
    return n


def write_header(f, dtype, shape):
    """The .npy header np.save writes for a C-order array (version 1.0 unless it does not fit)."""
    header = {"descr": npf.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
              "shape": tuple(int(s) for s in shape)}
    try:
        npf.write_array_header_1_0(f, header)
    except ValueError:
        npf.write_array_header_2_0(f, header)


def map_npy(path, shape, fortran, dtype, offset, mode="r"):
    """The array of a .npy file (a path, or an open binary file) as a memory map (C or Fortran
    order as stored); 0-size safe."""
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


# -- what this run reads, so that no output overwrites it ------------------------------------

_INPUTS: dict = {}   # (st_dev, st_ino) -> (st_ctime_ns, the path as given) for each file this command reads


def record_input(st, path):
    """Remember that this command reads the file of `st` (an os.stat result) under `path`."""
    _INPUTS[(st.st_dev, st.st_ino)] = (st.st_ctime_ns, str(path))


_OUTPUTS: dict = {}  # the same, for each file this command has written (-o and --svg on one path)


def forget_inputs():
    """A new command starts (the app calls this around each run: in-process tests run many)."""
    _INPUTS.clear()
    _OUTPUTS.clear()


def input_named(path):
    """The path under which this run read the file `path` names (same device and inode), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _match(_INPUTS, st)


def _match(table, st):
    ctime, name = table.get((st.st_dev, st.st_ino), (None, None))
    return name if ctime == st.st_ctime_ns else None   # another ctime: a reused inode (library callers)


class OutputError(OSError):
    """An output path refused before anything is written (the message says why)."""


def check_output(path):
    """OutputError when `path` is an input of this run or an existing non-regular file (a device,
    a FIFO, a directory: renaming over it would replace the device node, not write to it)."""
    same = input_named(path)
    if same is not None:
        shown = "" if os.path.abspath(same) == os.path.abspath(path) else f" (read as {same})"
        raise OutputError(f"{path} is also an input of this command{shown}; write to another file")
    try:
        st = os.stat(path)
    except OSError:
        return None
    if _match(_OUTPUTS, st) is not None:
        raise OutputError(f"{path} is already written by this command (another output names it)")
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path} is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{path} is not a regular file (a device, FIFO or socket); use - for stdout")
    return st


def _temp_prefix(path):
    """'.NAME.' for the temporary file, NAME cut to 64 bytes: mkstemp adds 8 characters and '.part',
    so the temporary name fits NAME_MAX (255 bytes) whatever the length of a valid output name."""
    raw = os.fsencode(os.path.basename(path))[:64]
    return "." + raw.decode("utf-8", "ignore") + "."


@contextlib.contextmanager
def atomic_output(path, *, keep_empty=True):
    """Yield a temporary path next to `path`; rename it to `path` when the block succeeds, delete
    it otherwise (KeyboardInterrupt and MemoryError included), so `-o` never leaves a partial file.
    Refuses (OutputError) a path that this run reads or that is not a regular file; the file
    replaced keeps its permission bits (a new one gets 0666 less the umask, as open() would).
    `keep_empty=False`: a block that wrote nothing leaves `path` as it was."""
    old = check_output(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".part", dir=d)
    try:
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)   # mkstemp's 0600 would otherwise survive the rename
    finally:
        os.close(fd)
    try:
        yield tmp
        if not keep_empty and os.path.getsize(tmp) == 0:
            os.unlink(tmp)
            return
        check_output(path)   # the block may have read it (a lazily loaded input)
        os.replace(tmp, path)
        with contextlib.suppress(OSError):
            st = os.stat(path)
            _OUTPUTS[(st.st_dev, st.st_ino)] = (st.st_ctime_ns, str(path))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
