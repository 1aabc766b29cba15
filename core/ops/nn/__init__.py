"""The nn op family (torch.nn.functional's kernels), one module per kind. Importing the package
registers every op; core.nn.functional re-exports the public functions. Never imports core.nn."""
from . import activation, softmax, linear, dropout, im2col, conv, conv_transpose  # noqa: F401
from . import pool, adaptive, norm, loss, distance, padding, embedding, attention  # noqa: F401
from . import activation_variants, activation_param, loss_margin, loss_composite  # noqa: F401
from . import pixel_shuffle, pdist, bilinear, norm_composite, dropout_alpha  # noqa: F401
from . import pool_nd, unpool, conv3d, interpolate, fractional, grid_sample, affine_grid  # noqa: F401
from . import convolution  # noqa: F401  (torch.convolution, torch.conv_tbc)
from . import ctc_loss  # noqa: F401  (F.ctc_loss)
