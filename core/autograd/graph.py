"""torch.autograd.graph: Node, saved_tensors_hooks (and save_on_cpu), graph helpers."""
from __future__ import annotations

from .node import Node
from .saved import HOOKED_SAVE, SAVED_TENSORS_HOOKS, SavedTensor


class HookedSavedTensor(SavedTensor):
    """A tensor saved under saved_tensors_hooks: the graph keeps pack(t); backward gets unpack(packed)
    (after the same in-place version check as an unhooked save)."""

    __slots__ = ("packed", "unpack_hook")

    def __init__(self, t, is_output=False, output_nr=0):
        super().__init__(t, is_output, output_nr)
        pack, self.unpack_hook = SAVED_TENSORS_HOOKS[-1]
        self.packed = pack(t)

    def unpack(self, node):
        if self.vc[0] != self.version:
            return super().unpack(node)     # raises torch's in-place modification error
        return self.unpack_hook(self.packed)


HOOKED_SAVE[0] = HookedSavedTensor


class saved_tensors_hooks:
    """Context manager: every tensor an op saves for backward while it is active is replaced by
    ``pack_hook(tensor)``; backward gets ``unpack_hook(packed)`` back (torch.autograd.graph)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        SAVED_TENSORS_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        SAVED_TENSORS_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors moved to the CPU and back: the identity on a CPU-only build."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


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


__all__ = ["Node", "iter_graph", "saved_tensors_hooks", "save_on_cpu"]
