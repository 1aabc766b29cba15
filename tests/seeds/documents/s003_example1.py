import torch

# Создайте тензор, требующий вычисления градиентов
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# Выполните вычисления внутри контекста no_grad
with torch.no_grad():
    y = x * 2
    print("Внутри no_grad:", y.requires_grad)

# Вне no_grad
z = x * 2
print("Вне no_grad:", z.requires_grad)
