"""A tiny nn.Module trained with SGD for a few steps, printing loss.item() (deterministic init)."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Net()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1) / 4)

X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
loss_fn = nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print(model)
for step in range(20):
    opt.zero_grad()
    loss = loss_fn(model(X), Y)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step}: loss {loss.item():.6f}")
print(sum(p.numel() for p in model.parameters()))
with torch.no_grad():
    print(model(X).squeeze(1))
