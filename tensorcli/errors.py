"""The one error path of tensorcli.

A `CliError(arg, message)` is bad usage or bad input: `arg` names what was wrong
('--index', 'INPUT', '--dtype', or the op name when core refused the call). It is
printed as ONE line on stderr and the process exits with status 2; `--debug` (or
TENSORCLI_DEBUG=1) adds the traceback. Anything else escaping a command is a bug in
tensorcli: one line plus a hint to rerun with --debug, exit status 1.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

EXIT_USAGE = 2
EXIT_INTERNAL = 1

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
        return f"{self.arg}: {self.message}" if self.arg else self.message


def one_line(text: str, limit: int = 400) -> str:
    """Collapse whitespace and newlines so a message is a single line of bounded length."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """The message of an exception raised by core, without Python's quoting of KeyError."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, MemoryError):
        return "out of memory" + (f": {exc}" if str(exc) else "")
    return str(exc) or type(exc).__name__


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
    if os.environ.get("NO_COLOR") or os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def report(exc: BaseException, *, debug: bool = False) -> int:
    """Print one line for `exc` on stderr (traceback first with debug) and return the exit status."""
    if debug:
        import traceback
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if isinstance(exc, CliError):
        code, text = EXIT_USAGE, str(exc)
    else:
        code = EXIT_INTERNAL
        text = f"internal error: {type(exc).__name__}: {describe(exc)}"
        if not debug:
            text += " (rerun with --debug for the traceback)"
    label = "\x1b[1;31merror\x1b[0m" if _stderr_color() else "error"
    try:
        sys.stderr.write(f"tensorcli: {label}: {one_line(text)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return code


def fail(exc: BaseException, *, debug: bool = False):
    """Report `exc` (one line on stderr) and exit: 2 for CliError, 1 for anything else."""
    raise SystemExit(report(exc, debug=debug))
