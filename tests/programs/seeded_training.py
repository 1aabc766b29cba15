"""Seeded random init and shuffled mini-batches (depends on torch's random numbers)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(32, 3)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(32, 1)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: {total:.4f}")
