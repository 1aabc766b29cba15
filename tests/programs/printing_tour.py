"""Printing as tutorials show it: summarised large tensors, scientific notation, dtypes, printoptions,
module reprs with nested containers, named_parameters, and a @torch.no_grad() decorated function."""
import torch
import torch.nn as nn

torch.manual_seed(9)
print(torch.randn(200, 50))
print(torch.rand(3) * 1e6, torch.rand(2) * 1e-6)
print(torch.tensor([1e10, 1.0, -3.5]), torch.tensor([True, False]), torch.tensor(3.25, dtype=torch.float64))
print(torch.arange(10, dtype=torch.int16), torch.randn(2, 2).half())
torch.set_printoptions(precision=2)
print(torch.randn(3, 3))
torch.set_printoptions(profile="default")
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0]))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
        self.heads = nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.Sequential(nn.Tanh(), nn.Linear(3, 2))})
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x).relu()
        return self.heads["a"](x) * self.scale


block = Block()
print(block)
for name, p in block.named_parameters():
    print(name, tuple(p.shape), p.requires_grad)
print(block.layers[0].weight)


@torch.no_grad()
def evaluate(model, x):
    return model(x)


r = evaluate(block, torch.randn(4, 3))
print(r, r.requires_grad)
print(block(torch.randn(2, 3)))
print(torch.__version__.split(".")[0], torch.is_tensor(r), r.dtype, r.device, r.size(), r.shape[0])
