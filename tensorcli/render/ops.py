"""The text of `tensorcli ops`: ops grouped by category, summary and formula wrapped beside the name."""
from __future__ import annotations

import textwrap


def listing_lines(rows, ndim, dim) -> list[str]:
    lines = [f"{len(rows)} ops (formulas for ndim={ndim}, dim={dim})"]
    cat = None
    width = max(len(r["command"] or r["op"]) for r in rows) + 2
    text_width = max(30, 78 - width)
    for r in rows:
        if r["category"] != cat:
            cat = r["category"]
            lines += ["", f"{cat}"]
        name = r["command"] or f"({r['op']})"
        body = textwrap.wrap(r["summary"] or "", text_width) or [""]
        if r["rule"]:
            body += textwrap.wrap(r["rule"], text_width, subsequent_indent="    ")
        lines.append(f"  {name.ljust(width)}{body[0]}")
        lines += [f"  {'':{width}}{b}" for b in body[1:]]
    return lines
