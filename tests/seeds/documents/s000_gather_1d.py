import torch

# 基本用法
input_tensor = torch.tensor([10, 20, 30, 40, 50])
index_tensor = torch.tensor([0, 2, 4, 1])
result = torch.gather(input_tensor, dim=0, index=index_tensor)
print(result)  # tensor([10, 30, 50, 20])

# 使用tensor.gather方法
result2 = input_tensor.gather(0, index_tensor)
print(result2)  # tensor([10, 30, 50, 20])
