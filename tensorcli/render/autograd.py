"""Rich views of the autograd explorer's reports (services/autograd.py)."""
from __future__ import annotations

import core
from core import dtypes
from core.memory import format_bytes
from rich.table import Table
from rich.text import Text

from . import safe
from .fit import print_fitted
from rich.tree import Tree


def _say(console, text) -> None:
    """A message line: piped, one line however long (grep finds it); on a terminal, wrapped between words."""
    console.print(text, soft_wrap=not console.is_terminal)


def _yes(v) -> str:
    return "-" if v is None else ("yes" if v else "no")


def _fmt_shape(info) -> str:
    return f"{info['dtype'].removeprefix('torch.')} {info['shape']}"


def _table(title=None):
    return Table(title=safe.text(title) if title is not None else None, title_justify="left", box=None, pad_edge=False, padding=(0, 1),
                 header_style="bold underline")


def render_grad(report: dict, console) -> None:
    """Table of the named tensors, then the seed-style ``name.grad: ...`` lines."""
    passes = report["backward"]
    twice_ok = len(passes) == 2 and passes[1]["ok"]
    first = passes[0]
    args = [a for a, on in (("gradient", first["gradient"] is not None),
                            ("retain_graph=True", first["retain_graph"])) if on]
    title = f"after {first['of']}.backward({', '.join(args)})"
    if first.get("called_by") == "expression":
        title = f"after EXPR's own {first['of']}.backward(...)"
    if len(passes) == 2:
        title += f", then {passes[1]['of']}.backward()"
    t = _table(title)
    for col in ("name", "tensor", "is_leaf", "requires_grad", "grad_fn", "retains_grad"):
        t.add_column(col, no_wrap=col in ("name", "tensor", "grad_fn"))
    for info in report["tensors"]:
        t.add_row(safe.text(info["name"]), _fmt_shape(info), _yes(info["is_leaf"]), _yes(info["requires_grad"]),
                  safe.text(info["grad_fn"] or "None"), _yes(info["retains_grad"]))
    print_fitted(console, t)
    for info in report["tensors"]:
        name = info["name"]
        if twice_ok:
            g1 = passes[0]["grads"].get(name)
            if g1 is not None:
                _say(console, safe.text(f"{name}.grad after pass 1: {_grad_after_first(report, name)}"))
        line = f"{name}.grad: {info['grad_text'] or 'None'}"
        if info["note"] is not None:
            line += f"  ({info['note']})"
        _say(console, safe.text(line))
    if len(passes) == 2:
        second = passes[1]
        if second["ok"]:
            _say(console, safe.text(f"second backward ({second['of']}.backward()): ok; {second['explanation']}"))
        else:
            err = second["error"]
            _say(console, safe.text(f"second backward ({second['of']}.backward()) raised "
                               f"{err['type']}: {err['message']}"))
            _say(console, safe.text(second["explanation"], style="bold"))


def _grad_after_first(report, name) -> str:
    values = report["backward"][0]["grads"][name]
    dtype = next(i["dtype"] for i in report["tensors"] if i["name"] == name)
    return str(core.tensor(values, dtype=dtypes.as_dtype(dtype)))


def _node_label(d, shared) -> "object":
    name = d["name"]
    tag = f" #{d['id']}" if d.get("id") in shared else ""
    if d.get("ref"):
        return safe.text(f"{name}{tag} (shown above)", style="dim")
    if name == "AccumulateGrad":
        var = d.get("variable") or "an unnamed leaf"
        return Text.assemble((safe.clean(f"AccumulateGrad{tag}"), "green"),
                             safe.clean(f" -> {var} ({d['dtype'].removeprefix('torch.')} {d['shape']})"))
    label = safe.text(f"{name}{tag}", style="bold")
    if d.get("custom"):
        label.append(safe.clean(f"  custom Function, needs_input_grad={tuple(d['needs_input_grad'])}"))
    if d.get("freed"):
        label.append("  saved tensors freed by backward", style="dim")
    elif d.get("saved"):
        parts = []
        for s in d["saved"]:
            who = s["name"] or ("its output" if s["is_output"] else "unnamed")
            parts.append(f"{who} {s['dtype'].removeprefix('torch.')} {s['shape']} {s['bytes']} B")
        label.append(safe.clean("  saved: " + "; ".join(parts)), style="cyan")
    else:
        label.append("  saves nothing", style="dim")
    return label


def render_graph(report: dict, console) -> None:
    info = report["result"]
    root_label = safe.text(f"{info['name']}: {_fmt_shape(info)}, requires_grad={info['requires_grad']}, "
                      f"grad_fn={info['grad_fn']}")
    tree = Tree(root_label)
    graph = report["graph"]
    if graph is None:
        console.print(tree)
        _say(console, safe.text(report["note"]))
        return
    shared = set()
    stack = [graph]
    while stack:
        d = stack.pop()
        if d is None:
            continue
        if d.get("ref"):
            shared.add(d["id"])
        stack.extend(d.get("next") or ())
    # Each level indents 4 columns: beyond what the console can show, stop (the JSON has it all).
    limit = max(4, (console.width - 40) // 4)
    work = [(tree, graph, 0)]
    while work:
        parent, d, depth = work.pop()
        if d is None:
            parent.add(safe.text("None (input that needs no grad)", style="dim"))
            continue
        branch = parent.add(_node_label(d, shared))
        children = d.get("next") or ()
        if d.get("truncated") or (children and depth + 1 >= limit):
            branch.add(safe.text("... deeper nodes not shown (see --json, --max-depth)", style="dim"))
            continue
        for child in reversed(children):
            work.append((branch, child, depth + 1))
    console.print(tree)
    _say(console, safe.text(f"{report['graph_nodes']} node{'s' if report['graph_nodes'] != 1 else ''}, "
                       f"{report['leaves']} lea{'ves' if report['leaves'] != 1 else 'f'} (AccumulateGrad); "
                       f"{report['saved_tensors']} distinct tensor{'s' if report['saved_tensors'] != 1 else ''} "
                       f"({format_bytes(report['saved_bytes'])}) saved for backward"))


def render_modes(report: dict, console) -> None:
    t = _table(f"modes: {report['expr']}")
    for col, just in (("mode", "left"), ("requires_grad", "left"), ("grad_fn", "left"),
                      ("is_inference", "left"), ("nodes", "right"), ("saved", "right")):
        t.add_column(col, justify=just, no_wrap=True)
    for r in report["modes"]:
        if not r["ok"]:
            t.add_row(safe.text(r["label"]), "-", safe.text("error (below)"), "-", "-", "-")
            continue
        t.add_row(safe.text(r["label"]), _yes(r["requires_grad"]), safe.text(r["grad_fn"] or "None"),
                  _yes(r["is_inference"]), str(r["graph_nodes"]), format_bytes(r["saved_bytes"]))
    print_fitted(console, t)
    for r in report["modes"]:
        if not r["ok"]:
            _say(console, safe.text(f"{r['label']}: {r['error']}"))
    _say(console, safe.text(report["summary"]))


def print_hook(console, name, text) -> None:
    """A hook's line as it fires: 'hook z: tensor([...])'."""
    _say(console, safe.text(f"hook {name}: {text}"))
