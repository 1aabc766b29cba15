import torch

# 比如说我们有一个 [batch_size=5, feat_dim=3] 的feature，现在我想删除第2和4个feature
feature = torch.FloatTensor([[1, 2, 3],
                             [4, 5, 6],
                             [7, 8, 9],
                             [10, 11, 12],
                             [13, 14, 15]])
index_list = list(torch.arange(feature.shape[0]))
remove_index_list = [1, 3]
for ii_remove in remove_index_list:
    index_list[ii_remove] = -6.6  # 因为正常index不可能取负的float型数据，所以用来做一个占位符。
while -6.6 in index_list:
    index_list.remove(-6.6)
removed_index_list = torch.LongTensor(index_list)
feature_ = feature[removed_index_list]
print(feature_)
