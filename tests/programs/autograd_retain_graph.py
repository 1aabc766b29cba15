"""Autograd with retain_graph, gradient accumulation, torch.autograd.grad and no_grad."""
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
y = (w * x).sum() ** 2
y.backward(retain_graph=True)
print(w.grad)
y.backward()
print(w.grad)
w.grad.zero_()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
z = (w.exp() * x).sum()
(g,) = torch.autograd.grad(z, w, create_graph=True)
print(g)
g.sum().backward()
print(w.grad)
with torch.no_grad():
    v = w * 2
print(v.requires_grad, w.requires_grad, w.detach().requires_grad)
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a ** 3
b.backward(torch.tensor([1.0, 0.5]))
print(a.grad, type(b.grad_fn).__name__)
print(a.is_leaf, b.is_leaf)
