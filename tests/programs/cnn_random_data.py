"""A small CNN (Conv2d, MaxPool2d, Flatten) trained on random images for a few steps."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


net = Net()
print(net)
print(sum(p.numel() for p in net.parameters()))
images = torch.randn(6, 1, 12, 12)
labels = torch.randint(0, 3, (6,))
print(labels)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    optimizer.zero_grad()
    out = net(images)
    loss = criterion(out, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
with torch.no_grad():
    pred = net(images).argmax(dim=1)
print(pred, (pred == labels).float().mean())
print(net.conv1.weight.shape, net.conv1.bias.grad.shape)
