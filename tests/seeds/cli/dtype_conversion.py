# seed 002: dtype conversions, type() and type_as()
import torch

t = torch.tensor([1.7, -2.2, 3.0])
print(t.long(), t.int(), t.double(), t.bool(), t.half())
print(t.type(), t.long().type(), t.type(torch.IntTensor) if hasattr(torch, "IntTensor") else None)
print(t.type(torch.int64), t.to(torch.float64), t.type_as(torch.tensor([1])))
i = torch.tensor([1, 2, 3])
print(i / 2, i * 1.5, (i + 0.5).dtype, (i / i).dtype, (i // 2))
print(torch.tensor([True, False]) + 1, torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(3))
