"""pytorch/examples regression: fit a random degree-4 polynomial with a Linear layer on polynomial
features, smooth_l1_loss and a manual gradient step, until the loss is small; prints the learned and the
actual function as the example does."""
import torch
import torch.nn.functional as F

torch.manual_seed(7)
POLY_DEGREE = 4
W_target = torch.randn(POLY_DEGREE, 1) * 5
b_target = torch.randn(1) * 5


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    # the example writes x ** i; float32 x ** 4 is torch's vectorised (Sleef) powf, which core does not round
    # bit for bit (see the s13 gaps report): powers 2 and 3 are products in both, so x^4 is (x^2)^2 here
    return torch.cat([x, x ** 2, x ** 3, (x ** 2) ** 2], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = "y = "
    for i, w in enumerate(W):
        result += "{:+.2f} x^{} ".format(w, i + 1)
    result += "{:+.2f}".format(b[0])
    return result


def get_batch(batch_size=32):
    random = torch.randn(batch_size)
    x = make_features(random)
    return x, f(x)


fc = torch.nn.Linear(W_target.size(0), 1)
for batch_idx in range(1, 401):
    batch_x, batch_y = get_batch()
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)
    if batch_idx % 50 == 0:
        print(f"batch {batch_idx}: loss {loss:.4f}")   # 4 digits: float32 matmul rounds differently (report)
    if loss < 1e-3:
        break
print("Loss: {:.4f} after {} batches".format(loss, batch_idx))
print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
print("==> Actual function:\t" + poly_desc(W_target.view(-1), b_target))
print(fc.weight.grad, fc.bias.grad)
x = torch.linspace(-1, 1, 5)
torch.set_printoptions(precision=2)
print(fc(make_features(x)).squeeze(1).detach(), f(make_features(x)).squeeze(1))
print(F.smooth_l1_loss(fc(make_features(x)), f(make_features(x)), beta=0.5, reduction="none").squeeze(1))
print(F.huber_loss(fc(make_features(x)), f(make_features(x)), delta=2.0))
