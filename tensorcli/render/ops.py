"""The text of `tensorcli ops`: ops grouped by category, summary and formula wrapped beside the name."""
from __future__ import annotations

import textwrap


def _columns() -> int:
    """78 piped; on a colour terminal its width less 2 (what render.print_lines will draw on)."""
    import sys
    from . import use_color
    if not use_color(False, sys.stdout):
        return 78
    from rich.console import Console
    return max(40, min(Console(file=sys.stdout, force_terminal=True).width, 200) - 2)


def listing_lines(rows, ndim, dim, columns=None) -> list[str]:
    """The listing wrapped to `columns` (default: 78 piped, the terminal's width on a terminal)."""
    columns = _columns() if columns is None else columns
    lines = [f"{len(rows)} ops (formulas for ndim={ndim}, dim={dim})"]
    cat = None
    width = max(len(r["command"] or r["op"]) for r in rows) + 2
    text_width = max(20, columns - width)
    if text_width < 30:            # narrow terminal: the summary under the name
        width, text_width = 4, columns - 4
    for r in rows:
        if r["category"] != cat:
            cat = r["category"]
            lines += ["", f"{cat}"]
        name = r["command"] or f"({r['op']})"
        body = textwrap.wrap(r["summary"] or "", text_width, break_on_hyphens=False, break_long_words=False) or [""]
        if r["rule"]:
            body += textwrap.wrap(r["rule"], text_width, subsequent_indent="    ", break_on_hyphens=False,
                                  break_long_words=False)
        if width == 4:
            lines.append(f"  {name}")
            lines += [f"  {'':{width}}{b}" for b in body]
            continue
        lines.append(f"  {name.ljust(width)}{body[0]}")
        lines += [f"  {'':{width}}{b}" for b in body[1:]]
    return lines
