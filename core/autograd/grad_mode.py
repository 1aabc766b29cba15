"""torch.autograd.grad_mode: the grad-mode context managers (implemented in core/_grad_mode.py,
which sits below tensor.py so the Tensor base can read the mode without importing autograd)."""
from .._grad_mode import (STATE, enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                          is_inference_mode_enabled, no_grad, set_grad_enabled)
