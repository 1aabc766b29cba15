"""`tensorcli grad --steps`: the backward pass node by node (services/backward_steps.py's report).

On a terminal: one Rich table per pass; in pipes (colour off): the same rows as aligned text. Every
piece of data reaches Rich inside ``Text``; nothing is markup.
"""
from __future__ import annotations

from ..services.text import fmt_value, table_lines

COLUMNS = ("#", "node / saved", "receives / hooks", "sends", ".grad")
MAX_CELL_ELEMENTS = 8


def values(v) -> str:
    """Nested lists as PyTorch writes them compactly ([2., 2.]); long ones summarised by shape."""
    if v is None:
        return "None"
    flat, shape = _flatten(v)
    if len(flat) > MAX_CELL_ELEMENTS:
        return f"<{len(flat)} values, shape {shape}>"
    return _nested(v)


def _flatten(v):
    if not isinstance(v, list):
        return [v], []
    flat, inner = [], []
    for x in v:
        f, inner = _flatten(x)
        flat.extend(f)
    return flat, [len(v)] + inner


def _nested(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    return fmt_value(v)


def _label(name, fallback="") -> str:
    return name if name else fallback


def step_cells(st) -> list:
    """One step as plain strings, one per COLUMNS entry (cells may hold several lines)."""
    node = st["node"]
    named = [t for t in st["tensors"] if t]
    if named:
        node += f" ({', '.join(named)})"
    recv = []
    for r in st["received"]:
        prefix = f"[{r['output_nr']}] " if len(st["received"]) > 1 else ""
        if r["before_hooks"] is not None and r["before_hooks"] != r["grad"]:
            recv.append(f"{prefix}{values(r['before_hooks'])} -> {values(r['grad'])}")
        else:
            recv.append(prefix + values(r["grad"]))
    hooks = [f"hook on {_label(h['tensor'], 'tensor')}: {values(h['grad'])} -> "
             f"{'None (kept)' if h['returned'] is None else values(h['returned'])}" for h in st["hooks"]]
    saved = [f"saved {_label(s['name'], s['role'])} {s['shape']}" for s in st["saved"]]
    if st["freed_before"]:
        saved.append("(freed by an earlier backward)")
    elif st["freed"] and st["saved"]:
        saved.append("freed after use")
    elif st["freed"] is False and st["saved"]:
        saved.append("kept (retain_graph)")
    sends = []
    for e in st["sent"]:
        if e["to"] is None:
            sends.append(f"{e['edge']}: None (no grad needed)")
            continue
        target = e["to"] + (f" ({e['tensor']})" if e["tensor"] else "")
        sends.append(f"{e['edge']}: -> {target}: {values(e['grad'])}")
    grad = ""
    if st["node"] == "AccumulateGrad":
        grad = f"{values(st['grad_before'])} -> {values(st['grad_after'])}"
    if st["error"]:
        sends.append(f"raises {st['error']['type']} (below)")
    return [str(st["step"]), "\n".join([node] + saved), "\n".join(recv + hooks), "\n".join(sends), grad]


def pass_title(p) -> str:
    if p.get("statement"):
        return f"pass {p['pass']}: {p['statement']}"
    args = []
    if p["gradient"] is not None:
        args.append(f"gradient={values(p['gradient'])}")
    if p["retain_graph"]:
        args.append("retain_graph=True")
    return f"pass {p['pass']}: {p['of']}.backward({', '.join(args)})"


def text_lines(report) -> list:
    """The report as aligned plain text (pipes, --no-color)."""
    out = []
    for p in report["passes"]:
        out.append(pass_title(p))
        rows = [list(COLUMNS)]
        for st in p["steps"]:
            cells = [c.split("\n") for c in step_cells(st)]
            height = max(len(c) for c in cells)
            for i in range(height):
                rows.append([c[i] if i < len(c) else "" for c in cells])
        out.extend("  " + line for line in table_lines(rows))
        if not p["ok"]:
            out.append(f"  error: {p['error']['type']}: {p['error']['message']}")
        out.append("")
    out.extend(_final(report))
    return out


def _final(report) -> list:
    lines = ["why:"] + [f"  {s}" for s in report["explanation"]] if report["explanation"] else []
    for info in report["tensors"]:
        if info["is_leaf"] and info["requires_grad"]:
            lines.append(f"{info['name']}.grad: {info['grad_text'] or 'None'}")
    return lines


def render_steps(report, console, color: bool) -> None:
    """Rich tables on terminals, aligned text otherwise."""
    if not color:
        console.file.write("\n".join(text_lines(report)).rstrip("\n") + "\n")
        return
    from rich.table import Table
    from rich.text import Text
    for p in report["passes"]:
        t = Table(title=Text(pass_title(p)), title_justify="left", header_style="bold", show_lines=True)
        for col in COLUMNS:
            t.add_column(col, overflow="fold", no_wrap=col == "#", min_width=None if col == "#" else 8)
        for st in p["steps"]:
            cells = step_cells(st)
            style = "red" if st["error"] else None
            t.add_row(*[Text(c, style=style if i == 3 else None) for i, c in enumerate(cells)])
        console.print(t)
        if not p["ok"]:
            console.print(Text(f"error: {p['error']['type']}: {p['error']['message']}", style="red"))
    for line in _final(report):
        console.print(Text(line))
