#!/usr/bin/python3
"""Training (src/core/model_back.c, optim.c) against an independent torch
float64 re-implementation: for many random models, the loss of a batch,
every parameter's gradient at both of two steps (torch autograd) and the
two updates (torch's own optim.SGD and optim.Adam, float64, given the
core's gradient) must agree with the core to 1e-12 (relative above 1).

Drives tests/model_dump with its training keys (optimizer= lr= batch=
length=): it builds a model from the config, draws a fixed batch of
sequences, takes two steps and prints as one JSON line the parameters
before, the first loss, both steps' gradients and the parameters after
each step. torch computes the forward from those parameters its own way
(F.layer_norm, the RMSNorm formula, complex rotations for RoPE,
repeat_interleave for shared K/V heads, F.gelu, F.cross_entropy).
"""
import json, math, random, subprocess, sys
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from model_ref import norm, rope, sinusoidal, visible  # the forward reference's pieces, torch's own way

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/tests/model_dump"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 120
torch.set_default_dtype(torch.float64)


def T(x):
    return torch.tensor(x, dtype=torch.float64)


def forward(c, P, tok):
    n, h, g, dk, dv, eps = len(tok), c["heads"], c["kv_heads"], c["d_k"], c["d_v"], c["eps"]
    x = P["E"][tok]
    if c["positions"] == "learned":
        x = x + P["P"][c["offset"]:c["offset"] + n]
    elif c["positions"] == "sinusoidal":
        x = x + sinusoidal(n, c["d_model"], c["offset"])
    for l in range(1, c["layers"] + 1):
        lo = c["attn"][l - 1]
        a = norm(c["norm"], x, P.get(f"L{l}.g1", [None])[0], P.get(f"L{l}.beta1", [None])[0], eps)
        q = (a @ P[f"L{l}.Wq"]).reshape(n, h, dk).transpose(0, 1)
        k = (a @ P[f"L{l}.Wk"]).reshape(n, g, dk).transpose(0, 1)
        v = (a @ P[f"L{l}.Wv"]).reshape(n, g, dv).transpose(0, 1)
        if c["positions"] == "rope":
            q, k = rope(q, c["offset"], c["rope_base"]), rope(k, c["offset"], c["rope_base"])
        k, v = k.repeat_interleave(h // g, dim=0), v.repeat_interleave(h // g, dim=0)
        s = q @ k.transpose(1, 2)
        if lo["scale"] == "sqrt_dk":
            s = s / math.sqrt(dk)
        s = s.masked_fill(~visible(n, lo["mask"], lo["window"]), -math.inf)
        o = torch.softmax(s / lo["temp"], dim=-1) @ v
        keep = torch.ones(h, 1, 1)
        for (ll, hd) in c["ablate"]:
            if ll == l:
                keep[hd - 1] = 0.0
        o = (o * keep).transpose(0, 1).reshape(n, h * dv)
        x = x + o @ P[f"L{l}.Wo"]
        if c["d_ff"] > 0:
            b = norm(c["norm"], x, P.get(f"L{l}.g2", [None])[0], P.get(f"L{l}.beta2", [None])[0], eps)
            u = b @ P[f"L{l}.W1"] + P[f"L{l}.b1"][0]
            f = F.relu(u) if c["act"] == "relu" else F.gelu(u)
            x = x + (f @ P[f"L{l}.W2"] + P[f"L{l}.b2"][0])
    hf = norm(c["norm"], x, P.get("gf", [None])[0], P.get("betaf", [None])[0], eps)
    logits = hf @ (P["E"].T if c["unembed"] == "tied" else P["WU"])
    return logits / c["sample_temp"]


def batch_loss(c, P, seqs):
    total, count = 0.0, 0
    for s in seqs:
        z = forward(c, P, s)
        total = total + F.cross_entropy(z[:-1], torch.tensor(s[1:]), reduction="sum")
        count += len(s) - 1
    return total / count


worst = {"loss": 0.0, "grad": 0.0, "step": 0.0}


def close(kind, name, got, want, case):
    got, want = T(got), want.detach()
    d = ((got - want).abs() / torch.clamp(want.abs(), min=1.0)).max().item() if want.numel() else 0.0
    worst[kind] = max(worst[kind], d)
    if not d <= 1e-12:
        sys.exit(f"train_ref: case {case}: {name} differs by {d:.3g}")


def check(case, d):
    """The loss and the gradients against autograd at both steps' weights;
    each update against torch.optim given the core's own gradient (Adam
    divides by sqrt(v) + eps: a gradient near 0 would magnify the last
    bits of two correct gradients, so the update is checked on the same one)."""
    c = d["cfg"]
    P = {k: T(v).requires_grad_(True) for k, v in d["params"].items() if k != "n"}
    opt = (torch.optim.SGD(P.values(), lr=d["lr"]) if d["optimizer"] == "sgd"
           else torch.optim.Adam(P.values(), lr=d["lr"]))
    for step in range(2):
        opt.zero_grad()
        loss = batch_loss(c, P, d["seqs"])
        if step == 0:
            close("loss", "loss", d["loss"], loss, case)
        loss.backward()
        for k, t in P.items():
            close("grad", f"d{k} at step {step + 1}", d["grads"][step]["g"][k], t.grad, case)
            t.grad = T(d["grads"][step]["g"][k])
        opt.step()
        for k, t in P.items():
            close("step", f"{k} after step {step + 1}", d["after"][step]["p"][k], t, case)


def random_case(rnd, k):
    layers = rnd.choice([1, 1, 2, 2, 3, 4])
    heads = rnd.choice([1, 2, 2, 4])
    dk = rnd.choice([2, 2, 4])
    pos = rnd.choice(["learned", "learned", "sinusoidal", "rope", "none"])
    nrm = rnd.choice(["none", "layernorm", "rmsnorm"])
    words = [f"layers={layers}", f"heads={heads}", f"d_model={heads * dk}", f"d_k={dk}", f"d_v={dk}",
             f"kv_heads={rnd.choice([g for g in (1, 2, heads) if heads % g == 0])}",
             f"d_ff={rnd.choice([0, 0, 3, 8])}", f"act={rnd.choice(['relu', 'gelu'])}",
             f"norm={nrm}", f"positions={pos}",
             f"unembed={rnd.choice(['separate', 'tied'])}", f"vocab={rnd.choice([3, 5, 9])}", "ctx=10",
             f"offset={rnd.choice([0, 0, 2]) if pos != 'none' else 0}",
             f"mask={rnd.choice(['causal', 'causal', 'none', 'window'])}", f"window={rnd.choice([1, 2, 3])}",
             f"temp={rnd.choice([1, 1, 0.5, 2])}", f"scale={rnd.choice(['sqrt_dk', 'none'])}",
             f"softmax={rnd.choice(['stable', 'naive', 'online'])}",
             f"sample_temp={rnd.choice([1, 1, 0.8])}", f"seed={k + 1}", f"wscale={0.3 if nrm == 'none' else rnd.choice([0.3, 0.8])}",
             f"affine={k + 7}", f"optimizer={rnd.choice(['sgd', 'adam'])}", f"lr={rnd.choice([0.01, 0.1])}",
             f"batch={rnd.choice([1, 2, 3])}", f"length={rnd.choice([2, 4, 7])}"]
    if heads > 1 and rnd.random() < 0.3:
        words.append(f"ablate=1.{rnd.randint(1, heads)}")
    return words


def main():
    rnd = random.Random(2026)
    lines = [" ".join(random_case(rnd, k)) for k in range(CASES)]
    out = subprocess.run([BIN], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"train_ref: {BIN} failed: {out.stderr.strip()}")
    dumps = out.stdout.splitlines()
    if len(dumps) != CASES:
        sys.exit(f"train_ref: {len(dumps)} dumps for {CASES} cases")
    for k, line in enumerate(dumps):
        check(k, json.loads(line))
    print(f"train_ref: {CASES} random models, one batch each: loss to {worst['loss']:.2g}, every gradient to "
          f"{worst['grad']:.2g}, two SGD/Adam steps to {worst['step']:.2g} (torch {torch.__version__}, float64)")


if __name__ == "__main__":
    main()
