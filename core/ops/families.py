"""Imports every op family, so each registers its ops; core/__init__ imports this before binding."""
from . import pointwise, reduce, linalg, shape, indexing, einsum, sorting, random, nn  # noqa: F401
from . import conversion  # noqa: F401
