"""torch.autograd.functional on small functions."""
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp


def f(x):
    return torch.stack([x[0] * x[1], x[1].sin(), x.pow(2).sum()])


def energy(x):
    return (x ** 4).sum() - (x[0] * x[1])


x = torch.tensor([0.5, -1.0], dtype=torch.float64)
print(jacobian(f, x))
print(hessian(energy, x))
print(vjp(f, x, torch.ones(3, dtype=torch.float64))[1])
print(jvp(f, x, torch.tensor([1.0, 0.0], dtype=torch.float64))[1])
print(hvp(energy, x, torch.tensor([0.0, 1.0], dtype=torch.float64))[1])
