"""Autograd on a small function: gradients, no_grad, detach, grad accumulation."""
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2 + 3 * x
print(y)
s = y.sum()
s.backward()
print(x.grad)
print(y.grad_fn.name())
print(type(s.grad_fn.next_functions[0][0]).__name__)

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor([0.1, 0.2], requires_grad=True)
inp = torch.tensor([1.0, 2.0])
out = torch.tanh(w @ inp + b).sum()
out.backward()
print(out.item())
print(w.grad)
print(b.grad)

with torch.no_grad():
    z = x * 2
print(z.requires_grad)
print(x.detach().requires_grad)

x.grad.zero_()
(x * x).sum().backward()
(x * x).sum().backward()
print(x.grad)

g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g.sum(), x)
print(g2)
