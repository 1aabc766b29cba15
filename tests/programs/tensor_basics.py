"""Tensor basics as a tutorial shows them: creation, dtypes, shapes, arithmetic, indexing, printing."""
import torch

x = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(x)
print(x.shape, x.dtype, x.dim(), x.numel())
y = torch.ones(2, 3) * 0.5
print(y)
print(x + y)
print((x * 2).float().mean())
print(x[:, 1], x[1], x[x > 2])
z = torch.arange(12).reshape(3, 4)
print(z)
print(z.t().contiguous().view(-1))
print(torch.zeros(2, 2, dtype=torch.float64))
print(torch.linspace(0, 1, 5))
print(torch.cat([x, x], dim=0).shape)
print(torch.stack([x, x]).shape)
print(z.sum(dim=1), z.max(), z.argmax())
a = torch.tensor([1.5, -2.25, 3.0])
print(a.abs(), a.exp(), a.clamp(min=0))
print(a.tolist(), a[0].item())
print(torch.eye(3))
print(x.to(torch.float32) @ torch.ones(3, 2))
