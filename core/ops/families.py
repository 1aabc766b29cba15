"""Imports every op family, so each registers its ops; core/__init__ imports this before binding."""
from . import pointwise, reduce, linalg, shape, indexing, einsum, activation, sorting  # noqa: F401
from . import conversion  # noqa: F401
