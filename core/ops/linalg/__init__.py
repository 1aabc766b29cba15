"""Matrix products and friends: matmul/mm/bmm/mv/dot/inner/outer/addmm (`products`), addmv/addr/addbmm/
baddbmm/vdot/trace/kron (`more_products`) and cdist. Re-exports what other modules import."""
from __future__ import annotations

from . import more_products, products
from .cdist import cdist
from .more_products import addbmm, addmv, addr, baddbmm, kron, trace, vdot
from .products import _CPP, AddmmBackward0, addmm, bmm, dot, inner, matmul, mm, mv, outer
