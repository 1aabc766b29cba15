# seed 002: one-hot with scatter_ (method 1 with a fixed label, method 2)
import numpy as np
import torch

batch_size = 1
nb_digits = 10
b = 6
labels_onehot = torch.FloatTensor(batch_size, nb_digits)
labels = np.array([b])
labels = torch.from_numpy(labels)
labels = labels.long()
labels = labels.view(1, -1)
print('labels_torchTensor_shape:', labels.shape)
print('labels_torchTensor_value:', labels)
labels_onehot.zero_()
labels_onehot.scatter_(1, labels, 1)
print('labels_One-shot:', labels_onehot)
print('labels_One-shot_shape:', labels_onehot.shape)
print('labels_One-shot_tensortype:', labels_onehot.type())

log_probs = torch.FloatTensor(torch.rand([4, 10]))
targets = torch.FloatTensor([1, 2, 3, 4])
targets = targets.long()
unsquee_targets = targets.unsqueeze(1).data.cpu()
print(unsquee_targets)
targets = torch.zeros(log_probs.size()).scatter_(1, unsquee_targets, 1)
print(targets)
