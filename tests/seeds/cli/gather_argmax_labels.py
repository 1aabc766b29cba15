# seed 000: argmax + gather, label probabilities
import torch

scores = torch.tensor([[0.1, 0.8, 0.3],
                    [0.6, 0.2, 0.9],
                    [0.4, 0.7, 0.1]])
max_indices = torch.argmax(scores, dim=1, keepdim=True)
print("最大值索引:", max_indices)
max_values = torch.gather(scores, dim=1, index=max_indices)
print("最大值:", max_values)

predictions = torch.tensor([[0.2, 0.3, 0.5],
                        [0.1, 0.8, 0.1],
                        [0.6, 0.2, 0.2]])
labels = torch.tensor([2, 1, 0])
label_probs = torch.gather(predictions, dim=1, index=labels.unsqueeze(1))
print("标签概率:", label_probs)
