"""Tensor arguments in, results out — the API every tensorcli command uses.

A tensor argument (`load_tensor(spec, arg=...)`) is one of:

* a JSON literal: `'[[1,2,3],[4,5,6]]'`, `3`, `true`, `NaN`, or Python literal syntax as copied
  from PyTorch code: `'[0., .5, 1e3]'`, `'[True, False]'`, `'[nan, inf, -inf]'`, `'((1,2),(3,4))'`
  (io/literal.py: a tokenizer, never eval; errors name the column); the dtype is inferred as
  `core.tensor` infers it (ints -> int64, any float -> float32, bools -> bool). A JSON object
  `{"data": ..., "dtype": "int32", "shape": [...]}` is accepted too, and so is the whole
  `--json` output of a tensorcli command (its `"result"`), so JSON output can be piped back in.
  Non-finite floats may be written NaN / Infinity / -Infinity, bare or as strings.
* a path to a `.json`, `.npy` or `.npz` file; `file.npz:key` picks an array (without a key the
  archive must hold exactly one). Files with other names are recognised by their content.
  A .npy of 64 MiB or more (npyfile.MMAP_MIN_BYTES) is memory-mapped read-only, not read
  (`open_npy`); an .npz member is read into one buffer grown as bytes are really decompressed.
* `-` (or `-:key` for an .npz) for stdin, recognised by content: .npy bytes (b"\\x93NUMPY"),
  .npz (b"PK\\x03\\x04") or JSON text. At most one argument per command may read stdin.

Nothing is ever unpickled (object arrays are refused), nothing is evaluated, and sizes are
checked against `core.creation.check_alloc` before any array is allocated; JSON text is
bounded in size (TENSORCLI_MAX_JSON_BYTES, default 16 MiB) and nesting (32 levels).

Results go out with `save_result(result, path)`: `.npy`, `.npz` or `.json` by extension, or
`-` for .npy bytes on stdout (an .npz when the op returns several tensors). Files are written
to a temporary file in the same directory and renamed at the end (`atomic_output`), so a failed
or interrupted command never leaves a partial `-o` file. `result_json`
gives the `{"shape", "dtype", "data"}` object used by `--json`; NaN and infinities are
encoded as the strings "NaN", "Infinity" and "-Infinity" (which `load_tensor` reads back).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
import sys

import numpy as np

from ..errors import CliError
from . import npyfile
from .literal import LiteralError, parse_literal
from .npyfile import atomic_output


def c_order(a):
    """C-contiguous, keeping 0-d arrays 0-d (np.ascontiguousarray returns at least 1-d)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")

MAX_JSON_DEPTH = 32
NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
_NONFINITE_IN = {"nan": float("nan"), "infinity": float("inf"), "-infinity": float("-inf"),
                 "inf": float("inf"), "-inf": float("-inf"), "+inf": float("inf"), "+infinity": float("inf")}
_FILE_EXTS = (".npy", ".npz", ".json")


def max_json_bytes() -> int:
    """TENSORCLI_MAX_JSON_BYTES (a byte count such as 16MiB), default 16 MiB."""
    text = os.environ.get("TENSORCLI_MAX_JSON_BYTES", "").strip()
    if not text:
        return 16 * 1024 * 1024
    from ..services.limits import parse_size
    return parse_size(text, arg="TENSORCLI_MAX_JSON_BYTES")


# -- small argument parsers ---------------------------------------------------------------

def parse_dtype(name: str | None, *, arg: str = "--dtype"):
    """A core dtype from a name ('float32', 'long', 'torch.int64'); CliError listing the choices."""
    if name is None:
        return None
    from core import dtypes as _dt
    key = name.strip()
    key = key[6:] if key.startswith("torch.") else key
    if key not in _dt.ALIASES:
        raise CliError(arg, f"unknown dtype {name!r} (choose from: {', '.join(_dt.ALIASES)})")
    return _dt.ALIASES[key]


def parse_number(text: str, *, arg: str):
    """A Python number from text: int, float (inf/nan allowed), or true/false."""
    s = str(text).strip()
    low = s.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        raise CliError(arg, f"expected a number, got {text!r}") from None


def parse_ints(text: str, *, arg: str) -> tuple:
    """Ints from '1,0,2', '[1, 0, 2]', '(2,3)' or '3'; '' or '[]' gives ()."""
    s = str(text).strip()
    if s[:1] in "[(" and s[-1:] in "])":
        s = s[1:-1]
    parts = [p.strip() for p in s.split(",")] if s.strip() else []
    if parts and parts[-1] == "":
        parts.pop()  # '(3,)'
    out = []
    for p in parts:
        try:
            out.append(int(p))
        except ValueError:
            raise CliError(arg, f"expected comma-separated integers like 1,0,2, got {text!r}") from None
    return tuple(out)


# -- loading -----------------------------------------------------------------------------

def load_tensor(spec: str, *, arg: str, dtype=None, stdin_used: list | None = None):
    """Load one tensor argument (see the module docstring) as a core.Tensor.

    `arg` names the argument in error messages ('INPUT', '--index'); `dtype` (core dtype or
    name) casts the result; `stdin_used` is a per-command list recording which argument
    already read stdin, so that a second `-` is refused."""
    import core
    arr_or_tensor = _load(spec, arg, stdin_used)
    if isinstance(arr_or_tensor, np.ndarray):
        t = core.from_numpy(arr_or_tensor)
    else:
        t = arr_or_tensor
    if dtype is not None:
        dt = parse_dtype(dtype, arg="--dtype") if isinstance(dtype, str) else dtype
        if t.dtype is not dt:
            t = t.to(dt)
    return t


def _load(spec, arg, stdin_used):
    if spec is None:
        raise CliError(arg, "missing tensor")
    spec = str(spec)
    if spec == "-" or spec.startswith("-:"):
        return _load_stdin(spec[2:] or None, arg, stdin_used)
    if not spec.strip():
        raise CliError(arg, "empty argument (expected a JSON literal, a .npy/.npz/.json path or -)")
    path, key = _split_key(spec)
    if path is not None:
        return _load_file(path, key, arg)
    try:
        return _json_tensor(spec, arg, source="")
    except CliError as e:
        looks_like_path = ("/" in spec or os.sep in spec or
                           (("." in spec) and spec.rsplit(".", 1)[1].isalpha()))
        if os.path.exists(spec):
            return _load_file(spec, None, arg)
        if looks_like_path and spec.strip()[:1] not in "[{":
            raise CliError(arg, f"no such file: {spec}") from None
        raise e


def _split_key(spec):
    """(path, key) when spec names a file ('x.npz:key', 'x.npy', an existing file); else (None, None)."""
    base, sep, key = spec.rpartition(":")
    if sep and base.lower().endswith(_FILE_EXTS) and not os.path.exists(spec):
        return base, key  # x.npz:key (a key on .npy/.json is refused with a clear message)
    if spec.lower().endswith(_FILE_EXTS):
        return spec, None
    return None, None


_NOT_REGULAR = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"))
_PSEUDO_ROOTS = ("/proc", "/sys")
_PSEUDO_DEVS: list = []


def _pseudo_devs():
    """st_dev of the kernel's pseudo-file systems (/proc, /sys): their files report size 0."""
    if not _PSEUDO_DEVS:
        devs = set()
        for root in _PSEUDO_ROOTS:
            with contextlib.suppress(OSError):
                devs.add(os.stat(root).st_dev)
        _PSEUDO_DEVS.append(devs)
    return _PSEUDO_DEVS[0]


def _refuse_kind(st, path, arg, what):
    """CliError unless `st` is a regular file on a real file system (decided before any read)."""
    if stat.S_ISDIR(st.st_mode):
        raise CliError(arg, f"{path} is a directory, not a {what}")
    for test, kind in _NOT_REGULAR:
        if test(st.st_mode):
            raise CliError(arg, f"{path} is {kind}, not a {what}: tensorcli reads regular files"
                                + (" (pipe data to '-' for stdin)" if what == "tensor file" else ""))
    if not stat.S_ISREG(st.st_mode):
        raise CliError(arg, f"{path} is not a regular file")
    if st.st_dev in _pseudo_devs() or os.path.realpath(path).startswith(tuple(r + "/" for r in _PSEUDO_ROOTS)):
        raise CliError(arg, f"{path} is a kernel pseudo-file (/proc, /sys), not a {what}")


def open_input(path, *, arg, what="tensor file"):
    """A regular file opened for reading, and its size: devices, FIFOs, sockets, directories and
    /proc or /sys files are refused from their type before anything is read (a FIFO is opened
    non-blocking, so it cannot hang the open). The file is recorded as this run's input (outputs
    never overwrite it)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise CliError(arg, f"no such file: {path}") from None
    except OSError as e:
        raise CliError(arg, f"cannot open {path}: {e.strerror or e}") from None
    _refuse_kind(st, path, arg, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise CliError(arg, f"cannot open {path}: {e.strerror or e}") from None
    f = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fd)
        _refuse_kind(st, path, arg, what)   # the path may have been replaced between stat and open
    except BaseException:
        f.close()
        raise
    npyfile.record_input(st, path)
    return f, st.st_size


def _load_file(path, key, arg):
    f, size = open_input(path, arg=arg)
    with f:
        head = f.read(6)
        f.seek(0)
        low = path.lower()
        if not head:
            raise CliError(arg, f"{path} is empty")
        if low.endswith(".npy") and head != NPY_MAGIC:
            raise CliError(arg, f"{path} is not a .npy file (bad magic bytes)")
        if low.endswith(".npz") and head[:4] != ZIP_MAGIC:
            raise CliError(arg, f"{path} is not a .npz file (not a zip archive)")
        if key is not None and head[:4] != ZIP_MAGIC:
            raise CliError(arg, f"{path} is not an .npz archive; ':{key}' only applies to .npz archives")
        if head == NPY_MAGIC:
            if key is not None:
                raise CliError(arg, f"{path} is a .npy file; ':{key}' only applies to .npz archives")
            if size >= npyfile.MMAP_MIN_BYTES:
                return c_order(open_npy(path, arg=arg, f=f))
            return _read_npy(f, arg, path, size=size)
        if head[:4] == ZIP_MAGIC:
            return _read_npz(f, key, arg, path)
        _refuse_pickle(head, arg, path)
        limit = max_json_bytes()
        if size > limit:
            raise CliError(arg, f"{path}: JSON text of {size} bytes exceeds the limit of {limit} "
                                "(TENSORCLI_MAX_JSON_BYTES); use .npy for large tensors")
        raw = f.read(size + 1)   # never past what the file reported
    if len(raw) > size:
        raise CliError(arg, f"{path}: the file holds more than the {size} bytes it reports "
                            "(a pseudo-file, or it grew while being read)")
    return _json_tensor(_decode_text(raw, arg, path), arg, source=path)


def _refuse_pickle(head, arg, where):
    """A pickle (torch.save's legacy format, pickle.dump) is named, never loaded."""
    if head[:1] == b"\x80" and head[1:2] and 2 <= head[1] <= 5:
        raise CliError(arg, f"{where} is a Python pickle (e.g. a legacy torch.save file): not loaded "
                            "(tensorcli never unpickles); save it with numpy.save")


def _load_stdin(key, arg, stdin_used):
    if stdin_used is not None:
        if stdin_used:
            raise CliError(arg, f"stdin ('-') can only be read once per command, and {stdin_used[0]} "
                                "already reads it; save one of them to a file")
        stdin_used.append(arg)
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            raise CliError(arg, "'-' reads the tensor from stdin, but stdin is a terminal; pipe data in "
                                "(e.g. tensorcli ... -o - | tensorcli show -)")
    except (AttributeError, ValueError):
        pass
    buf = getattr(stream, "buffer", stream)
    head = _read_exact(buf, 6)
    if not head:
        raise CliError(arg, "stdin is empty (expected .npy bytes, an .npz archive or JSON text)")
    if head == NPY_MAGIC:
        if key is not None:
            raise CliError(arg, f"stdin holds .npy data; ':{key}' only applies to .npz archives")
        return _read_npy(_Prefixed(head, buf), arg, "stdin")
    if head[:4] == ZIP_MAGIC:
        import io
        limit = _alloc_limit() + (1 << 20)
        rest = npyfile.read_member(buf, limit + 1, limit + 1)   # grown as bytes arrive
        if len(rest) > limit:
            raise CliError(arg, f"stdin: an .npz archive of more than {limit} bytes (the allocation limit); "
                                "save it to a file")
        return _read_npz(io.BytesIO(head + rest), key, arg, "stdin")
    _refuse_pickle(head, arg, "stdin")
    limit = max_json_bytes()
    raw = head + buf.read(limit)
    if len(raw) > limit:
        raise CliError(arg, f"stdin: JSON text exceeds the limit of {limit} bytes (TENSORCLI_MAX_JSON_BYTES); "
                            "pipe .npy instead (-o -)")
    return _json_tensor(_decode_text(raw, arg, "stdin"), arg, source="stdin")


def _alloc_limit():
    from core.creation import get_allocation_limit
    return get_allocation_limit()


def _read_exact(f, n):
    out = b""
    while len(out) < n:
        chunk = f.read(n - len(out))
        if not chunk:
            break
        if isinstance(chunk, str):  # a text stream without .buffer
            chunk = chunk.encode()
        out += chunk
    return out


class _Prefixed:
    """A read-only stream: `prefix` bytes already consumed, then the rest of `f`."""

    def __init__(self, prefix, f):
        self.prefix, self.f = prefix, f

    def read(self, n=-1):
        if self.prefix:
            if n is None or n < 0:
                data, self.prefix = self.prefix + self.f.read(), b""
                return data
            data, self.prefix = self.prefix[:n], self.prefix[n:]
            if len(data) < n:
                data += _read_exact(self.f, n - len(data))
            return data
        return _read_exact(self.f, n) if n is not None and n >= 0 else self.f.read()


def _decode_text(raw, arg, where):
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CliError(arg, f"{where}: not .npy, .npz or JSON text (undecodable bytes)") from None


# .npy / .npz ------------------------------------------------------------------------------

def _np_to_core_dtype(npd, arg, where):
    from core import dtypes as _dt
    if npd.hasobject:
        raise CliError(arg, f"{where}: object arrays are refused (tensorcli never unpickles)")
    native = npd.newbyteorder("=") if npd.byteorder not in ("=", "|") else npd
    if native not in _dt._FROM_NP:
        names = ", ".join(d.name for d in _dt.ALL)
        if npd.names is not None or npd.kind == "V":   # field names are the file's bytes: not quoted
            raise CliError(arg, f"{where}: unsupported structured dtype (supported: {names})")
        raise CliError(arg, f"{where}: unsupported dtype {npd} (supported: {names})")
    return native


def _header(f, arg, where):
    try:
        shape, fortran, npd, offset = npyfile.read_header(f)
    except npyfile.HeaderError as e:
        raise CliError(arg, f"{where}: invalid .npy header: {e}") from None
    except (OSError, EOFError) as e:
        raise CliError(arg, f"{where}: invalid .npy header ({_first_line(e)})") from None
    native = _np_to_core_dtype(npd, arg, where)
    count = 1
    for s in shape:
        count *= int(s)
    return shape, fortran, npd, native, offset, count


def _truncated(where, nbytes, have, shape, npd, what="file"):
    return (f"{where}: truncated: header says {nbytes} bytes, {what} has {max(0, have)} "
            f"(shape {list(shape)} {npd})")


def open_npy(path, *, arg, f=None, check=True):
    """A .npy file as a read-only memory map (nothing read but the header); the file must hold
    the bytes its header promises. `check` applies the allocation limit (the tensor may be
    materialised by an op); streaming services pass check=False (they never hold it whole)."""
    with contextlib.ExitStack() as stack:
        if f is None:
            f = stack.enter_context(open_input(path, arg=arg)[0])
        f.seek(0)
        shape, fortran, npd, native, offset, count = _header(f, arg, path)
        size = os.fstat(f.fileno()).st_size
        nbytes = count * npd.itemsize
        if check and not (native == npd and _budget_enforced()):   # a map is not data: see below
            _check_size(shape, native, arg, path)
        if size - offset < nbytes:
            raise CliError(arg, _truncated(path, nbytes, size - offset, shape, npd))
        # mapped from the descriptor that was checked (not reopened by name); the map outlives it
        arr = npyfile.map_npy(f, shape, fortran, npd, offset).view(np.ndarray)
    return arr.astype(native) if native != npd else arr


def _budget_enforced() -> bool:
    """True while the process's data limit holds the command to --max-bytes (services/budget.py):
    a memory map does not count against it, and whatever an op materialises from the map does, so
    the map itself needs no size check."""
    budget = sys.modules.get("tensorcli.services.budget")
    return budget is not None and budget.active() is not None


def _read_npy(f, arg, where, *, member=None, size=None):
    """Read one .npy array from a stream: header first, its byte count checked against what the
    file (`size`) or the archive member (`member`, its declared size) holds before any allocation,
    then exactly the data; a stream of unknown length (stdin, an archive member) is read into one
    buffer grown as bytes really arrive, so a lying header costs nothing."""
    shape, fortran, npd, native, offset, count = _header(f, arg, where)
    nbytes = count * npd.itemsize
    what = "stdin" if where == "stdin" else "file"
    _check_size(shape, native, arg, where)
    if size is not None and size - offset < nbytes:
        raise CliError(arg, _truncated(where, nbytes, size - offset, shape, npd))
    if member is not None and offset is not None and member - offset < nbytes:
        raise CliError(arg, _truncated(where, nbytes, member - offset, shape, npd, "the archive member"))
    if size is None:
        buf = npyfile.read_member(f, nbytes, _alloc_limit())
        got = len(buf)
    else:
        buf = bytearray(nbytes)
        got = _readinto(f, buf)
    if got < nbytes:
        raise CliError(arg, _truncated(where, nbytes, got, shape, npd,
                                       "the archive member" if member is not None else what))
    arr = np.frombuffer(buf, dtype=npd, count=count)
    arr = arr.reshape(shape[::-1]).transpose() if fortran else arr.reshape(shape)
    if native != npd:
        arr = arr.astype(native)
    return c_order(arr)


def _readinto(f, buf):
    view = memoryview(buf)
    got = 0
    readinto = getattr(f, "readinto", None)
    while got < len(buf):
        if readinto is not None:
            n = readinto(view[got:])
        else:
            chunk = f.read(len(buf) - got)
            n = len(chunk) if chunk else 0
            view[got:got + n] = chunk
        if not n:
            break
        got += n
    return got


def _read_npz(f, key, arg, where):
    import zipfile
    try:
        z = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise CliError(arg, f"{where}: corrupt .npz archive ({_first_line(e)})") from None
    with z:
        names = z.namelist()
        members = {n[:-4]: n for n in names if n.endswith(".npy")}
        if not members and any(n.endswith(".pkl") or "/data/" in n for n in names):
            raise CliError(arg, f"{where} is a PyTorch .pt file: not loaded (tensorcli never unpickles); "
                                "save the tensor with numpy.save (.npy) or numpy.savez (.npz)")
        if not members:
            raise CliError(arg, f"{where}: the .npz archive holds no arrays")
        if key is None:
            if len(members) > 1:
                raise CliError(arg, f"{where} holds several arrays; pick one with {where if where != 'stdin' else '-'}"
                                    f":KEY (keys: {', '.join(sorted(members))})")
            key = next(iter(members))
        if key not in members:
            raise CliError(arg, f"{where}: no array {key!r} in the archive (keys: {', '.join(sorted(members))})")
        label = f"{where}:{key}"
        try:
            info = z.getinfo(members[key])
            with z.open(info) as m:
                return _read_npy(m, arg, label, member=info.file_size)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
            raise CliError(arg, f"{label}: corrupt archive member ({_first_line(e)})") from None


def _check_size(shape, npd, arg, where):
    from core.creation import check_alloc
    try:
        check_alloc(shape, npd)
    except RuntimeError:
        n = 1
        for s in shape:
            n *= int(s)
        raise CliError(arg, f"{where}: shape {list(shape)} needs {n * np.dtype(npd).itemsize} bytes, above the "
                            f"allocation limit of {_alloc_limit()} (CORE_MAX_ALLOC_BYTES)") from None


def _first_line(e):
    return " ".join(str(e).split()) or type(e).__name__


# JSON --------------------------------------------------------------------------------------

def _json_depth(text):
    b = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    if not b.size:
        return 0
    d = np.cumsum((b == 91).astype(np.int32) + (b == 123) - (b == 93) - (b == 125))
    return int(d.max()) if d.size else 0


def _json_tensor(text, arg, *, source):
    """Parse JSON text into a core.Tensor (dtype inferred like core.tensor)."""
    import core
    where = f"{source}: " if source else ""
    limit = max_json_bytes()
    if len(text) > limit:
        raise CliError(arg, f"{where}JSON text of {len(text)} bytes exceeds the limit of {limit} "
                            "(TENSORCLI_MAX_JSON_BYTES)")
    if not text.strip():
        raise CliError(arg, f"{where}empty input (expected JSON, .npy or .npz)")
    if _json_depth(text) > MAX_JSON_DEPTH:
        raise CliError(arg, f"{where}JSON nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = _python_literal(text, arg, where, source)
    except RecursionError:
        raise CliError(arg, f"{where}JSON nested too deeply") from None
    except ValueError as e:   # Python's int() refuses integer literals of more than 4300 digits
        raise CliError(arg, f"{where}a number in the JSON text is too long ({_digits_hint(e)})") from None
    dtype = shape = None
    if isinstance(data, dict):
        if "result" in data and "data" not in data:
            data = data["result"]
            if isinstance(data, list):
                raise CliError(arg, f"{where}the JSON result holds several tensors; save one with -o")
        if not isinstance(data, dict) or "data" not in data:
            raise CliError(arg, f"{where}a JSON object needs a \"data\" field (and optionally \"dtype\", \"shape\")")
        dtype, shape, data = data.get("dtype"), data.get("shape"), data["data"]
        if dtype is not None and not isinstance(dtype, str):
            raise CliError(arg, f"{where}\"dtype\" must be a string such as \"float32\", got {_kind(dtype)}")
        if dtype is not None and source:
            from core import dtypes as _dt
            key = dtype.strip()
            if (key[6:] if key.startswith("torch.") else key) not in _dt.ALIASES:
                raise CliError(arg, f"{where}unknown \"dtype\" (choose from: {', '.join(_dt.ALIASES)})")
        dtype = parse_dtype(dtype, arg=arg) if dtype is not None else None
        if shape is not None:
            shape = _json_shape(shape, arg, where)
    if '"' in text:
        data = _strings_to_floats(data, arg, where, quote=not source)
    try:
        t = core.tensor(data, dtype=dtype)
    except ValueError as e:
        msg = _first_line(e)
        raise CliError(arg, f"{where}{'ragged nested list: ' if 'expected sequence' in msg else ''}{msg}") from None
    except TypeError as e:
        msg = _first_line(e)
        if "NoneType" in msg:
            msg = "null is not a number"
        raise CliError(arg, f"{where}not a numeric tensor: {msg}") from None
    except (RuntimeError, OverflowError) as e:
        msg = _first_line(e)
        if "NoneType" in msg:
            msg = f"not a numeric tensor: null is not a number ({msg})"
        raise CliError(arg, f"{where}{msg}") from None
    if shape is not None:
        if tuple(t.shape) != shape:
            n = 1
            for s in shape:
                n *= s
            if n != t.numel() or any(s < 0 for s in shape):
                raise CliError(arg, f"{where}\"shape\" {list(shape)} does not match the data's shape {list(t.shape)}")
            t = t.reshape(shape)
    return t


_MAX_DIM = 2 ** 63 - 1


def _kind(value):
    """What a JSON value is, in words (messages name the type, never the bytes of a file)."""
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def _json_shape(shape, arg, where):
    """A JSON "shape": a list of integers in [0, 2**63) (no floats, strings or booleans)."""
    if not isinstance(shape, list):
        raise CliError(arg, f"{where}\"shape\" must be a list of integers such as [2, 3], got {_kind(shape)}")
    for i, s in enumerate(shape):
        if type(s) is not int:
            raise CliError(arg, f"{where}\"shape\"[{i}] must be an integer, got {_kind(s)}")
        if not 0 <= s <= _MAX_DIM:
            raise CliError(arg, f"{where}\"shape\"[{i}] must be between 0 and 2**63-1"
                                + (f", got {s}" if len(str(s)) <= 25 else ""))
    return tuple(shape)


def _digits_hint(e):
    text = _first_line(e)
    return "integers have at most 4300 digits" if "digits" in text else text


def _python_literal(text, arg, where, source):
    """Python literal syntax (`[0., .5]`, `[True, nan, -inf]`, tuples) when the text is not JSON."""
    try:
        return parse_literal(text.strip(), max_depth=MAX_JSON_DEPTH)
    except LiteralError as e:
        snippet = text.strip()
        col = e.col
        what = "not .npy, .npz, JSON or a Python literal" if source == "stdin" else "invalid JSON or Python literal"
        if source:   # a file or stdin: its bytes are never quoted (they may be anything: /proc, a secret)
            raise CliError(arg, f"{where}{what}: {e.plain} at column {col}") from None
        if len(snippet) > 40:   # show the text around the error
            lo = max(0, col - 20)
            snippet = ("..." if lo else "") + snippet[lo:lo + 37] + "..."
        raise CliError(arg, f"{where}{what}: {e.msg} at column {col} in {snippet!r}") from None


def _strings_to_floats(x, arg, where, quote=True):
    if isinstance(x, list):
        return [_strings_to_floats(v, arg, where, quote) for v in x]
    if isinstance(x, str):
        v = _NONFINITE_IN.get(x.strip().lower())
        if v is None:
            shown = f"string {x[:40]!r}" if quote else "a string"
            raise CliError(arg, f"{where}not a numeric tensor: {shown} (only \"NaN\", \"Infinity\", "
                                "\"-Infinity\" are accepted as strings)")
        return v
    return x


# -- results out -------------------------------------------------------------------------

def _items(result):
    """[(name, ndarray)] for a tensor, a tuple/list of tensors, a named tuple or a number."""
    from core import Tensor
    if isinstance(result, Tensor):
        return [(None, result._data)]
    if isinstance(result, (tuple, list)):
        fields = getattr(result, "_fields", None)
        out = []
        for i, r in enumerate(result):
            name = fields[i] if fields else str(i)
            out.append((name, r._data if isinstance(r, Tensor) else np.asarray(r)))
        return out
    return [(None, np.asarray(result))]


def is_multi(result) -> bool:
    from core import Tensor
    return isinstance(result, (tuple, list)) and not isinstance(result, Tensor)


def dtype_name(arr) -> str:
    from core import dtypes as _dt
    d = _dt._FROM_NP.get(np.dtype(arr.dtype))
    return d.name if d is not None else str(arr.dtype)


def json_data(arr):
    """Nested lists for JSON; NaN/Infinity/-Infinity become strings (JSON has no such numbers)."""
    arr = np.asarray(arr)
    data = arr.tolist()
    if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
        data = _encode_nonfinite(data)
    return data


def json_scalar(v):
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _encode_nonfinite(x):
    if isinstance(x, list):
        return [_encode_nonfinite(v) for v in x]
    return json_scalar(x)


def result_json(result):
    """{"shape", "dtype", "data"} for one tensor; a list of those (with "name") for several."""
    items = _items(result)
    objs = [{"shape": list(a.shape), "dtype": dtype_name(a), "data": json_data(a)} for _, a in items]
    if is_multi(result):
        for (name, _), o in zip(items, objs):
            o["name"] = name
        return objs
    return objs[0]


def dumps(obj) -> str:
    return json.dumps(obj, allow_nan=False, separators=(", ", ": "))


def stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def output_errors(path, arg="--out"):
    """Failures of writing `path` ('-': stdout) as one named line: an output that is an input of
    the run or not a regular file (npyfile.OutputError), a missing directory, a full disk
    (`-o - > /dev/full`). A closed pipe (EPIPE) passes through: the app ends quietly."""
    try:
        yield
    except BrokenPipeError:
        raise
    except npyfile.OutputError as e:
        raise CliError(arg, str(e)) from None
    except OSError as e:
        if getattr(e, "errno", None) == 32:
            raise
        where = "stdout" if path == "-" else path
        raise CliError(arg, f"cannot write {where}: {e.strerror or _first_line(e)}") from None


def save_result(result, path: str, *, arg: str = "--out") -> str:
    """Write `result` to `path` (.npy, .npz, .json by extension; '-' = .npy bytes on stdout).
    Returns a short description for a message to people (on stderr)."""
    with output_errors(path, arg):
        return _save_result(result, path, arg)


def _save_result(result, path, arg):
    import io
    items = _items(result)
    multi = is_multi(result)
    if path == "-":
        if stdout_is_terminal():
            raise CliError(arg, "refusing to write binary .npy data to a terminal; redirect it "
                                "(-o - > out.npy) or pipe it (-o - | tensorcli show -)")
        out = getattr(sys.stdout, "buffer", None)
        if out is None:
            raise CliError(arg, "stdout does not accept binary data")
        sys.stdout.flush()
        if multi:
            buf = io.BytesIO()
            _write_npz(buf, items)
            write_all(out, memoryview(buf.getvalue()))
        else:   # header, then the array's own bytes in slices: no second copy of a large result
            a = c_order(items[0][1])
            header = io.BytesIO()
            npyfile.write_header(header, a.dtype, a.shape)
            write_all(out, memoryview(header.getvalue()))
            flat = a.reshape(-1)
            step = max(1, (16 << 20) // max(a.itemsize, 1))
            for i in range(0, flat.size, step):
                write_all(out, memoryview(np.ascontiguousarray(flat[i:i + step])).cast("B"))
        out.flush()
        return "stdout (.npz)" if multi else "stdout (.npy)"
    low = path.lower()
    if not low.endswith((".npy", ".npz", ".json")):
        ext = os.path.splitext(path)[1] or "(none)"
        raise CliError(arg, f"unknown output extension {ext} for {path}: use .npy, .npz, .json, or - for stdout")
    if low.endswith(".npy") and multi:
        raise CliError(arg, f"the op returns {len(items)} tensors; use a .npz or .json path")
    with atomic_output(path) as tmp:
        if low.endswith(".npy"):
            with open(tmp, "wb") as f:
                np.lib.format.write_array(f, c_order(items[0][1]), allow_pickle=False)
        elif low.endswith(".npz"):
            with open(tmp, "wb") as f:
                _write_npz(f, items)
        else:
            text = dumps(result_json(result))
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    return path


def write_all(out, view):
    """Write a memoryview fully: a raw (unbuffered, python -u) stdout may accept part of a write."""
    while view:
        n = out.write(view)
        view = view[len(view) if n is None else n:]


def _write_npz(f, items):
    names = [n if n is not None else "result" for n, _ in items]
    if len(items) > 1:
        names = [n if n is not None and not n.isdigit() else f"out{n}" for n, _ in items]
    np.savez(f, **{n: a for n, (_, a) in zip(names, items)})
