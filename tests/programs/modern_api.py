"""The torch.* API around the tensors that modern tutorials and model repos use: matmul precision,
torch.compile, autocast, channels_last, torch.func and torch.testing."""
import torch
import torch.nn as nn
from torch.func import functional_call, grad, jacrev, vmap

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
print("matmul precision:", torch.get_float32_matmul_precision())
print(torch.channels_last, torch.contiguous_format, torch.strided, torch.ones(1).layout)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Net()
compiled = torch.compile(model, backend="eager")   # the default backend compiles C++ for seconds; same output
print(compiled)
print(list(compiled.state_dict().keys()))
x = torch.randn(3, 4)
print(torch.equal(compiled(x), model(x)))


@torch.compile(backend="eager")
def scaled_tanh(v):
    return torch.tanh(v) * 2


print(scaled_tanh(torch.tensor([0.5, -1.0])))

with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
    out = model(x)
    print(out.dtype, torch.is_autocast_enabled("cpu"))
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    print("autocast on:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
print("after:", torch.is_autocast_enabled("cpu"))

scaler = torch.amp.GradScaler("cpu", enabled=False)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(x).pow(2).mean()
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
print("scale:", scaler.get_scale(), scaler.is_enabled())

images = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4)
nhwc = images.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
print(images.is_contiguous(), images.is_contiguous(memory_format=torch.channels_last))
print(nhwc.stride(), nhwc.is_contiguous(), nhwc.is_contiguous(memory_format=torch.channels_last))
print(torch.equal(images, nhwc))

params = {k: v.detach() for k, v in model.named_parameters()}


def loss_fn(p, sample, target):
    pred = functional_call(model, p, (sample.unsqueeze(0),))
    return ((pred - target) ** 2).mean()


targets = torch.randn(3, 2)
per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, targets)
for name, g in per_sample.items():
    print(name, tuple(g.shape), round(g.abs().sum().item(), 4))
print(jacrev(lambda v: v.sin() * v)(torch.tensor([0.0, 1.0, 2.0])))
print(vmap(torch.dot)(torch.ones(2, 3), torch.arange(6.0).reshape(2, 3)))

torch.testing.assert_close(compiled(x), model(x))
try:
    torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]))
except AssertionError as e:
    print(e)
print(torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu", low=-1, high=1))
