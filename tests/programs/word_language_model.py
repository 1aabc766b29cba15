"""pytorch/examples word_language_model: an Embedding -> LSTM -> Linear language model trained on random token
batches (batchify, get_batch, repackage_hidden, gradient clipping, manual SGD update, perplexity)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1111)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.nhid, self.nlayers = nhid, nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt=6):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


ntokens = 50
corpus = torch.randint(0, ntokens, (200,))
train_data, val_data = batchify(corpus[:160], 4), batchify(corpus[160:], 2)
print(train_data.shape, val_data.shape, train_data.dtype, train_data[:2])
model = RNNModel(ntokens, 12, 16, 2, dropout=0.2, tie_weights=False)
criterion = nn.NLLLoss()
print(sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_parameters()][:4])
lr, clip = 5.0, 0.25


def evaluate(data_source):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(2)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, 6):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


for epoch in range(1, 3):
    model.train()
    hidden = model.init_hidden(4)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, 6)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        if batch % 3 == 0:
            print(f"epoch {epoch} batch {batch} loss {loss.item():.4f} ppl {math.exp(loss.item()):8.2f} "
                  f"grad norm {norm.item():.4f}")
    val_loss = evaluate(val_data)
    print(f"end of epoch {epoch} valid loss {val_loss:5.3f} valid ppl {math.exp(val_loss):8.2f}")
    lr /= 4.0
print(model.decoder.bias[:5])
print(hidden[0][:, 0, :4])
model.eval()
with torch.no_grad():
    inp = torch.randint(ntokens, (1, 1))
    hidden = model.init_hidden(1)
    words = []
    for _ in range(8):
        output, hidden = model(inp, hidden)
        word_weights = output.squeeze().div(1.0).exp()
        word_idx = torch.multinomial(word_weights, 1)[0]
        inp.fill_(word_idx)
        words.append(word_idx.item())
print(words)
