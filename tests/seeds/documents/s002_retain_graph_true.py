# seed 002: the IPython session's lines without their In[n]: / ...: prompts
import torch
from torch.autograd import Variable
x = torch.randn((1,4),dtype=torch.float32,requires_grad=True)
y = x ** 2
z = y * 4
output1 = z.mean()
output2 = z.sum()
output1.backward(retain_graph=True)   # 这里参数表明保留backward后的中间参数。
output2.backward()
