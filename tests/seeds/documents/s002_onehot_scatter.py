import torch

log_probs = torch.FloatTensor(torch.rand([4,10]))  # shape: [batch_size, num_class]
targets = torch.FloatTensor([1,2,3,4])  # shape: [batch_size] 
targets = targets.long()

unsquee_targets = targets.unsqueeze(1).data.cpu()  # index which is used to fill '1' into right location in one-hot tensor of target
print(unsquee_targets)
targets = torch.zeros(log_probs.size()).scatter_(1, unsquee_targets, 1)
print(targets)
