"""copy.deepcopy support for tensors (used by nn modules and state_dict copies)."""
from __future__ import annotations

import copy


def deepcopy_tensor(t, memo):
    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                           "because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    if id(t) in memo:
        return memo[id(t)]
    new = type(t).__new__(type(t))
    new._init(t._data.copy(), t._requires_grad)
    if t._grad is not None:
        new._grad = deepcopy_tensor(t._grad, memo)
    for k, v in getattr(t, "__dict__", {}).items():
        new.__dict__[k] = copy.deepcopy(v, memo)
    memo[id(t)] = new
    return new
