"""A DataLoader with shuffle=True over a TensorDataset: the batches come in torch's order."""
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(5)
X = torch.arange(24, dtype=torch.float32).reshape(12, 2)
y = torch.arange(12)
ds = TensorDataset(X, y)
loader = DataLoader(ds, batch_size=5, shuffle=True)
for epoch in range(2):
    for xb, yb in loader:
        print(epoch, yb.tolist(), xb.sum().item())
loader = DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)
print(len(loader), [yb.tolist() for _, yb in loader])
train, val = random_split(ds, [9, 3])
print(len(train), len(val), sorted(val.indices))
g = torch.Generator().manual_seed(2)
print([b[1].tolist() for b in DataLoader(ds, batch_size=6, shuffle=True, generator=g)])
