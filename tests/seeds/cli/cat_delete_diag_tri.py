# seed 002: cat in a loop, deleting rows, batched diagonal via as_strided, triangular matrices
import torch

tensor_list = torch.zeros([0, 3])
value = torch.FloatTensor([[1, 2, 3], [4, 5, 6]])
for iiii in range(10):
    tensor_list = torch.cat([tensor_list, value], dim=0)
print(tensor_list)
print(tensor_list.shape)

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

from torch.autograd import Variable
mat = Variable(torch.arange(12, dtype=torch.float32).view(3, 4))
res = Variable(torch.zeros(3, 4, 4))
res.as_strided(mat.size(), [res.stride(0), res.size(2) + 1]).copy_(mat)
print(res)


def to_triu_matrix(vector, size=3):
    assert sum(list(range(size+1)))==vector.shape[-1]
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
