"""A command's resource budgets, enforced where every allocation and every bytecode passes.

Memory (`--max-bytes`, `TENSORCLI_MAX_BYTES`, check's default): the process sets its own
RLIMIT_DATA to what it already uses (measured after NumPy's import and its BLAS's first buffer)
plus the budget plus SLACK. Linux counts heap, anonymous mappings and NumPy's buffers against
RLIMIT_DATA (not memory-mapped input files), so any allocation past it, by any op, expression,
model spec or Python object, fails with MemoryError: the command ends with exit 2 and one line
(`out of memory: the command needs more than --max-bytes N`). Core's per-allocation guard and the
expression language's estimates stay, for an earlier, better-worded refusal. Elsewhere (no
/proc/self/status, no RLIMIT_DATA) only those remain.

Time (`--timeout SECONDS`): an interval timer (SIGALRM) raises `TimedOut` in the main thread at
the next bytecode; a watchdog thread ends the process (exit 2, same line) GRACE seconds later if
the interpreter is stuck in one long C call that released the GIL (a giant matmul). A C call that
holds the GIL is not interrupted: the watchdog waits for it (no NumPy numeric kernel does so).

Standard library only (NumPy is imported by `install`, which every evaluating command needs anyway).
"""
from __future__ import annotations

import os
import re
import signal
import threading
import time
from contextlib import contextmanager

SLACK = 64 * 1024 ** 2   # lazy imports of core's op modules, BLAS thread buffers, the error path

_SAVED = None     # the process's RLIMIT_DATA before the first install
_ACTIVE = None    # (budget, limit) while installed


def vm_data() -> int | None:
    """The process's data set in bytes (what RLIMIT_DATA is compared with), None if unknown."""
    try:
        with open("/proc/self/status", "rb") as f:
            m = re.search(rb"VmData:\s+(\d+)\s+kB", f.read())
    except OSError:
        return None
    return int(m.group(1)) * 1024 if m else None


def _warm():
    """What every command pays before its own work: NumPy and OpenBLAS's first buffer (~32 MiB of
    address space, allocated at the first matmul), so they are part of the baseline."""
    import numpy as np
    a = np.ones((2, 2))
    a @ a


def install(nbytes: int) -> bool:
    """Bound what the process allocates from now on by `nbytes` (+ SLACK). True when enforced."""
    global _SAVED, _ACTIVE
    try:
        import resource
    except ImportError:   # pragma: no cover - not POSIX
        return False
    if not hasattr(resource, "RLIMIT_DATA") or vm_data() is None:
        return False
    if _SAVED is None:
        _SAVED = resource.getrlimit(resource.RLIMIT_DATA)
    else:   # a new budget: measured without the old one
        resource.setrlimit(resource.RLIMIT_DATA, _SAVED)
    _warm()
    soft, hard = _SAVED
    limit = vm_data() + int(nbytes) + SLACK
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError):   # pragma: no cover - below current use, or not permitted
        return False
    _ACTIVE = (int(nbytes), limit)
    return True


def uninstall() -> None:
    """Give the process its RLIMIT_DATA back (in-process callers: tests, `main()` run twice)."""
    global _SAVED, _ACTIVE
    if _SAVED is not None:
        import resource
        try:
            resource.setrlimit(resource.RLIMIT_DATA, _SAVED)
        except (ValueError, OSError):   # pragma: no cover
            pass
    _SAVED = _ACTIVE = None


def active() -> int | None:
    """The memory budget in force, None when none is enforced."""
    return _ACTIVE[0] if _ACTIVE else None


@contextmanager
def enforced(nbytes: int):
    """`nbytes` as the budget inside the block; the budget before it (or none) after."""
    before = active()
    if before == nbytes:   # already the budget (check installs it before loading its cases)
        yield
        return
    install(nbytes)
    try:
        yield
    finally:
        if before is None:
            uninstall()
        else:
            install(before)


@contextmanager
def paused():
    """Lift the limit for work that is not the command's (importing torch for `check
    --against-torch`), then enforce the same budget from the new baseline."""
    budget = active()
    if budget is None:
        yield
        return
    import resource
    resource.setrlimit(resource.RLIMIT_DATA, _SAVED)
    try:
        yield
    finally:
        install(budget)


def out_of_memory(exc: BaseException) -> str:
    """The one line for a MemoryError while a budget is enforced (else NumPy's own text)."""
    from .limits import describe
    budget = active()
    if budget is None:
        return ""
    import resource
    cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    if cap != resource.RLIM_INFINITY and _vm_size() + int(getattr(exc, "_total_size", 0) or 0) > cap * 0.9:
        return (f"out of memory: the process's address-space limit (ulimit -v, {describe(cap)}) is smaller "
                f"than the command needs")
    return f"out of memory: the command needs more than --max-bytes {describe(budget)}"


def _vm_size() -> int:
    try:
        with open("/proc/self/status", "rb") as f:
            m = re.search(rb"VmSize:\s+(\d+)\s+kB", f.read())
    except OSError:
        return 0
    return int(m.group(1)) * 1024 if m else 0


# -- time -----------------------------------------------------------------------------------------

GRACE = 2.0   # seconds between the timer and the watchdog
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class TimedOut(BaseException):
    """The time budget ran out. A BaseException, so that `except Exception` in an op does not
    swallow it; `finally` blocks still run."""

    def __init__(self, seconds: float):
        super().__init__(seconds)
        self.seconds = seconds

    def __str__(self):
        return f"timed out after {self.seconds:g} s"


def parse_timeout(value, arg: str = "--timeout") -> float | None:
    """SECONDS (> 0, finite) -> float; None/0 -> no limit."""
    from ..errors import CliError
    if value is None:
        return None
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise CliError(arg, f"expected a number of seconds such as 10 or 0.5, got {value!r}") from None
    if s != s or s < 0 or s == float("inf"):
        raise CliError(arg, f"expected a positive number of seconds, got {value!r}")
    return s or None


class _Watchdog:
    """One daemon thread for the process (a small stack: thread stacks count against the data
    limit too): when the deadline passes, it writes the line and ends the process."""

    def __init__(self):
        self.cond = threading.Condition()
        self.deadline = self.line = None
        stack = threading.stack_size(256 * 1024)
        try:
            threading.Thread(target=self._loop, name="tensorcli-timeout", daemon=True).start()
        finally:
            threading.stack_size(stack)

    def _loop(self):
        with self.cond:
            while True:
                if self.deadline is None:
                    self.cond.wait()
                    continue
                left = self.deadline - time.monotonic()
                if left > 0:
                    self.cond.wait(left)
                    continue
                try:
                    os.write(2, self.line)
                finally:
                    os._exit(2)

    def arm(self, deadline, line):
        with self.cond:
            self.deadline, self.line = deadline, line
            self.cond.notify()


_WATCHDOG = None


def _watchdog():
    global _WATCHDOG
    if _WATCHDOG is None:
        try:
            _WATCHDOG = _Watchdog()
        except RuntimeError:   # no thread (limits): the timer alone
            return None
    return _WATCHDOG


class _Timer:
    def __init__(self, seconds, what):
        self.seconds, self.what = seconds, what
        self.fired = False
        self.old_handler = None

    def _alarm(self, signum, frame):
        if not self.fired:   # once: cleanup after the exception is not interrupted again
            self.fired = True
            raise TimedOut(self.seconds)

    def start(self):
        what = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", self.what)   # case names: no escapes
        line = f"tensorcli: error: {what + ': ' if what else ''}timed out after {self.seconds:g} s\n"
        dog = _watchdog()
        if dog is not None:
            dog.arm(time.monotonic() + self.seconds + GRACE, line.encode("utf-8", "replace"))
        if threading.current_thread() is threading.main_thread():
            self.old_handler = signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def stop(self):
        if _WATCHDOG is not None:
            _WATCHDOG.arm(None, None)
        if self.old_handler is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old_handler)
            self.old_handler = None


_TIMER = None


def start_timer(seconds, what: str = "") -> None:
    """The command's time budget, from now (a second call replaces the first)."""
    global _TIMER
    stop_timer()
    if seconds:
        _TIMER = _Timer(float(seconds), what).start()


def stop_timer() -> None:
    global _TIMER
    if _TIMER is not None:
        _TIMER.stop()
        _TIMER = None


@contextmanager
def time_limit(seconds, what: str = ""):
    """TimedOut raised inside the block after `seconds` (None: no limit); the watchdog ends the
    process if the block cannot be interrupted."""
    if not seconds:
        yield
        return
    timer = _Timer(float(seconds), what).start()
    try:
        yield
    finally:
        timer.stop()

