"""The indexing examples of the seed documents (/work/shared/seeds/000_*.txt: gather; 002_*.txt: one-hot
with scatter_, index_select, LongTensor-matrix indexing, masked_select, scatter_, index_put, assignment
with zip, deleting rows by an index list, triangular matrices, caching features with bank[targets] = ...),
run with `torch` bound to core and to real torch: the printed output must be identical."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import core


def printed(fn, lib):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(lib)
    return buf.getvalue()


def same_output(torch_mod, fn):
    got, want = printed(fn, core), printed(fn, torch_mod)
    assert got == want
    return got


def seed_gather_1d(torch):
    input_tensor = torch.tensor([10, 20, 30, 40, 50])
    index_tensor = torch.tensor([0, 2, 4, 1])
    result = torch.gather(input_tensor, dim=0, index=index_tensor)
    print(result)
    result2 = input_tensor.gather(0, index_tensor)
    print(result2)


def seed_gather_2d(torch):
    input_2d = torch.tensor([[1, 2, 3],
                             [4, 5, 6],
                             [7, 8, 9]])
    index_2d = torch.tensor([[0, 1, 2],
                             [2, 0, 1]])
    result_dim0 = torch.gather(input_2d, dim=0, index=index_2d)
    print("dim=0 结果:")
    print(result_dim0)
    index_2d_col = torch.tensor([[0, 2],
                                 [1, 0],
                                 [2, 1]])
    result_dim1 = torch.gather(input_2d, dim=1, index=index_2d_col)
    print("dim=1 结果:")
    print(result_dim1)


def seed_gather_argmax_and_labels(torch):
    scores = torch.tensor([[0.1, 0.8, 0.3],
                           [0.6, 0.2, 0.9],
                           [0.4, 0.7, 0.1]])
    max_indices = torch.argmax(scores, dim=1, keepdim=True)
    print("最大值索引:", max_indices)
    max_values = torch.gather(scores, dim=1, index=max_indices)
    print("最大值:", max_values)
    predictions = torch.tensor([[0.2, 0.3, 0.5],
                                [0.1, 0.8, 0.1],
                                [0.6, 0.2, 0.2]])
    labels = torch.tensor([2, 1, 0])
    label_probs = torch.gather(predictions, dim=1, index=labels.unsqueeze(1))
    print("标签概率:", label_probs)


def seed_gather_out_is_same_object(torch):
    x = torch.tensor([[1., 2.], [3., 4.]])
    out = torch.empty(0)
    r = torch.gather(x, 1, torch.tensor([[1], [0]]), out=out)
    print(r is out, out)
    r = torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]), out=out)
    print(r is out, out)


def seed_gather_backward(torch):
    x = torch.tensor([[0.1, 0.8, 0.3], [0.6, 0.2, 0.9]], requires_grad=True)
    y = torch.gather(x, 1, torch.tensor([[1, 1], [2, 0]]))
    print(y)
    y.sum().backward()
    print(x.grad)


def seed_onehot_scatter_method1(torch):
    b = 6
    batch_size = 1
    nb_digits = 10
    labels_onehot = torch.FloatTensor(batch_size, nb_digits)
    labels = np.array([b])
    print('labels_numpy:', labels)
    labels = torch.from_numpy(labels)
    labels = labels.long()
    labels = labels.view(1, -1)
    print('labels_torchTensor_shape:', labels.shape)
    print('labels_torchTensor_value:', labels)
    labels_onehot.zero_()
    labels_onehot.scatter_(1, labels, 1)
    print('labels_One-shot:', labels_onehot)
    print('labels_One-shot_shape:', labels_onehot.shape)
    print('labels_One-shot_tensortype:', labels_onehot.type())


def seed_onehot_scatter_method2(torch):
    log_probs = torch.FloatTensor(torch.ones([4, 10]))
    targets = torch.FloatTensor([1, 2, 3, 4])
    targets = targets.long()
    unsquee_targets = targets.unsqueeze(1).data.cpu()
    print(unsquee_targets)
    targets = torch.zeros(log_probs.size()).scatter_(1, unsquee_targets, 1)
    print(targets)


def seed_onehot_scatter_128x702(torch):
    pred = torch.ones(128, 702)
    log_probs = pred - pred.exp().sum(1, keepdim=True).log()
    targets = torch.zeros(128) + 0.5
    targets = targets.long()
    print(pred.shape)
    print(log_probs.shape)
    print(targets.shape)
    zeros = torch.zeros(log_probs.size())
    targets_uns = targets.unsqueeze(1).data.cpu()
    print(targets_uns.shape)
    targets = zeros.scatter_(1, targets_uns, 1)
    print(targets.shape, targets.sum(), targets[:2, :3])


def seed_index_select(torch):
    x = torch.linspace(1, 12, steps=12).view(3, 4)
    print(x)
    indices = torch.LongTensor([0, 2])
    y = torch.index_select(x, 0, indices)
    print(y)
    z = torch.index_select(x, 1, indices)
    print(z)
    z = torch.index_select(y, 1, indices)
    print(z)


def seed_index_with_long_matrix(torch):
    a = torch.FloatTensor([11, 22, 33, 44])
    index_mat = torch.LongTensor(list(range(4))).repeat(4, 1)
    print(a[index_mat])


def seed_masked_select(torch):
    x = torch.tensor([[0.3552, -2.3825, -0.8297, 0.3477],
                      [-1.2035, 1.2252, 0.5002, 0.6248],
                      [0.1307, -2.0608, 0.1244, 2.0139]])
    mask = x.ge(0.5)
    print(mask)
    print(torch.masked_select(x, mask))


def seed_scatter_into_zeros(torch):
    x = torch.tensor([[0.2763, 0.7619, 0.8786],
                      [0.1385, 0.4976, 0.7380]])
    print(x)
    index = torch.LongTensor([[0, 1, 2],
                              [2, 0, 0]])
    zeros = torch.zeros(3, 4)
    zeros.scatter_(0, index, x)
    print(zeros)


def seed_index_put(torch):
    a = torch.zeros([2, 3, 3])
    index = [torch.LongTensor([0, 1]), torch.LongTensor([0, 0]), torch.LongTensor([0, 1])]
    a = torch.index_put(a, index, torch.Tensor([1, 5]))
    print(a)


def seed_zip_assignment(torch):
    ori_tensor = torch.zeros(4, 3)
    print("Origin Tensor:\n", ori_tensor)
    coordinate = [(0, 0), (1, 1), (2, 0), (3, 1)]
    row, col = zip(*coordinate)
    ori_tensor[row, col] = 1
    print("\nFilled wi Value 1:\n", ori_tensor)


def seed_delete_rows(torch):
    feature = torch.FloatTensor([[1, 2, 3],
                                 [4, 5, 6],
                                 [7, 8, 9],
                                 [10, 11, 12],
                                 [13, 14, 15]])
    index_list = list(torch.arange(feature.shape[0]))
    remove_index_list = [1, 3]
    for ii_remove in remove_index_list:
        index_list[ii_remove] = -6.6
    while -6.6 in index_list:
        index_list.remove(-6.6)
    removed_index_list = torch.LongTensor(index_list)
    feature_ = feature[removed_index_list]
    print(feature_)


def seed_triangular(torch):
    def to_triu_matrix(vector, size=3):
        assert sum(list(range(size + 1))) == vector.shape[-1]
        zeros_mat = torch.zeros([size, size]).to(vector.device)
        indices = torch.triu_indices(size, size).t()
        tmp = []
        for idx in indices:
            tmp.append(idx)
        row, col = zip(*tmp)
        zeros_mat[row, col] = vector
        return zeros_mat

    def to_tril_matrix(vector, size=3):
        assert sum(list(range(size + 1))) == vector.shape[-1]
        zeros_mat = torch.zeros([size, size]).to(vector.device)
        indices = torch.tril_indices(size, size).t()
        tmp = []
        for idx in indices:
            tmp.append(idx)
        row, col = zip(*tmp)
        zeros_mat[row, col] = vector
        return zeros_mat

    input_vec = torch.FloatTensor([1, 2, 3, 4, 5, 6])
    print('Convert to upper triangular matrix:\n', to_triu_matrix(input_vec, size=3))
    print('\n')
    print('Convert to lower triangular matrix:\n', to_tril_matrix(input_vec, size=3))


def seed_triu_tril_ops(torch):
    m = torch.arange(1., 10.).view(3, 3)
    print(torch.triu(m), m.tril(-1), torch.diag(torch.tensor([1., 2., 3.])), m.diagonal())


def seed_bank_features(torch):
    bank = torch.zeros([10, 5])
    w = torch.ones(5, requires_grad=True)
    for step in range(3):
        targets = torch.tensor([step, step + 3, 9 - step, step * 2])
        feat = torch.arange(20.).view(4, 5) * w + step
        bank[targets] = feat.detach()
        with torch.no_grad():
            bank[(targets + 1) % 10] = feat
    print(bank, bank.requires_grad)


SEEDS = [seed_gather_1d, seed_gather_2d, seed_gather_argmax_and_labels, seed_gather_out_is_same_object,
         seed_gather_backward, seed_onehot_scatter_method1, seed_onehot_scatter_method2, seed_onehot_scatter_128x702,
         seed_index_select, seed_index_with_long_matrix, seed_masked_select, seed_scatter_into_zeros, seed_index_put,
         seed_zip_assignment, seed_delete_rows, seed_triangular, seed_triu_tril_ops, seed_bank_features]


@pytest.mark.parametrize("fn", SEEDS, ids=[f.__name__ for f in SEEDS])
def test_seed_example_prints_what_torch_prints(torch, fn):
    assert same_output(torch, fn)


def test_seed_gather_1d_values_without_torch():
    # the expected text is from the seed document itself
    assert printed(seed_gather_1d, core) == "tensor([10, 30, 50, 20])\ntensor([10, 30, 50, 20])\n"


def test_seed_zip_assignment_values_without_torch():
    t = core.zeros(4, 3)
    row, col = zip(*[(0, 0), (1, 1), (2, 0), (3, 1)])
    t[row, col] = 1
    assert t.tolist() == [[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 1, 0]]
