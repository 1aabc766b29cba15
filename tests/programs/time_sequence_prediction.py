"""pytorch/examples time_sequence_prediction: two stacked LSTMCells and a Linear learn sine waves in double
precision with LBFGS, then predict the future past the inputs."""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(2)
T, L, N = 20, 40, 5
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 12)
        self.lstm2 = nn.LSTMCell(12, 12)
        self.linear = nn.Linear(12, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 12, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 12, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 12, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 12, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


torch.manual_seed(0)
input = torch.from_numpy(data[2:, :-1])
target = torch.from_numpy(data[2:, 1:])
test_input = torch.from_numpy(data[:2, :-1])
test_target = torch.from_numpy(data[:2, 1:])
seq = Sequence()
seq.double()
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=3)
print(input.shape, input.dtype, target[0, :4])
for i in range(3):
    calls = []

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        calls.append(loss.item())
        loss.backward()
        return loss
    optimizer.step(closure)
    print("STEP:", i, "losses:", " ".join(f"{v:.8f}" for v in calls))
    with torch.no_grad():
        future = 10
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", f"{loss.item():.8f}")
        y = pred.detach().numpy()
    print(np.round(y[0, -5:], 6), y.shape)
state = optimizer.state[optimizer._params[0]]
print(sorted(state.keys()), state["func_evals"], state["n_iter"])
print(seq.linear.weight.grad.norm().item() > 0, seq.lstm1.weight_hh.shape)
