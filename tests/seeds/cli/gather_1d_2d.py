# seed 000: torch.gather 1-D and 2-D examples
import torch

input_tensor = torch.tensor([10, 20, 30, 40, 50])
index_tensor = torch.tensor([0, 2, 4, 1])
result = torch.gather(input_tensor, dim=0, index=index_tensor)
print(result)  # tensor([10, 30, 50, 20])
result2 = input_tensor.gather(0, index_tensor)
print(result2)

input_2d = torch.tensor([[1, 2, 3],
                        [4, 5, 6],
                        [7, 8, 9]])
index_2d = torch.tensor([[0, 1, 2],
                        [2, 0, 1]])
result_dim0 = torch.gather(input_2d, dim=0, index=index_2d)
print("dim=0 结果:")
print(result_dim0)
index_2d_col = torch.tensor([[0, 2],
                            [1, 0],
                            [2, 1]])
result_dim1 = torch.gather(input_2d, dim=1, index=index_2d_col)
print("dim=1 结果:")
print(result_dim1)
out = torch.empty(0, dtype=torch.int64)
ret = torch.gather(input_2d, 1, index_2d_col, out=out)
print(ret is out, out)
