"""Sample inputs keyed by registry name, for the ops PyTorch's op_db does not cover (aliases, core's
own additions). Each entry: a list of (args, kwargs) built from torch values by a function of
`torch`, so the harness can run the same call in both libraries. An op that op_db covers needs no
entry here: tests/core/ops/test_registry.py finds its OpInfo."""
from __future__ import annotations


def _m(torch, *shape, dtype=None, grad=False):
    g = torch.Generator().manual_seed(sum(shape) + 7)
    return torch.randn(*shape, generator=g, dtype=dtype or torch.float64).requires_grad_(grad)


# the torch function a registry name stands for, where the names differ
TORCH_NAMES = {"im2col": "unfold"}
# random results: compared by shape and dtype only
UNDEFINED_VALUES = {"poisson", "gumbel_softmax", "binomial"}

SAMPLES = {
    "dropout1d": lambda torch: [((_m(torch, 2, 3, 4, grad=True), 0.5, False), {}), ((_m(torch, 3, 4), 0.0), {})],
    "ger": lambda torch: [((_m(torch, 3, grad=True), _m(torch, 4, grad=True)), {})],
    "vander": lambda torch: [((_m(torch, 4),), {}), ((_m(torch, 3),), {"N": 5, "increasing": True}),
                             ((torch.tensor([1, -2, 3]),), {"N": 2}), ((_m(torch, 2),), {"N": 0})],
    "affine_grid": lambda torch: [((_m(torch, 2, 2, 3, grad=True), (2, 1, 3, 4)), {"align_corners": False}),
                                  ((_m(torch, 1, 3, 4, grad=True), (1, 2, 2, 3, 2)), {"align_corners": True})],
    "gumbel_softmax": lambda torch: [((_m(torch, 3, 4),), {}),
                                     ((_m(torch, 3, 4),), {"tau": 0.5, "hard": True, "dim": 0})],
    "fold": lambda torch: [((_m(torch, 1, 4, 9, grad=True), (4, 4), (2, 2)), {}),
                           ((_m(torch, 2, 8, 4), (3, 3)), {"kernel_size": (2, 2), "stride": 1}),
                           ((_m(torch, 1, 4, 5), (4, 4), (2, 2)), {})],
    "im2col": lambda torch: [((_m(torch, 1, 2, 4, 4, grad=True), (2, 2)), {}),
                             ((_m(torch, 2, 1, 5, 5), 3), {"padding": 1, "stride": 2}),
                             ((_m(torch, 1, 2, 4), 2), {})],
    "max_pool2d_with_indices": lambda torch: [((_m(torch, 1, 2, 4, 4, grad=True), 2), {}),
                                              ((_m(torch, 2, 3, 5, 5), 3), {"stride": 2, "padding": 1})],
    "poisson": lambda torch: [((_m(torch, 3, 4).abs(),), {})],
    "max_pool1d_with_indices": lambda torch: [((_m(torch, 2, 3, 7, grad=True), 2), {}),
                                              ((_m(torch, 3, 6), 3), {"stride": 2, "padding": 1, "dilation": 1})],
    "max_pool3d_with_indices": lambda torch: [((_m(torch, 1, 2, 4, 4, 4, grad=True), 2), {}),
                                              ((_m(torch, 2, 3, 5, 5), 3), {"stride": 2, "padding": 1})],
    "lp_pool1d": lambda torch: [((_m(torch, 2, 3, 8, grad=True), 2, 3), {}),
                                ((_m(torch, 3, 7).abs().requires_grad_(), 1.5, 2), {"stride": 1, "ceil_mode": True}),
                                ((_m(torch, 1, 2, 6, grad=True), float("inf"), 2), {})],
    "lp_pool2d": lambda torch: [((_m(torch, 1, 2, 4, 4, grad=True), 2, 2), {}),
                                ((_m(torch, 2, 5, 5).abs().requires_grad_(), 3, (2, 3)), {"stride": 1}),
                                ((_m(torch, 1, 1, 4, 4, grad=True), float("inf"), 2), {"ceil_mode": True})],
    "lp_pool3d": lambda torch: [((_m(torch, 1, 2, 4, 4, 4, grad=True), 2, 2), {}),
                                ((_m(torch, 2, 4, 5, 5).abs().requires_grad_(), 1, (2, 2, 3)), {"stride": 1})],
    "adjoint": lambda torch: [((_m(torch, 3, 4, grad=True),), {}), ((_m(torch, 2, 3, 4, grad=True),), {})],
    "concat": lambda torch: [(([_m(torch, 2, 3, grad=True), _m(torch, 1, 3, grad=True)],), {}),
                             (([_m(torch, 2, 3), _m(torch, 2, 1)],), {"dim": 1}),
                             (([_m(torch, 2, 3), _m(torch, 2, 2)],), {"dim": 0})],
    "concatenate": lambda torch: [(([_m(torch, 2, 3, grad=True), _m(torch, 2, 2, grad=True)],), {"dim": -1})],
    "moveaxis": lambda torch: [((_m(torch, 2, 3, 4, grad=True), 0, 2), {}),
                               ((_m(torch, 2, 3, 4), (0, 1), (2, 0)), {}),
                               ((_m(torch, 2, 3), 0, 5), {})],
    "row_stack": lambda torch: [(([_m(torch, 3, grad=True), _m(torch, 3, grad=True)],), {}),
                                (([_m(torch, 2, 3), _m(torch, 1, 3)],), {})],
    "swapaxes": lambda torch: [((_m(torch, 2, 3, 4, grad=True), 0, 2), {}), ((_m(torch, 2, 3), 1, -2), {}),
                               ((_m(torch, 2, 3), 0, 3), {})],
    "swapdims": lambda torch: [((_m(torch, 2, 3, 4, grad=True), -1, 0), {}), ((_m(torch, 5), 0, 0), {})],
    "select_copy": lambda torch: [((_m(torch, 2, 3, 4, grad=True), 1, 2), {}), ((_m(torch, 2, 3), -1, -1), {}),
                                  ((_m(torch, 2, 3), 1, 5), {})],
    "slice_copy": lambda torch: [((_m(torch, 2, 3, 4, grad=True),), {}),
                                 ((_m(torch, 2, 3, 4, grad=True), 1, 0, 3, 2), {}),
                                 ((_m(torch, 2, 5, grad=True),), {"dim": 1, "start": -3})],
    "detach_copy": lambda torch: [((_m(torch, 2, 3),), {}), ((torch.tensor([1, 2]),), {})],
    "split_copy": lambda torch: [((_m(torch, 2, 5, grad=True), 2, 1), {}), ((_m(torch, 4, 3, grad=True), 3), {})],
    "unsafe_split_with_sizes": lambda torch: [((_m(torch, 2, 5, grad=True), [2, 3], 1), {}),
                                              ((_m(torch, 4, 3), [1, 3]), {}), ((_m(torch, 4, 3), [1, 2]), {})],
    "chain_matmul": lambda torch: [((_m(torch, 2, 3, grad=True), _m(torch, 3, 4, grad=True), _m(torch, 4, 2)), {}),
                                   ((_m(torch, 3, 3, grad=True),), {}), ((_m(torch, 2, 3), _m(torch, 4, 2)), {})],
    "frobenius_norm": lambda torch: [((_m(torch, 3, 4, grad=True), (0, 1)), {}),
                                     ((_m(torch, 2, 3, 4, grad=True), (2,), True), {}),
                                     ((_m(torch, 2, 3), (0, 1, 1)), {})],
    "nuclear_norm": lambda torch: [((_m(torch, 3, 4, grad=True),), {}), ((_m(torch, 2, 3, 3), (1, 2), True), {}),
                                   ((_m(torch, 4),), {})],
    "norm_except_dim": lambda torch: [((_m(torch, 3, 4, grad=True),), {}), ((_m(torch, 2, 3, 4, grad=True), 2, 1), {}),
                                      ((_m(torch, 2, 3, 4, grad=True), 3, -1), {}),
                                      ((_m(torch, 2, 3, 4, grad=True), 1, 2), {})],
    "binomial": lambda torch: [((torch.full((3, 4), 20.0), torch.full((3, 4), 0.3)), {}),
                               ((torch.tensor([5.0, 100.0], dtype=torch.float64),
                                 torch.tensor([0.9, 0.5], dtype=torch.float64)), {})],
    "convolution": lambda torch: [((_m(torch, 2, 2, 5, grad=True), _m(torch, 3, 2, 2, grad=True), None, [1], [0], [1],
                                    False, [0], 1), {}),
                                   ((_m(torch, 1, 2, 4, 4, grad=True), _m(torch, 2, 2, 3, 3, grad=True),
                                     _m(torch, 2, grad=True), [2, 1], [1, 1], [1, 1], False, [0, 0], 1), {}),
                                   ((_m(torch, 1, 2, 4, grad=True), _m(torch, 2, 3, 2, grad=True), None, [2], [0],
                                     [1], True, [1], 1), {})],
    "conv_tbc": lambda torch: [((_m(torch, 6, 2, 3, grad=True), _m(torch, 3, 3, 4, grad=True), _m(torch, 4, grad=True),
                                 1), {}),
                               ((_m(torch, 5, 1, 2, grad=True), _m(torch, 2, 2, 3, grad=True), _m(torch, 3)), {}),
                               ((_m(torch, 5, 1, 2), _m(torch, 2, 3, 3), _m(torch, 3)), {})],
}
