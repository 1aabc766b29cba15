# seed 002: broadcasting multiply with view/expand_as
import torch

input = torch.Tensor([[1, 2],
                      [1, 2]])
print('input_shape: ', input.shape)
yaw = torch.Tensor([[10], [20]])
print('yaw_shape: ', yaw.shape)
yaw = yaw.view(yaw.size(0), 1)
print('after yaw_view:', yaw)
print('after yaw_view shape:', yaw.shape)
yaw = yaw.expand_as(input)
print('after yaw_view_expand:', yaw)
print('after yaw_view_expand shape:', yaw.shape)
output = input * yaw
print('output:', output)
print('output.shape', output.shape)
