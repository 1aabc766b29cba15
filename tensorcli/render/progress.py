"""A progress bar on stderr for long work (`show` over a large file, streamed op commands).

`progress_bar(label)` yields the `progress(done, total)` callback that services/show.py and
services/stream.py call after each block. The bar (Rich, transient: erased when done) appears only
once the work has lasted `delay` seconds (default 1), so quick commands print nothing. The callback
is None (no bar at all) when stderr is not a terminal or with -q/--quiet (TENSORCLI_QUIET). Under
NO_COLOR / --no-color the bar is still drawn, without colour.
"""
from __future__ import annotations

import contextlib
import os
import sys
import time

DELAY_S = 1.0


def quiet() -> bool:
    return os.environ.get("TENSORCLI_QUIET", "") not in ("", "0")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _make_bar(stream, no_color):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn
    plain = no_color or bool(os.environ.get("NO_COLOR"))
    con = Console(file=stream, force_terminal=True, no_color=plain, color_system=None if plain else "auto",
                  highlight=False)
    return Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
                    console=con, transient=True)


@contextlib.contextmanager
def progress_bar(label: str, *, no_color: bool = False, delay: float = DELAY_S, stream=None):
    """Yield progress(done, total) or None (see the module docstring); the bar is removed on exit."""
    stream = sys.stderr if stream is None else stream
    if quiet() or not _is_terminal(stream):
        yield None
        return
    start = time.monotonic()
    state = {}

    def update(done, total):
        if "bar" not in state:
            if time.monotonic() - start < delay or done >= total:
                return
            state["bar"] = bar = _make_bar(stream, no_color)
            bar.start()
            state["task"] = bar.add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()
