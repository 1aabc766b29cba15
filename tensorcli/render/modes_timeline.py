"""`tensorcli modes --timeline`: the program statement by statement (services/modes_timeline.py's report).

A Rich table on terminals, aligned text in pipes; data reaches Rich only inside ``Text``.
"""
from __future__ import annotations

from ..services.text import table_lines

COLUMNS = ("#", "statement", "mode", "tensors", "grad", "no_grad", "inference_mode")
ALTS = ("grad", "no_grad", "inference_mode")


def tensor_text(t) -> str:
    """'y: MulBackward0, v0' / 'z: no grad, inference' (inference tensors track no version)."""
    bits = []
    if t["grad_fn"]:
        bits.append(t["grad_fn"])
    elif t["requires_grad"]:
        bits.append("leaf, requires_grad")
    else:
        bits.append("no grad")
    if t["is_inference"]:
        bits.append("inference")
    if t["version"] is not None:
        bits.append(f"v{t['version']}")
    return f"{t['name']}: {', '.join(bits)}"


def _error_text(err) -> str:
    return f"{err['type']}: {err['message'].split('. ')[0].rstrip('.')}"


def _alt_text(alt) -> str:
    if not alt:
        return ""
    if not alt["ok"]:
        return "raises " + _error_text(alt["error"])
    return "\n".join(tensor_text(t) for t in alt["tensors"]) or "-"


def row_cells(r) -> list:
    if r["ok"] is None:
        state = "(not run)"
    elif r["ok"]:
        state = "\n".join(tensor_text(t) for t in r["tensors"]) or "-"
    else:
        state = "raises " + _error_text(r["error"])
    mode = r["mode"] or ""
    if r["context"]:
        mode += "\n" + " > ".join(r["context"])
    return [str(r["index"]), r["statement"], mode, state] + [_alt_text(r["modes"].get(m)) for m in ALTS]


def text_lines(report) -> list:
    columns = COLUMNS if report["compared"] else COLUMNS[:4]
    rows = [list(columns)]
    for r in report["statements"]:
        cells = [c.split("\n") for c in row_cells(r)[:len(columns)]]
        for i in range(max(len(c) for c in cells)):
            rows.append([c[i] if i < len(c) else "" for c in cells])
    out = table_lines(rows)
    if report["summary"]:
        out.append("")
        out.extend(report["summary"])
    return out


def render_timeline(report, console, color: bool) -> None:
    if not color:
        console.file.write("\n".join(text_lines(report)) + "\n")
        return
    from rich.table import Table
    from rich.text import Text
    columns = COLUMNS if report["compared"] else COLUMNS[:4]
    t = Table(title=Text("grad modes, statement by statement (the other modes: the same statement instead)"),
              title_justify="left", header_style="bold", show_lines=True)
    for c in columns:
        t.add_column(c, overflow="fold", no_wrap=c == "#")
    for r in report["statements"]:
        cells = row_cells(r)[:len(columns)]
        styles = ["", "", "", "red" if r["ok"] is False else ""] + [
            "red" if (r["modes"].get(m) and not r["modes"][m]["ok"]) else "" for m in ALTS]
        t.add_row(*[Text(c, style=s or None) for c, s in zip(cells, styles)])
    console.print(t)
    for line in report["summary"]:
        console.print(Text(line))
