# seed 000: the decorator and context-manager snippets one after another (`import torch` added);
# they define functions and run nothing else, as in the document
import torch
@torch.no_grad()
def evaluate_model(model, test_loader):
    model.eval()  # 设置模型为评估模式，改回训练模式可以调用 model.train()
    total_loss = 0
    for data, target in test_loader:
        output = model(data)
        loss = loss_function(output, target)
        total_loss += loss.item()
    return total_loss
@torch.no_grad()
def update_weights(model):
    for param in model.parameters():
        param.add_(1.0)  # 在参数上加 1，不会记录到计算图中
@torch.no_grad()
def compute_accuracy(model, data_loader):
    correct = 0
    total = 0
    for inputs, labels in data_loader:
        outputs = model(inputs)
        _, predicted = torch.max(outputs, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
    return correct / total
@torch.no_grad()
def inference(model, input_data):
    return model(input_data)
def inference(model, input_data):
    with torch.no_grad():
        return model(input_data)
@torch.inference_mode()
def evaluate_model(model, test_loader):
    model.eval()
    ...
