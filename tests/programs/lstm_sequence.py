"""An LSTM sequence model (batch_first) predicting the next value of noisy sine waves."""
import torch
import torch.nn as nn

torch.manual_seed(1)


class SeqModel(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1, :])


t = torch.linspace(0, 6.28, 21)
series = torch.sin(t).repeat(4, 1) + 0.05 * torch.randn(4, 21)
x, y = series[:, :-1].unsqueeze(-1), series[:, -1:]
model = SeqModel()
print(model)
print([tuple(p.shape) for p in model.parameters()])
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(8):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {loss.item():.5f}")
out, (h, c) = model.lstm(x)
print(out.shape, h.shape, c.shape)
