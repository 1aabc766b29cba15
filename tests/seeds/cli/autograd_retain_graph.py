# seed 002: retain_graph (randn replaced by a fixed tensor so values can be compared)
import torch

x = torch.tensor([[0.5, -1.0, 2.0, 0.25]], dtype=torch.float32, requires_grad=True)
y = x ** 2
z = y * 4
output1 = z.mean()
output2 = z.sum()
output1.backward()
try:
    output2.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

from torch.autograd import Variable
x = torch.tensor([[0.5, -1.0, 2.0, 0.25]], dtype=torch.float32, requires_grad=True)
y = x ** 2
z = y * 4
output1 = z.mean()
output2 = z.sum()
output1.backward(retain_graph=True)
output2.backward()
print(x.grad)
