# seed 002: tensor <-> numpy, Variable, scalars and shapes
import numpy as np
import torch

x = torch.tensor([[1, 2, 3], [4, 5, 6]])
x = x.numpy()
print(x)
x = torch.from_numpy(x)
print(x)
x = torch.autograd.Variable(torch.FloatTensor(8, 100, 1, 1))
x = x.data.numpy()
print(x.shape, x.dtype)
x = np.array([8, 3, 64, 64])
x = torch.from_numpy(x)
x = torch.autograd.Variable(x)
print(x)

a = [[3, 4, 6]]
a_nparray = np.array(a)
a_torchtensor = torch.from_numpy(a_nparray)
print('a转化为torch.Tensor之后：', a_torchtensor)
print('a转化为torch.Tensor之后的形状：', a_torchtensor.shape)
a = 1
a_nparray = np.array(a)
a_torchtensor = torch.from_numpy(a_nparray)
print('a转化为torch.Tensor之后：', a_torchtensor)
print('a转化为torch.Tensor之后的形状：', a_torchtensor.shape)
x = torch.tensor([[1], [2], [3]])
print(x.shape)
