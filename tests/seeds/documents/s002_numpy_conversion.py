# seed 002: tensor<->array snippets one after another (`import torch`, `import numpy as np` added)
import torch
import numpy as np
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
x = x.numpy()
print(x)
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
x = x.numpy()

x = torch.from_numpy(x)

print(x)
# 将Variable张量转化为numpy
x = torch.autograd.Variable(torch.FloatTensor(8,100,1,1))
x = x.data.numpy()
# 将numpy转化为Variable张量
x = np.array([8, 3, 64, 64])
x = torch.from_numpy(x)
x = torch.autograd.Variable(x)
