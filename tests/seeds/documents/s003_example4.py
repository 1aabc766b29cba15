import torch
import torch.nn as nn

model = nn.Linear(1000, 1000)

# Создать большой объем входных данных
inputs = [torch.randn(100, 1000) for _ in range(100)]

# Без no_grad (история градиентов будет записана)
print("Без no_grad:")
for inp in inputs[:5]:
    _ = model(inp)

# Используйте no_grad (не записывает историю градиентов)
print("С no_grad:")
with torch.no_grad():
    for inp in inputs[:5]:
        _ = model(inp)
