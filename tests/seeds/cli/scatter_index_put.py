# seed 002: scatter_ into zeros, index_put, zip assignment (fixed values for rand)
import torch

x = torch.tensor([[0.2763, 0.7619, 0.8786],
                  [0.1385, 0.4976, 0.7380]])
index = torch.LongTensor([[0, 1, 2],
                          [2, 0, 0]])
zeros = torch.zeros(3, 4)
zeros.scatter_(0, index, x)
print(zeros)

a = torch.zeros([2, 3, 3])
index = [torch.LongTensor([0, 1]), torch.LongTensor([0, 0]), torch.LongTensor([0, 1])]
a = torch.index_put(a, index, torch.Tensor([1, 5]))
print(a)

ori_tensor = torch.zeros(4, 3)
print("Origin Tensor:\n", ori_tensor)
coordinate = [(0, 0), (1, 1), (2, 0), (3, 1)]
row, col = zip(*coordinate)
ori_tensor[row, col] = 1
print("\nFilled wi Value 1:\n", ori_tensor)
