import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Linear(10, 5),
    nn.ReLU(),
    nn.Linear(5, 2)
)

# Переключиться в режим оценки
model.eval()

# Подготовка тестовых данных
test_input = torch.randn(5, 10)

# Отключить градиенты во время оценки
with torch.no_grad():
    predictions = model(test_input)
    print("Размер результата предсказания:", predictions.shape)
