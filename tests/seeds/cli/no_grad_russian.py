# seed 003: torch.no_grad examples 1-4 (random model values: shapes and flags printed)
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print("Внутри no_grad:", y.requires_grad)
z = x * 2
print("Вне no_grad:", z.requires_grad)

model = nn.Linear(10, 2)
x = torch.randn(1, 10)
with torch.no_grad():
    output = model(x)
    print("Вывод:", output.shape, output.requires_grad)

model = nn.Sequential(
    nn.Linear(10, 5),
    nn.ReLU(),
    nn.Linear(5, 2)
)
model.eval()
test_input = torch.randn(5, 10)
with torch.no_grad():
    predictions = model(test_input)
    print("Размер результата предсказания:", predictions.shape)

model = nn.Linear(1000, 1000)
inputs = [torch.randn(100, 1000) for _ in range(6)]
print("Без no_grad:")
for inp in inputs[:5]:
    _ = model(inp)
print(_.requires_grad, _.grad_fn.name())
print("С no_grad:")
with torch.no_grad():
    for inp in inputs[:5]:
        _ = model(inp)
print(_.requires_grad, _.grad_fn)
print(torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
with torch.no_grad():
    with torch.enable_grad():
        print(torch.is_grad_enabled())
