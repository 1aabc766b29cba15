# seed 002: backward with gradient weights
import torch

x = torch.ones(1, requires_grad=True)
y = 2 * x ** 2
gradients = torch.tensor([0.1], dtype=torch.float)
y.backward(gradients)
print(x.grad)

x = torch.ones(3, requires_grad=True)
y = 2 * x ** 2
gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(gradients)
print(x.grad)
