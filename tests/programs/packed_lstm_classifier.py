"""A padded-batch LSTM sentiment-style classifier on random token ids: pad_sequence, pack_padded_sequence
with enforce_sorted=False, a bidirectional LSTM on the PackedSequence, its final hidden states, and
pad_packed_sequence for a mean-pooled view (the pattern of NLP tutorials)."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
VOCAB, PAD = 30, 0


class Classifier(nn.Module):
    def __init__(self, vocab, emb=8, hidden=6, classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=PAD)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, bidirectional=True, batch_first=True, dropout=0.2)
        self.fc = nn.Linear(4 * hidden, classes)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embedding(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.lstm(packed)
        padded, out_lengths = pad_packed_sequence(out, batch_first=True)
        pooled = padded.sum(1) / out_lengths.unsqueeze(1).float()
        last = torch.cat([h[-2], h[-1]], dim=1)
        return self.fc(torch.cat([last, pooled], dim=1))


lengths = torch.randint(2, 9, (6,))
seqs = [torch.randint(1, VOCAB, (int(n),)) for n in lengths]
tokens = pad_sequence(seqs, batch_first=True, padding_value=PAD)
labels = torch.randint(0, 3, (6,))
print(tokens)
print("lengths", lengths.tolist(), "labels", labels.tolist())

model = Classifier(VOCAB)
print(model)
packed = pack_padded_sequence(model.embedding(tokens), lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, tuple(packed.data.shape))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for step in range(6):
    model.train()
    opt.zero_grad()
    loss = loss_fn(model(tokens, lengths), labels)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    logits = model(tokens, lengths)
    out, (h, c) = model.lstm(pack_padded_sequence(model.embedding(tokens), lengths, batch_first=True,
                                                  enforce_sorted=False))
print("predictions", logits.argmax(1).tolist(), "accuracy", (logits.argmax(1) == labels).float().mean().item())
print(torch.round(torch.softmax(logits, 1), decimals=3))
print(type(out).__name__, tuple(out.data.shape), tuple(h.shape), tuple(c.shape))
print(torch.round(h[-1], decimals=3))
