#!/usr/bin/env python
"""Regenerate tests/golden/<case>.npz: key core cases run in real PyTorch (inputs, outputs, grads, errors).

tests/test_golden.py replays every case on core WITHOUT torch, so these behaviours stay checked on
machines where torch is absent. A case is `fn(m, *inputs)` with `m` the module (torch or core);
float inputs require grad when `grad` is set, and the first output is back-propagated with a
stored random upstream gradient.

    python scripts/make_golden.py            # rewrite every case
    python scripts/make_golden.py add mm     # rewrite only the named cases
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")


@dataclass
class Case:
    fn: object                      # fn(m, *inputs) -> tensor, tuple of tensors, or raises
    inputs: list = field(default_factory=list)   # numpy arrays (exact dtypes kept)
    grad: bool = True               # float inputs require grad; backprop the first output
    rtol: float = 1e-5
    atol: float = 1e-6


def _r(*shape, seed, low=-2.0, high=2.0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def _i(data, dtype=np.int64):
    return np.array(data, dtype=dtype)


def _f(data, dtype=np.float32):
    return np.array(data, dtype=dtype)


CASES = {
    # -- creation and dtype inference
    "tensor_mixed_int_float": Case(lambda m: m.tensor([[1, 2.5], [True, 4]]), grad=False),
    "tensor_bool_int": Case(lambda m: m.tensor([True, 2, False]), grad=False),
    "tensor_numpy_scalar_list": Case(lambda m: m.tensor([np.float64(1.5), 2]), grad=False),
    "tensor_ragged_error": Case(lambda m: m.tensor([[1, 2], [3]]), grad=False),
    "tensor_deep_ragged_error": Case(lambda m: m.tensor([[[1, 2], [3, 4]], [[1, 2], [3]]]), grad=False),
    "tensor_overflow_error": Case(lambda m: m.tensor([300], dtype=m.uint8), grad=False),
    "linspace_float32": Case(lambda m: m.linspace(-3.3, 7.1, 41), grad=False, rtol=0, atol=0),
    "linspace_int": Case(lambda m: m.linspace(-3, 7, 4, dtype=m.int64), grad=False, rtol=0, atol=0),
    "arange_float_step": Case(lambda m: m.arange(0, 1, 0.1), grad=False),
    "arange_negative_step": Case(lambda m: m.arange(10, 0, -3), grad=False),
    "full_bool": Case(lambda m: m.full((2, 2), True), grad=False),
    "eye_rect_int": Case(lambda m: m.eye(2, 3, dtype=m.int64), grad=False),
    # -- promotion
    "int_plus_float_scalar": Case(lambda m, a: a + 1.5, [_i([1, 2, 3])], grad=False),
    "uint8_plus_int8": Case(lambda m, a, b: a + b, [_i([200, 3], np.uint8), _i([-1, 5], np.int8)], grad=False),
    "int_div_int": Case(lambda m, a, b: a / b, [_i([7, -7, 1]), _i([2, 2, 0])], grad=False),
    "zero_dim_double_with_float": Case(lambda m, a, b: a * b, [_r(3, seed=1), _f(2.0, np.float64)]),
    "int_tensor_zero_dim_float": Case(lambda m, a, b: a + b, [_i([1, 2]), _f(0.5, np.float64)], grad=False),
    # -- pointwise
    "add_broadcast": Case(lambda m, a, b: m.add(a, b, alpha=2), [_r(2, 3, seed=2), _r(3, seed=3)]),
    "sub_broadcast": Case(lambda m, a, b: a - b, [_r(2, 1, seed=4), _r(1, 3, seed=5)]),
    "mul_broadcast_3d": Case(lambda m, a, b: a * b, [_r(4, 1, 3, seed=6), _r(2, 1, seed=7)]),
    "div_broadcast": Case(lambda m, a, b: a / b, [_r(2, 3, seed=8), _r(3, seed=9, low=0.5, high=2)]),
    "rdiv_scalar": Case(lambda m, a: 2 / a, [_r(3, seed=10, low=0.5, high=2)]),
    "rsub_scalar": Case(lambda m, a: 3 - a, [_r(3, seed=11)]),
    "pow_tensor_tensor": Case(lambda m, a, b: a ** b, [_f([0.0, 0.0, 2.0, 3.0]), _f([2.0, 0.0, 1.5, -1.0])]),
    "rpow_scalar": Case(lambda m, a: 2 ** a, [_r(4, seed=12)]),
    "int_pow_negative_tensor": Case(lambda m, a, b: a ** b, [_i([1, -1, 2, -1]), _i([-2, -3, -1, 2])], grad=False),
    "sigmoid_tanh_exp": Case(lambda m, a: a.sigmoid() * a.tanh() + a.exp(), [_r(2, 3, seed=13)]),
    "log_sqrt": Case(lambda m, a: a.log() + a.sqrt(), [_r(5, seed=14, low=0.1, high=3)]),
    "relu_abs_at_zero": Case(lambda m, a: a.relu() + a.abs(), [_f([-1.0, 0.0, 2.0])]),
    "clamp_scalar": Case(lambda m, a: a.clamp(-0.5, 0.5), [_f([-1.0, -0.5, 0.0, 0.5, 1.0])]),
    "clamp_tensor_bounds": Case(lambda m, a, lo, hi: m.clamp(a, lo, hi),
                                [_r(3, 4, seed=15), _r(4, seed=16, low=-1, high=0), _r(3, 1, seed=17, low=0, high=1)]),
    "where_scalar_other": Case(lambda m, c, a: m.where(c, a, 0.0), [np.array([True, False, True]), _r(3, seed=18)]),
    "where_broadcast": Case(lambda m, c, a, b: m.where(c, a, b), [np.array([[True], [False]]), _r(1, 3, seed=19),
                                                                   _r(2, 1, seed=20)]),
    "maximum_ties": Case(lambda m, a, b: m.maximum(a, b), [_f([1.0, 2.0, 3.0]), _f([1.0, 5.0, 3.0])]),
    "remainder_negative": Case(lambda m, a, b: a % b, [_f([7.5, -7.5, 7.5, -7.5]), _f([2.0, 2.0, -2.0, -2.0])]),
    "fmod_negative_int": Case(lambda m, a, b: m.fmod(a, b), [_i([7, -7, 7, -7]), _i([3, 3, -3, -3])], grad=False),
    "floor_divide_negative": Case(lambda m, a, b: a // b, [_i([7, -7, 7, -7]), _i([2, 2, -2, -2])], grad=False),
    "div_trunc": Case(lambda m, a, b: m.div(a, b, rounding_mode="trunc"), [_f([7.5, -7.5]), _f([2.0, 2.0])]),
    "lerp_tensor_weight": Case(lambda m, a, b, w: m.lerp(a, b, w), [_r(2, 3, seed=21), _r(2, 3, seed=22),
                                                                     _r(3, seed=23, low=0, high=1)]),
    "atan2": Case(lambda m, a, b: m.atan2(a, b), [_r(4, seed=24), _r(4, seed=25)]),
    "sign_nan": Case(lambda m, a: a.sign(), [_f([np.nan, -2.0, 0.0, 3.0])], grad=False),
    "comparisons": Case(lambda m, a, b: (a < b) | (a == 2), [_i([1, 2, 3]), _f([2.0, 1.0, 3.5])], grad=False),
    "bitwise_int": Case(lambda m, a, b: (a & b) ^ ~a, [_i([5, 3, 12]), _i([1, 7, 4])], grad=False),
    "bool_sub_error": Case(lambda m, a, b: a - b, [np.array([True]), np.array([False])], grad=False),
    "broadcast_error": Case(lambda m, a, b: a + b, [_r(2, 3, seed=26), _r(4, seed=27)], grad=False),
    "inplace_int_add_float_error": Case(lambda m, a: a.add_(1.5), [_i([1, 2])], grad=False),
    "int_negative_power_error": Case(lambda m, a: a ** -1, [_i([1, 2])], grad=False),
    "inplace_chain_grad": Case(lambda m, a, b: (a * 1).mul_(b).add_(b).exp_(), [_r(2, 3, seed=28), _r(3, seed=29)]),
    # -- reductions
    "sum_dims_keepdim": Case(lambda m, a: a.sum((0, 2), keepdim=True), [_r(2, 3, 4, seed=30)]),
    "mean_neg_dim": Case(lambda m, a: a.mean(-1), [_r(2, 3, 4, seed=31)]),
    "prod_with_zero": Case(lambda m, a: a.prod(1), [_f([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]])]),
    "max_full_ties": Case(lambda m, a: a.max(), [_f([[3.0, 1.0], [3.0, 2.0]])]),
    "max_dim_namedtuple": Case(lambda m, a: tuple(a.max(1)), [_f([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]])]),
    "amax_ties": Case(lambda m, a: a.amax(1), [_f([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]])]),
    "var_std": Case(lambda m, a: a.var(1) + a.std(0, keepdim=True).sum(), [_r(3, 4, seed=32)]),
    "std_constant_row": Case(lambda m, a: a.std(1), [_f([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]])]),
    "logsumexp": Case(lambda m, a: a.logsumexp(1), [_f([[1000.0, 1000.0], [-np.inf, 0.0], [1.0, 2.0]])]),
    "cumsum_cumprod_zeros": Case(lambda m, a: a.cumsum(1) + a.cumprod(1), [_f([[2.0, 0.0, 3.0], [1.0, 2.0, 0.0]])]),
    "norm_p3_dim": Case(lambda m, a: a.norm(p=3, dim=1), [_r(3, 4, seed=33)]),
    "norm_zero_vector": Case(lambda m, a: a.norm(dim=1), [_f([[0.0, 0.0], [3.0, 4.0]])]),
    "argmax_nan": Case(lambda m, a: a.argmax(1), [_f([[1.0, np.nan, 3.0], [2.0, 0.5, -1.0]])], grad=False),
    "all_any_uint8": Case(lambda m, a: (a.all(1), a.any(0)), [_i([[0, 1], [2, 3]], np.uint8)], grad=False),
    "mean_int_error": Case(lambda m, a: a.mean(), [_i([1, 2])], grad=False),
    "max_empty_error": Case(lambda m, a: a.max(), [np.zeros((0, 3), np.float32)], grad=False),
    "sum_dim_out_of_range_error": Case(lambda m, a: a.sum(3), [_r(2, 3, seed=34)], grad=False),
    # -- matrix products
    "matmul_2d": Case(lambda m, a, b: a @ b, [_r(2, 3, seed=35), _r(3, 4, seed=36)]),
    "matmul_broadcast_4d": Case(lambda m, a, b: a @ b, [_r(2, 1, 2, 3, seed=37), _r(3, 3, 4, seed=38)]),
    "matmul_1d_3d": Case(lambda m, a, b: m.matmul(a, b), [_r(3, seed=39), _r(2, 3, 4, seed=40)]),
    "matmul_3d_1d": Case(lambda m, a, b: a @ b, [_r(2, 2, 3, seed=41), _r(3, seed=42)]),
    "matmul_2d_3d": Case(lambda m, a, b: a @ b, [_r(2, 3, seed=43), _r(5, 3, 4, seed=44)]),
    "bmm": Case(lambda m, a, b: m.bmm(a, b), [_r(2, 2, 3, seed=45), _r(2, 3, 4, seed=46)]),
    "mv_dot_outer": Case(lambda m, a, v: a.mv(v).dot(v[:2]) * m.outer(v, v).sum(), [_r(2, 3, seed=47), _r(3, seed=48)]),
    "matmul_mismatch_error": Case(lambda m, a, b: a @ b, [_r(2, 3, seed=49), _r(4, 5, seed=50)], grad=False),
    "matmul_batched_mismatch_error": Case(lambda m, a, b: a @ b, [_r(2, 2, 3, seed=51), _r(2, 4, 5, seed=52)],
                                          grad=False),
    # -- indexing (core/ops/indexing.py)
    "gather_dim1": Case(lambda m, a, i: m.gather(a, 1, i), [_r(2, 3, seed=53), _i([[0, 0, 2], [1, 0, 1]])]),
    "gather_dim0": Case(lambda m, a, i: a.gather(0, i), [_r(3, 2, seed=54), _i([[2, 0], [1, 1]])]),
    "scatter_src": Case(lambda m, a, i, s: a.scatter(1, i, s), [_r(2, 4, seed=55), _i([[0, 3], [2, 1]]),
                                                              _r(2, 2, seed=56)]),
    "scatter_add": Case(lambda m, a, i, s: a.scatter_add(0, i, s), [_r(3, 2, seed=57), _i([[0, 1], [0, 0], [2, 0]]),
                                                                      _r(3, 2, seed=58)]),
    "index_select": Case(lambda m, a, i: a.index_select(0, i), [_r(4, 2, seed=59), _i([3, 0, 3])]),
    "gather_index_error": Case(lambda m, a, i: m.gather(a, 1, i), [_r(2, 3, seed=60), _i([[0, 3], [1, 0]])],
                               grad=False),
}


def _run(m, case, inputs):
    """(outputs tuple, leaves) for module m, or raises."""
    ts = []
    for x in inputs:
        t = m.tensor(x)
        if case.grad and x.dtype.kind == "f":
            t.requires_grad_()
        ts.append(t)
    out = case.fn(m, *ts)
    return (out if isinstance(out, tuple) else (out,)), ts


def record(name, case):
    import torch
    torch.set_num_threads(1)
    data = {f"in{k}": x for k, x in enumerate(case.inputs)}
    try:
        outs, leaves = _run(torch, case, case.inputs)
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        data["error_class"] = np.array(type(e).__name__)
        data["error_message"] = np.array(str(e))
        return data
    for k, o in enumerate(outs):
        data[f"out{k}"] = o.detach().numpy()
        data[f"out{k}_dtype"] = np.array(str(o.dtype))
    first = outs[0]
    if first.grad_fn is not None:
        data["grad_fn"] = np.array(first.grad_fn.name())
        g = np.random.default_rng(1000 + len(name)).standard_normal(tuple(first.shape))
        data["upstream"] = g
        first.backward(torch.tensor(g).to(first.dtype))
        for k, t in enumerate(leaves):
            if t.requires_grad and t.grad is not None:
                data[f"grad{k}"] = t.grad.numpy()
    return data


def main(names):
    os.makedirs(GOLDEN, exist_ok=True)
    for name in names or sorted(CASES):
        data = record(name, CASES[name])
        np.savez(os.path.join(GOLDEN, name + ".npz"), **data)
        print("wrote", os.path.relpath(os.path.join(GOLDEN, name + ".npz"), ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
