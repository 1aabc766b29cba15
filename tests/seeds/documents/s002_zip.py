import torch

ori_tensor = torch.zeros(4, 3)
print("Origin Tensor:\n",ori_tensor)

coordinate = [(0,0),(1,1),(2,0),(3,1)]
row,col = zip(*coordinate)
ori_tensor[row,col] = 1
print("\nFilled wi Value 1:\n",ori_tensor)
