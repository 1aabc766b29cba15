# seed 000 snippet without its own import: `import torch` added
import torch
# 场景1: 获取每行的最大值索引对应的值
scores = torch.tensor([[0.1, 0.8, 0.3],
                    [0.6, 0.2, 0.9],
                    [0.4, 0.7, 0.1]])

# 获取每行最大值的索引
max_indices = torch.argmax(scores, dim=1, keepdim=True)
print("最大值索引:", max_indices)  # tensor([[1], [2], [1]])

# 使用gather获取最大值
max_values = torch.gather(scores, dim=1, index=max_indices)
print("最大值:", max_values)  # tensor([[0.8], [0.9], [0.7]])

# 场景2: 根据标签获取对应的预测概率
predictions = torch.tensor([[0.2, 0.3, 0.5],
                        [0.1, 0.8, 0.1],
                        [0.6, 0.2, 0.2]])
labels = torch.tensor([2, 1, 0])  # 真实标签

# 获取每个样本对应标签的预测概率
label_probs = torch.gather(predictions, dim=1, index=labels.unsqueeze(1))
print("标签概率:", label_probs)  # tensor([[0.5], [0.8], [0.6]])
