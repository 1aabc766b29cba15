"""A tiny nn.Transformer seq2seq model learning to reverse digit sequences, tutorial style: embeddings, a sine
positional encoding buffer, generate_square_subsequent_mask as the target mask, padding masks, a few Adam
steps with dropout printing losses, then greedy decoding in eval mode printing token ids."""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
PAD, BOS, EOS, VOCAB = 0, 1, 2, 10


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=32):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[:x.size(0)])


class Seq2Seq(nn.Module):
    def __init__(self, d_model=16, nhead=2, layers=2, ff=32, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.src_emb = nn.Embedding(VOCAB, d_model)
        self.tgt_emb = nn.Embedding(VOCAB, d_model)
        self.pos = PositionalEncoding(d_model, dropout)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout)
        self.out = nn.Linear(d_model, VOCAB)

    def embed(self, emb, tokens):
        return self.pos(emb(tokens) * math.sqrt(self.d_model))

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(0))
        h = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt), tgt_mask=tgt_mask,
                             src_key_padding_mask=(src == PAD).T, tgt_key_padding_mask=(tgt == PAD).T,
                             memory_key_padding_mask=(src == PAD).T)
        return self.out(h)


def batch(n=6, length=5):
    """Sequences of digits 3..9 (seq-first), padded at the end of some; targets reversed with BOS/EOS."""
    src = torch.randint(3, VOCAB, (length, n))
    lengths = torch.randint(3, length + 1, (n,))
    tgt = torch.full((length + 2, n), PAD)
    tgt[0] = BOS
    for j in range(n):
        k = int(lengths[j])
        src[k:, j] = PAD
        tgt[1:k + 1, j] = src[:k, j].flip(0)
        tgt[k + 1, j] = EOS
    return src, tgt


model = Seq2Seq()
print(model.transformer.encoder.layers[0])
print(sum(p.numel() for p in model.parameters()), list(model.state_dict())[:4])
print(nn.Transformer.generate_square_subsequent_mask(3))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
for step in range(12):
    model.train()
    src, tgt = batch()
    logits = model(src, tgt[:-1])
    loss = loss_fn(logits.reshape(-1, VOCAB), tgt[1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step:2d} loss {loss.item():.4f} grad norm {norm.item():.4f}")

model.eval()
src, _ = batch(n=3)
with torch.no_grad():
    memory = model.transformer.encoder(model.embed(model.src_emb, src), src_key_padding_mask=(src == PAD).T)
    ys = torch.full((1, 3), BOS)
    for _ in range(6):
        mask = nn.Transformer.generate_square_subsequent_mask(ys.size(0))
        h = model.transformer.decoder(model.embed(model.tgt_emb, ys), memory, tgt_mask=mask,
                                      memory_key_padding_mask=(src == PAD).T)
        next_tok = model.out(h[-1]).argmax(-1)
        ys = torch.cat([ys, next_tok.unsqueeze(0)])
print("src", src.T.tolist())
print("greedy", ys.T.tolist())
print(memory.shape, round(memory.abs().mean().item(), 4))
