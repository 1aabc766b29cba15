"""The one error path of tensorcli.

The exit-code contract (tests/tensorcli/test_exit_codes.py runs it through the console script):

* 0 ok (also when the reader of stdout went away: `tensorcli --help | head -1`);
* 1 only when a check fails (`tensorcli check`);
* 2 bad usage, bad input, a refused allocation, out of memory: ONE line on stderr;
* 130 interrupted (Ctrl-C), at any moment, without a traceback.

A `CliError(arg, message)` is bad usage or bad input: `arg` names what was wrong
('--index', 'INPUT', '--dtype', or the op name when core refused the call). `--debug` (or
TENSORCLI_DEBUG=1) adds the traceback. Anything else escaping a command is a bug in
tensorcli: one line plus a hint to rerun with --debug, exit status 2 as well (status 1 is
reserved for a failed check).
"""
from __future__ import annotations

import errno
import os
import re
import sys
from contextlib import contextmanager

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 2     # a bug still exits 2: status 1 means "a check failed"
EXIT_INTERRUPTED = 130

# How people raise the allocation limit (core's messages name its Python call or env variable).
_LIMIT_HINTS = (("see core.set_allocation_limit", "raise it with --max-bytes SIZE or TENSORCLI_MAX_BYTES"),
                ("(CORE_MAX_ALLOC_BYTES)", "(--max-bytes SIZE or TENSORCLI_MAX_BYTES)"))

# Writing stdout or a file failed for a reason outside tensorcli (no space, quota, I/O error).
_OUTPUT_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)

# What core raises for bad user input (PyTorch's classes); MemoryError for absurd sizes.
USER_EXCEPTIONS = (RuntimeError, IndexError, ValueError, TypeError, KeyError, MemoryError, OverflowError)


class CliError(Exception):
    """Bad usage or bad input; `arg` names the argument, `message` says what was wrong."""

    exit_code = EXIT_USAGE

    def __init__(self, arg: str | None, message: str):
        super().__init__(message)
        self.arg = arg
        self.message = message

    def __str__(self):
        if not self.arg or names_itself(self.arg, self.message):
            return self.message
        return f"{self.arg}: {self.message}"


_CALLER = re.compile(r"(?:torch\.)?([A-Za-z_][\w.]*)(?:\(\))?:")


def names_itself(arg: str, message: str) -> bool:
    """Whether `message` already starts with the op `arg` names (core's "gather(): Expected ...",
    "scatter(): ..." for scatter-add, "index_select_out_cpu_(): ..."): then one prefix is enough."""
    m = _CALLER.match(message)
    if m is None:
        return False
    said, name = m.group(1).replace("-", "_"), arg.lstrip("-").replace("-", "_")
    return len(said) >= 3 and len(name) >= 3 and (said.startswith(name) or name.startswith(said))


def one_line(text: str, limit: int = 400) -> str:
    """Collapse whitespace and newlines so a message is a single line of bounded length."""
    from .services.text import printable   # ESC, CR... shown escaped: a message cannot repaint the line
    s = printable(" ".join(str(text).split()))
    return s if len(s) <= limit else s[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """The message of an exception raised by core, without Python's quoting of KeyError."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, MemoryError):
        budget = sys.modules.get("tensorcli.services.budget")   # the data limit of --max-bytes
        if budget is not None and budget.active() is not None:
            return budget.out_of_memory(exc)
        return ("out of memory" + (f": {exc}" if str(exc) else "")
                + " (lower the sizes, or the limit with --max-bytes SIZE / TENSORCLI_MAX_BYTES)")
    text = str(exc)
    if isinstance(exc, ValueError) and ("output array is read-only" in text
                                         or "destination is read-only" in text):
        return ("the tensor is a read-only memory-mapped .npy (files of 64 MiB or more are mapped, not "
                "copied): use the out-of-place op, or x.clone() first")
    return name_the_flag(text or type(exc).__name__)


def name_the_flag(text: str) -> str:
    """Core's allocation refusals name `core.set_allocation_limit`; people set --max-bytes."""
    for old, new in _LIMIT_HINTS:
        text = text.replace(old, new)
    return text


@contextmanager
def user_errors(arg: str):
    """Turn core's exceptions for bad input (RuntimeError, IndexError, ValueError, TypeError...)
    raised inside the block into a CliError naming `arg` (usually the op or command name)."""
    try:
        yield
    except CliError:
        raise
    except RecursionError as e:
        raise CliError(arg, "input nested too deeply") from e
    except USER_EXCEPTIONS as e:
        raise CliError(arg, describe(e)) from e


def debug_requested(args=None) -> bool:
    args = sys.argv[1:] if args is None else args
    return "--debug" in args or os.environ.get("TENSORCLI_DEBUG", "") not in ("", "0")


def _stderr_color() -> bool:
    if (os.environ.get("NO_COLOR") or os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL")
            or "--no-color" in sys.argv[1:]):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def report(exc: BaseException, *, debug: bool = False, json_command: str | None = None) -> int:
    """Print one line for `exc` on stderr (traceback first with debug) and return the exit status.
    With `json_command` (the command ran with --json) the error is also one JSON object on stdout:
    ``{"schema": "tensorcli.error/2", "command", "error", "exit"}`` (docs/json.md)."""
    if debug:
        import traceback
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if isinstance(exc, CliError):
        code, text = EXIT_USAGE, name_the_flag(str(exc))
    elif isinstance(exc, MemoryError):
        code, text = EXIT_USAGE, describe(exc)
    elif isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRNOS:   # `> /dev/full`, a full disk
        code, text = EXIT_USAGE, f"cannot write the output: {exc.strerror}"
    else:
        code = EXIT_INTERNAL
        text = f"internal error: {type(exc).__name__}: {describe(exc)}"
        if not debug:
            text += " (rerun with --debug for the traceback)"
    label = "\x1b[1;31merror\x1b[0m" if _stderr_color() else "error"
    try:
        sys.stderr.write(f"tensorcli: {label}: {one_line(text)}\n")
        for line in getattr(exc, "detail", None) or ():   # e.g. a shape error drawn (services/shape_errors.py)
            sys.stderr.write(f"  {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if json_command is not None:
        write_json_error(json_command, one_line(text), code)
    return code


def write_json_error(command: str, text: str, code: int) -> None:
    """The error as --json reports it: one object on stdout, as every --json output."""
    import json
    obj = {"schema": "tensorcli.error/2", "command": command, "error": text, "exit": code}
    try:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def fail(exc: BaseException, *, debug: bool = False):
    """Report `exc` (one line on stderr) and exit with status 2."""
    raise SystemExit(report(exc, debug=debug))
