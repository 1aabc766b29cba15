"""A DataLoader over a TensorDataset, iterated for two epochs without shuffling."""
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

features = torch.arange(20, dtype=torch.float32).reshape(10, 2)
labels = torch.arange(10) % 3
ds = TensorDataset(features, labels)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4)
print(len(loader))
for epoch in range(2):
    for i, (xb, yb) in enumerate(loader):
        print(epoch, i, xb.shape, yb.tolist(), xb.sum().item())


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"item{i}"}


for batch in DataLoader(Squares(), batch_size=2, drop_last=True):
    print(batch)
train, val = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
print(len(train), len(val))
