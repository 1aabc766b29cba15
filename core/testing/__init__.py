"""torch.testing: assert_close, assert_allclose (deprecated), make_tensor, as torch's."""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
