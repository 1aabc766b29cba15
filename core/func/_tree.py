"""The pytrees torch.func walks: tuples, lists and dicts of leaves (torch.utils._pytree's containers that
programs pass to transforms), flattened in torch's order (dict keys in insertion order)."""
from __future__ import annotations


def flatten(tree):
    """(leaves, spec); unflatten(spec, leaves) rebuilds the tree."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = flatten(item)
            leaves += sub
            specs.append((spec, len(sub)))
        return leaves, (type(tree), None, specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key, item in tree.items():
            sub, spec = flatten(item)
            leaves += sub
            specs.append((spec, len(sub)))
        return leaves, (type(tree), list(tree), specs)
    return [tree], None


def unflatten(spec, leaves):
    if spec is None:
        return leaves[0]
    kind, keys, specs = spec
    items, at = [], 0
    for sub, n in specs:
        items.append(unflatten(sub, leaves[at:at + n]))
        at += n
    if keys is not None:
        return kind(zip(keys, items))
    return kind(items) if kind in (tuple, list) else kind(*items)   # namedtuples


def tree_map(fn, tree):
    leaves, spec = flatten(tree)
    return unflatten(spec, [fn(x) for x in leaves])


def spec_repr(spec):
    """torch.utils._pytree's TreeSpec text for the flat tuples vmap's errors print."""
    if spec is None:
        return "*"
    kind, keys, specs = spec
    return f"TreeSpec({kind.__name__}, {keys}, [{','.join(chr(10) + '  ' + spec_repr(s) if i else spec_repr(s) for i, (s, _) in enumerate(specs))}])"
