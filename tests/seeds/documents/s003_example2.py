import torch
import torch.nn as nn

# Определим простую модель
model = nn.Linear(10, 2)

# Создайте входные данные
x = torch.randn(1, 10)

# Используйте no_grad во время инференса
with torch.no_grad():
    output = model(x)
    print("Вывод:", output)
    # Вычисление градиента не требуется

# Или используйте декоратор
# @torch.no_grad()
# def predict(x):
# return model(x)
