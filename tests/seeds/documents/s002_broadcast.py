import torch

input = torch.Tensor([[1,2],
                      [1,2]]) # size:[2,2]
print('input_shape: ', input.shape)

yaw = torch.Tensor( [ [10], [20] ] ) # size:[2, 1]
print('yaw_shape: ', yaw.shape)

yaw = yaw.view(yaw.size(0),1) # yaw 的shape为：[256, 1]
print('after yaw_view:', yaw)
print('after yaw_view shape:', yaw.shape)
yaw = yaw.expand_as(input)
print('after yaw_view_expand:', yaw)
print('after yaw_view_expand shape:', yaw.shape)

# output= yaw * input
output= input * yaw # tensor 对应维度的 对应位置元素 相乘。

print('output:', output)
print('output.shape', output.shape)
