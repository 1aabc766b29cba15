import torch
import numpy as np

a = 1
print('标量a的值:', a)
a_nparray = np.array(a)
print('a变成np矩阵后的形状:',a_nparray.shape)
print('() 就表示是标量，即0维')

a_torchtensor = torch.from_numpy(a_nparray)
print('a转化为torch.Tensor之后：',a_torchtensor)
print('a转化为torch.Tensor之后的形状：',a_torchtensor.shape)
print('torch.Size([]) 就表示是标量，即0维tensor')
