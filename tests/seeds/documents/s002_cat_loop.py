import torch

tensor_list = torch.zeros([0, 3])  # 设置一个 batch_size 为0维的 0元素tensor
value = torch.FloatTensor([[1,2,3],[4,5,6]])
for iiii in range(10):
    tensor_list = torch.cat([tensor_list, value], dim=0)
print(tensor_list)
print(tensor_list.shape)
