import torch

####################
###   Function   ###
####################
def to_triu_matrix(vector, size=3):
    assert sum(list(range(size+1)))==vector.shape[-1], 'The length of input vector is {}, which is not equal to the sum of [range(size+1)={}]'.format(vector.shape[-1], sum(list(range(size+1))))

    zeros_mat = torch.zeros([size, size]).to(vector.device)
    # print(zeros_mat.type())

    indices   = torch.triu_indices(size,size).t()
    tmp = []
    for idx in indices:
        tmp.append(idx)
    row, col = zip(*tmp)

    zeros_mat[row, col] = vector

    return zeros_mat

def to_tril_matrix(vector, size=3):
    assert sum(list(range(size + 1))) == vector.shape[-1], 'The length of input vector is {}, which is not equal to the sum of [range(size+1)={}]'.format(vector.shape[-1], sum(list(range(size + 1))))

    zeros_mat = torch.zeros([size, size]).to(vector.device)
    # print(zeros_mat.type())

    indices   = torch.tril_indices(size,size).t()
    tmp = []
    for idx in indices:
        tmp.append(idx)
    row, col = zip(*tmp)

    zeros_mat[row, col] = vector

    return zeros_mat

################
###   Main   ###
################
input_vec = torch.FloatTensor([1,2,3,4,5,6])

print('Convert to upper triangular matrix:\n',to_triu_matrix(input_vec, size=3))
print('\n')
print('Convert to lower triangular matrix:\n',to_tril_matrix(input_vec, size=3))
