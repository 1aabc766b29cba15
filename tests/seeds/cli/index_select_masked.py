# seed 002: index_select, indexing with a LongTensor matrix, masked_select (fixed values for randn)
import torch

x = torch.linspace(1, 12, steps=12).view(3, 4)
print(x)
indices = torch.LongTensor([0, 2])
y = torch.index_select(x, 0, indices)
print(y)
z = torch.index_select(x, 1, indices)
print(z)
z = torch.index_select(y, 1, indices)
print(z)

a = torch.FloatTensor([11, 22, 33, 44])
index_mat = torch.LongTensor(list(range(4))).repeat(4, 1)
print(a[index_mat])

x = torch.tensor([[0.3552, -2.3825, -0.8297, 0.3477],
                  [-1.2035, 1.2252, 0.5002, 0.6248],
                  [0.1307, -2.0608, 0.1244, 2.0139]])
mask = x.ge(0.5)
print(mask)
print(torch.masked_select(x, mask))
