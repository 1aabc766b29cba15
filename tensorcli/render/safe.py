"""The one path from data to the screen: every string that comes from data (rules, formulas, names,
values, expressions, case and file names, error messages) goes through here before Rich sees it.

* `clean(s)`: control characters (ESC, CR, BEL, backspace, DEL, C1 codes...) shown as Python shows
  them in a repr (`\\x1b`, `\\r`), so a case named "\\x1b[2K\\x1b[32mPASS" cannot repaint a line;
  newlines kept only where the text is multi-line by nature (a tensor's repr).
* `text(s, style)`: a rich.text.Text of the cleaned string: Rich never reads `out[i][j]` as markup.
* `markup(s)`: the cleaned string with Rich markup escaped, for the few places that take markup.
* `wrap_line(s, width)`: a long line broken at spaces (never inside a word) with a hanging indent,
  so a wrapped formula, joined back, is the piped line.

Plain text (no Rich) goes through `clean` too, so piped output and a terminal show the same characters.
"""
from __future__ import annotations

from ..services.text import printable

INDENT = "    "   # continuation lines of a wrapped line


def clean(s, *, lines: bool = False) -> str:
    """`s` as text with every control character shown as an escape (`\\x1b`, `\\r`, `\\t`); with
    `lines`, newlines (and tabs) are kept: the text is several lines (services/text.printable)."""
    return printable(s, lines=lines)


def text(s, style=None, *, lines: bool = False, highlight: bool = False):
    """A Rich Text of clean(s): shown as written, never parsed as markup nor as :emoji: codes; with
    `highlight`, numbers, strings and brackets coloured as Rich colours a repr."""
    from rich.text import Text
    t = Text(clean(s, lines=lines), style=style or "")
    if highlight:
        from rich.highlighter import ReprHighlighter
        ReprHighlighter().highlight(t)
    return t


def markup(s) -> str:
    """clean(s) with Rich markup escaped (for APIs that take a markup string)."""
    from rich.markup import escape
    return escape(clean(s))


def wrap_line(line: str, width: int, indent: str = INDENT) -> list[str]:
    """`line` in pieces of at most `width` columns, broken only at spaces, continuation pieces
    indented; a word longer than the room left is kept whole (the terminal folds it). Joining the
    pieces (indent removed) with a space gives `line` back, up to the spaces at the breaks."""
    if width <= len(indent) + 10 or len(line) <= width:
        return [line]
    head, sep, tail = line.partition("  ")      # a second column ("  reads ...", "  (note)"): its own line
    if sep and head.strip() and tail.strip():
        rest = tail.lstrip(" ")
        return wrap_line(head, width, indent) + [
            p if k else indent + p for k, p in enumerate(wrap_line(rest, width - len(indent), indent))]
    out, cur = [], ""
    lead = len(line) - len(line.lstrip(" "))
    words = line[lead:].split(" ")
    cur = line[:lead]
    room = width
    for w in words:
        if not cur.strip():
            cur += w
        elif len(cur) + 1 + len(w) <= room:
            cur += " " + w
        else:
            out.append(cur.rstrip())
            cur, room = indent + w, width
        continue
    out.append(cur)
    return out
