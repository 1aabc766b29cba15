"""Registers the op modules of other families that their package __init__ does not import yet
(core/ops/creation_more.py, ...): shape imports every submodule, so importing them here registers them.
The lead moves each line to its family's __init__ (or ops/families.py) on merge."""
from .. import creation_more  # noqa: F401
from ..pointwise import special_bessel_more  # noqa: F401
from .. import masked  # noqa: F401
from ..reduce import gradient_trapz, histogram, native_norms, renorm  # noqa: F401
