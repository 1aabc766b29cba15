# seed 002: the IPython session's lines without their In[n]: prompts
import torch
x = torch.randn((1,4),dtype=torch.float32,requires_grad=True)
y = x ** 2
z = y * 4
output1 = z.mean()
output2 = z.sum()
output1.backward()    # 这个代码执行正常，但是执行完中间变量都free了，所以下一个出现了问题
output2.backward()    # 这时会引发错误
