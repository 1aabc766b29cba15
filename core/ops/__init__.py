"""Op families; importing this package registers every op (see registry.py)."""
from . import registry  # noqa: F401
from . import pointwise, reduce, linalg, shape, indexing, einsum, activation, sorting  # noqa: F401

from . import nn  # noqa: F401
