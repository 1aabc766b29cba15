# seed 002 snippet without its own import: `import torch` added
import torch
# ———— output: scalar(输出是标量时候)

x = torch.ones(1, requires_grad=True) # x = 1
y = 2 * x ** 2  # y=2*x^2 ,其中 x = 1, y是1维

gradients = torch.tensor([0.1], dtype=torch.float) # [0.1] 表示各个维度上导函数前的权重
y.backward(gradients) # y'= ∂(2*x^2)/∂x = 4x

print(x.grad)  # x在x=1时候的 导数值
