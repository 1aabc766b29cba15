"""torch.autograd.graph: Node and saved_tensors_hooks-free graph helpers."""
from __future__ import annotations

from .node import Node


def iter_graph(root):
    """Yield every node reachable from `root` (a Tensor or a Node), each once, root first."""
    node = getattr(root, "grad_fn", root)
    if node is None:
        return
    seen = {node}
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for fn, _ in n.next_functions:
            if fn is not None and fn not in seen:
                seen.add(fn)
                stack.append(fn)


__all__ = ["Node", "iter_graph"]
