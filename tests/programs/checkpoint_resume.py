"""The tutorial checkpoint recipe: train, torch.save a checkpoint dict, torch.load it into a fresh model and
optimizer (weights_only=True, the default), resume training; plus a spatial-transformer style affine_grid."""
import io
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout1d(0.0), nn.Linear(8, 2))


X = torch.randn(16, 4)
Y = torch.randint(0, 2, (16,))
model = make()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), Y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.6f}")

path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"epoch": 3, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "loss": loss}, path)
checkpoint = torch.load(path)
print(sorted(checkpoint), checkpoint["epoch"], checkpoint["loss"])

resumed = make()
print(resumed.load_state_dict(checkpoint["model_state_dict"]))
opt2 = torch.optim.Adam(resumed.parameters(), lr=0.01)
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
for epoch in range(3, 5):
    opt2.zero_grad()
    loss = F.cross_entropy(resumed(X), Y)
    loss.backward()
    opt2.step()
    print(f"epoch {epoch}: loss {loss.item():.6f}")

buffer = io.BytesIO()
torch.save(resumed.state_dict(), buffer)
buffer.seek(0)
print({k: tuple(v.shape) for k, v in torch.load(buffer, weights_only=True).items()})

theta = torch.tensor([[[0.9, -0.1, 0.05], [0.1, 1.1, -0.2]]], requires_grad=True)
grid = F.affine_grid(theta, (1, 1, 3, 4), align_corners=False)
print(grid)
grid.pow(2).sum().backward()
print(theta.grad)
print(torch.vander(torch.tensor([1.0, 2.0, 3.0]), N=4))
