import torch

a = torch.FloatTensor([11,22,33,44])
index_mat = torch.LongTensor(list(range(4))).repeat(4,1)
print(a[index_mat])
