"""torch.signal.windows: hann, hamming, bartlett, blackman, cosine, exponential, gaussian, kaiser,
general_cosine, general_hamming, nuttall."""
from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming,  # noqa: F401
                      hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]
