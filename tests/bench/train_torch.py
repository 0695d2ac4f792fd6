#!/usr/bin/python3
"""The training step of tests/bench/trainbench.c in torch: float32, one
thread, the same model (vocab 27, d_model 16, 2 heads, 2 layers, no
feed-forward, learned positions, ctx 14, layernorm with its affine parts,
causal, scaled), batch 64, Adam lr 0.003, cross-entropy of the next token.
The data are random tokens of the same shape (the step's cost does not
depend on them). Prints "ms_per_step X" over STEPS steps after 3 warm-up
steps."""
import math, sys, time
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
V, D, H, L, N, B = 27, 16, 2, 2, 14, 64
g = torch.Generator().manual_seed(3)
P = {"E": torch.randn(V, D, generator=g) * 0.1, "P": torch.randn(N, D, generator=g) * 0.1,
     "WU": torch.randn(D, V, generator=g) * 0.1, "gf": torch.ones(D), "bf": torch.zeros(D)}
for l in range(L):
    for k in ("Wq", "Wk", "Wv", "Wo"):
        P[f"L{l}.{k}"] = torch.randn(D, D, generator=g) * 0.1
    P[f"L{l}.g1"], P[f"L{l}.b1"] = torch.ones(D), torch.zeros(D)
for t in P.values():
    t.requires_grad_(True)
opt = torch.optim.Adam(P.values(), lr=0.003)
tok = torch.randint(1, V, (B, N), generator=g)
tok[:, 0] = 0
mask = torch.tril(torch.ones(N, N, dtype=torch.bool))


def forward(tok):
    h = P["E"][tok] + P["P"]
    for l in range(L):
        a = F.layer_norm(h, (D,), P[f"L{l}.g1"], P[f"L{l}.b1"], 1e-5)
        q, k, v = (a @ P[f"L{l}.{w}"] for w in ("Wq", "Wk", "Wv"))
        q, k, v = (x.view(B, N, H, D // H).transpose(1, 2) for x in (q, k, v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        o = s.masked_fill(~mask, -math.inf).softmax(-1) @ v
        h = h + o.transpose(1, 2).reshape(B, N, D) @ P[f"L{l}.Wo"]
    return F.layer_norm(h, (D,), P["gf"], P["bf"], 1e-5) @ P["WU"]


def step():
    logits = forward(tok)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), tok[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return float(loss)


for _ in range(3):
    step()
t0 = time.perf_counter()
for _ in range(STEPS):
    loss = step()
print(f"ms_per_step {(time.perf_counter() - t0) / STEPS * 1e3:.4f} loss {loss:.6f}")
