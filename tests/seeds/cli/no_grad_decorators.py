# seed 000: no_grad as decorator and context manager, inference_mode; model/loader made concrete
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]]))
    model.bias.copy_(torch.tensor([0.1, -0.2]))
test_loader = [(torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[0.0, 1.0]])),
               (torch.tensor([[0.5, 0.5, 0.5]]), torch.tensor([[1.0, 0.0]]))]
loss_function = nn.MSELoss()


@torch.no_grad()
def evaluate_model(model, test_loader):
    model.eval()
    total_loss = 0
    for data, target in test_loader:
        output = model(data)
        loss = loss_function(output, target)
        total_loss += loss.item()
    return total_loss


print(round(evaluate_model(model, test_loader), 4), model.training)


@torch.no_grad()
def update_weights(model):
    for param in model.parameters():
        param.add_(1.0)


update_weights(model)
print(model.weight, model.bias)


@torch.no_grad()
def inference(model, input_data):
    return model(input_data)


out = inference(model, torch.tensor([[1.0, 1.0, 1.0]]))
print(out, out.requires_grad)


def inference2(model, input_data):
    with torch.no_grad():
        return model(input_data)


print(inference2(model, torch.tensor([[1.0, 1.0, 1.0]])).requires_grad)


@torch.inference_mode()
def evaluate_inference(model, x):
    model.eval()
    return model(x)


r = evaluate_inference(model, torch.tensor([[2.0, 0.0, 1.0]]))
print(r, r.is_inference(), r.requires_grad)
