"""The CUDA-availability boilerplate every script starts with, on a CPU-only machine."""
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using device:", device)
print(torch.cuda.is_available(), torch.cuda.device_count())
torch.backends.cudnn.benchmark = True
print(torch.backends.mps.is_available())
model = nn.Linear(3, 1).to(device)
x = torch.ones(4, 3, device=device)
print(x.device, next(model.parameters()).device)
print(torch.device("cuda:0"), repr(torch.device("cuda", 1)), torch.device("cpu") == x.device)
try:
    x.cuda()
except AssertionError as e:
    print("AssertionError:", e)
try:
    torch.ones(2).to("cuda")
except AssertionError as e:
    print("AssertionError:", e)
torch.cuda.manual_seed_all(0)
print(torch.get_default_device())
print(torch.accelerator.is_available(), torch.accelerator.current_accelerator())
