"""Shape-op errors vs torch: same exception class and PyTorch's message."""
from __future__ import annotations

import pytest

import core
from conftest import same_error


def z(L, *shape):
    return L.zeros(*shape)


# (id, fn(lib)) -- the message must equal torch's first line exactly
ERRORS = [
    ("cat_size_mismatch", lambda L: L.cat([z(L, 2, 3), z(L, 2, 2)])),
    ("cat_size_mismatch_dim1", lambda L: L.cat([z(L, 2, 3), z(L, 3, 2)], 1)),
    ("cat_ndim_mismatch", lambda L: L.cat([z(L, 2, 3), z(L, 3)])),
    ("cat_empty_list", lambda L: L.cat([])),
    ("cat_zero_dim", lambda L: L.cat([L.tensor(1.), L.tensor(2.)])),
    ("cat_dim_out_of_range", lambda L: L.cat([z(L, 2, 3)], 2)),
    ("cat_tensor_not_list", lambda L: L.cat(z(L, 2))),
    ("cat_float_dim", lambda L: L.cat([z(L, 2)], dim=1.0)),
    ("stack_size_mismatch", lambda L: L.stack([z(L, 2), z(L, 3)])),
    ("stack_empty", lambda L: L.stack([])),
    ("stack_dim_out_of_range", lambda L: L.stack([z(L, 2, 3)], 4)),
    ("hstack_empty", lambda L: L.hstack([])),
    ("view_invalid", lambda L: z(L, 6).view(4, 4)),
    ("view_two_minus1", lambda L: z(L, 6).view(-1, -1)),
    ("view_minus2", lambda L: z(L, 6).view(-2, 3)),
    ("view_noncontiguous", lambda L: z(L, 2, 3).t().view(6)),
    ("view_ambiguous_empty", lambda L: z(L, 0).view(0, -1)),
    ("reshape_invalid", lambda L: z(L, 6).reshape(4, 4)),
    ("view_dtype_bad_last_dim", lambda L: z(L, 2, 3).view(L.int64)),
    ("view_dtype_0d", lambda L: L.tensor(1.).view(L.float64)),
    ("view_dtype_stride", lambda L: z(L, 2, 4).t().view(L.float64)),
    ("unsqueeze_out_of_range", lambda L: z(L, 2, 3).unsqueeze(3)),
    ("squeeze_out_of_range", lambda L: z(L, 2, 3).squeeze(2)),
    ("transpose_out_of_range", lambda L: z(L, 2, 3).transpose(0, 2)),
    ("permute_wrong_length", lambda L: z(L, 2, 3).permute(0)),
    ("permute_duplicate", lambda L: z(L, 2, 3).permute(0, 0)),
    ("permute_out_of_range", lambda L: z(L, 2, 3).permute(0, 2)),
    ("t_3d", lambda L: z(L, 2, 2, 2).t()),
    ("t__3d", lambda L: z(L, 2, 2, 2).t_()),
    ("expand_too_few", lambda L: z(L, 2, 3).expand(3)),
    ("expand_mismatch", lambda L: z(L, 2, 3).expand(3, 3)),
    ("expand_negative_leading", lambda L: z(L, 2, 3).expand(-1, 2, 3)),
    ("expand_negative", lambda L: z(L, 2, 3).expand(2, -2)),
    ("broadcast_to_mismatch", lambda L: z(L, 2, 3).broadcast_to((3, 3))),
    ("repeat_too_few", lambda L: z(L, 2, 3).repeat(2)),
    ("repeat_negative", lambda L: z(L, 2, 3).repeat(-1, 2)),
    ("flip_duplicate", lambda L: z(L, 2, 3).flip(0, 0)),
    ("flip_out_of_range", lambda L: z(L, 2, 3).flip(2)),
    ("fliplr_1d", lambda L: L.fliplr(z(L, 3))),
    ("flipud_0d", lambda L: L.flipud(L.tensor(1.))),
    ("roll_misaligned", lambda L: z(L, 2, 3).roll((1, 2), (0,))),
    ("roll_misaligned_int", lambda L: z(L, 2, 3).roll(1, (0, 1))),
    ("roll_no_dims_many_shifts", lambda L: z(L, 2, 3).roll((1, 1))),
    ("roll_empty_shifts", lambda L: z(L, 2, 3).roll(())),
    ("roll_out_of_range", lambda L: z(L, 2, 3).roll(1, 2)),
    ("narrow_past_end", lambda L: z(L, 2, 3).narrow(1, 2, 2)),
    ("narrow_negative_length", lambda L: z(L, 2, 3).narrow(1, 0, -1)),
    ("narrow_start_out_of_range", lambda L: z(L, 2, 3).narrow(1, 4, 0)),
    ("narrow_0d", lambda L: L.tensor(1.).narrow(0, 0, 1)),
    ("chunk_zero", lambda L: z(L, 2, 3).chunk(0)),
    ("chunk_0d", lambda L: L.tensor(1.).chunk(1)),
    ("split_zero", lambda L: z(L, 2, 3).split(0)),
    ("split_sizes_sum", lambda L: z(L, 2, 3).split([1, 2])),
    ("split_negative", lambda L: z(L, 2, 3).split(-1)),
    ("split_negative_sizes", lambda L: z(L, 2, 3).split([3, -1])),
    ("unbind_out_of_range", lambda L: z(L, 2, 3).unbind(2)),
    ("unbind_0d", lambda L: L.tensor(1.).unbind()),
    ("select_out_of_range", lambda L: z(L, 2, 3).select(0, 2)),
    ("select_negative_out_of_range", lambda L: z(L, 2, 3).select(0, -3)),
    ("select_0d", lambda L: L.tensor(1.).select(0, 0)),
    ("unfold_too_big", lambda L: z(L, 2, 3).unfold(1, 4, 1)),
    ("unfold_step_zero", lambda L: z(L, 2, 3).unfold(1, 2, 0)),
    ("unfold_negative_size", lambda L: z(L, 2, 3).unfold(1, -1, 1)),
    ("as_strided_out_of_bounds", lambda L: z(L, 3, 4, 4).as_strided((3, 4, 4), (16, 5, 1))),
    ("as_strided_negative_stride", lambda L: z(L, 2, 3).as_strided((2,), (-1,))),
    ("movedim_repeated_source", lambda L: z(L, 2, 3).movedim((0, 0), (0, 1))),
    ("movedim_repeated_destination", lambda L: z(L, 2, 3).movedim((0, 1), (1, 1))),
    ("movedim_length_mismatch", lambda L: z(L, 2, 3).movedim((0, 1), (0,))),
    ("movedim_out_of_range", lambda L: z(L, 2, 3).movedim(0, 2)),
    ("unflatten_bad_product", lambda L: z(L, 2, 3).unflatten(1, (2, 2))),
    ("unflatten_empty_sizes", lambda L: z(L, 2, 3).unflatten(1, ())),
    ("flatten_start_after_end", lambda L: z(L, 2, 3).flatten(1, 0)),
    ("tensor_split_zero_sections", lambda L: z(L, 2, 3).tensor_split(0)),
    ("mT_1d", lambda L: z(L, 3).mT),
    ("mH_1d", lambda L: z(L, 3).mH),
    ("H_1d", lambda L: z(L, 3).H),
    ("H_3d", lambda L: z(L, 2, 3, 4).H),
]

# messages that differ from torch's by design (torch's is a C++ traceback or a long signature list)
CLASS_ONLY = {"unflatten_empty_sizes", "cat_float_dim"}


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_matches_torch(torch, name, fn):
    ec, et = same_error(lambda: fn(core), lambda: fn(torch))
    assert et is not None, "torch did not raise"
    if name not in CLASS_ONLY:
        assert str(ec).split("\n")[0] == str(et).split("\n")[0]


def test_cat_error_message_is_torchs_wording():
    with pytest.raises(RuntimeError, match=r"^Sizes of tensors must match except in dimension 0\. Expected size 3 "
                                           r"but got size 2 for tensor number 1 in the list\.$"):
        core.cat([core.zeros(2, 3), core.zeros(2, 2)])


def test_stack_error_message_is_torchs_wording():
    with pytest.raises(RuntimeError, match=r"^stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1$"):
        core.stack([core.zeros(2), core.zeros(3)])


def test_view_error_message_is_torchs_wording():
    with pytest.raises(RuntimeError, match=r"^shape '\[4, 4\]' is invalid for input of size 6$"):
        core.zeros(6).view(4, 4)


def test_repeat_huge_is_refused_before_allocating():
    with pytest.raises(RuntimeError, match="not enough memory"):
        core.zeros(10, 10).repeat(10 ** 6, 10 ** 6)


def test_cat_huge_result_is_refused_before_allocating():
    big = core.zeros(1).expand(2 ** 40)
    with pytest.raises(RuntimeError, match="not enough memory"):
        core.cat([big, big])
