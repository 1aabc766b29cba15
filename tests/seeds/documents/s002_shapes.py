import numpy as np
import torch

a = [
      [
          3,4,6
      ]
     ]
#注：a 是个列表。
a_nparray = np.array(a)
print('a变成np矩阵后a_nparray:',a_nparray)
print('a变成np矩阵后a_nparray的形状:',a_nparray.shape)
print('形状为 (1, 3) 的意义就是：①有几个项就表示几个维度，这里有 1,3 两个项，因此a_nparray是二维矩阵；'
      '②每一项的值表示这一维有几个元素。')

print('')

a_torchtensor = torch.from_numpy(a_nparray)
print('a转化为torch.Tensor之后：',a_torchtensor)
print('a转化为torch.Tensor之后的形状：',a_torchtensor.shape)
print('torch.Size([1, 3]) 就表示:①有几个项就表示几个维度，这里有 1,3 两个项，因此a_nparray是二维矩阵；'
      '②每一项的值表示这一维有几个元素。')
