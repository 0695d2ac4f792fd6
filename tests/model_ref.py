#!/usr/bin/python3
"""A whole model (src/core/model.h) against an independent torch float64 one.

Drives tests/model_dump (the core alone) over many random configs: layers
1-4, heads 1-4, kv_heads, d_ff 0 and > 0 (once 256), each norm, each
position kind, tied and separate unembedding, causal / none / window masks
(also per layer), RoPE with offsets, the attention's and the sampling
temperature, every softmax kind, ablated heads, vocabularies up to 128.
The weights are drawn here with numpy.random.RandomState in DESIGN.md's
order (E, P, per layer Wq Wk Wv Wo W1 W2, WU) and must equal the core's bit
for bit; gains and biases (perturbed by the dumper's affine= key, not a
draw of DESIGN's) are read from the dump. torch then computes every stage
its own way (F.layer_norm, the RMSNorm formula with rsqrt, complex
rotations for RoPE, repeat_interleave for shared K/V heads, torch.softmax,
F.gelu) and each number must agree to 1e-12 (relative above 1). The
prediction: greedy = argmax; the sample = numpy's own
RandomState(seed).choice(V, p=row) on the core's row, bit for bit.

Then torch's own modules against the core: nn.LayerNorm (and nn.RMSNorm
when this torch has it, else the formula), F.gelu, and one block against
nn.TransformerEncoderLayer(norm_first=True, activation='gelu', dropout=0)
with zero attention biases. Prints the largest difference per check.
"""
import json, math, random, subprocess, sys
import numpy as np
import torch
import torch.nn.functional as F

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/tests/model_dump"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 300
TOL = 1e-12
torch.set_default_dtype(torch.float64)
worst = {}
fails = []


def T(x):
    return torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)


def close(name, got, want, case):
    """got (the core's, from JSON) against want (torch), to TOL relative above 1."""
    g = np.asarray(got, dtype=float)
    w = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want, dtype=float)
    if g.shape != w.shape:
        fails.append(f"case {case}: {name}: shape {g.shape}, torch {w.shape}")
        return
    inf = np.isinf(w) | np.isinf(g)
    if not np.array_equal(np.isinf(g), np.isinf(w)) or not np.array_equal(g[inf], w[inf]):
        fails.append(f"case {case}: {name}: infinities differ")
        return
    d = np.abs(g[~inf] - w[~inf]) / np.maximum(1.0, np.abs(w[~inf])) if (~inf).any() else np.zeros(1)
    m = float(d.max()) if d.size else 0.0
    key = name.split(".")[-1]
    worst[key] = max(worst.get(key, 0.0), m)
    if not m <= TOL:
        fails.append(f"case {case}: {name}: differs by {m:.3g}")


def draw(c, seed, scale, embed_scale=None):
    """DESIGN.md's order, one numpy stream: randn(rows, cols) * scale each
    (E and P * embed_scale when it is given: a lesson's embed_scale)."""
    r = np.random.RandomState(seed)
    d, h, g, dk, dv, ff, V = c["d_model"], c["heads"], c["kv_heads"], c["d_k"], c["d_v"], c["d_ff"], c["vocab"]
    es = scale if embed_scale is None else embed_scale
    w = {"E": r.randn(V, d) * es}
    if c["positions"] == "learned":
        w["P"] = r.randn(c["ctx"], d) * es
    for l in range(1, c["layers"] + 1):
        w[f"L{l}.Wq"] = r.randn(d, h * dk) * scale
        w[f"L{l}.Wk"] = r.randn(d, g * dk) * scale
        w[f"L{l}.Wv"] = r.randn(d, g * dv) * scale
        w[f"L{l}.Wo"] = r.randn(h * dv, d) * scale
        if ff > 0:
            w[f"L{l}.W1"] = r.randn(d, ff) * scale
            w[f"L{l}.W2"] = r.randn(ff, d) * scale
    if c["unembed"] == "separate":
        w["WU"] = r.randn(d, V) * scale
    return w


def norm(kind, x, g, beta, eps):
    """torch's layer_norm; RMSNorm as LLaMA writes it (x * rsqrt(mean x^2 + eps) * g)."""
    if kind == "layernorm":
        return F.layer_norm(x, (x.shape[-1],), weight=g, bias=beta, eps=eps)
    if kind == "rmsnorm":
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g
    return x


def stats(kind, x, eps):
    if kind == "layernorm":
        mu, var = x.mean(-1), x.var(-1, unbiased=False)
    elif kind == "rmsnorm":
        mu, var = torch.zeros(x.shape[0]), x.pow(2).mean(-1)
    else:
        return torch.zeros(x.shape[0]), torch.zeros(x.shape[0]), torch.zeros(x.shape[0])
    return mu, var, torch.sqrt(var + eps)


def sinusoidal(n, d, offset):
    p = torch.arange(n, dtype=torch.float64)[:, None] + offset
    c = torch.arange(d)
    ang = p / torch.pow(10000.0, (2 * (c // 2)).double() / d)
    return torch.where(c % 2 == 0, torch.sin(ang), torch.cos(ang))


def rope(x, offset, base):
    """x: (heads, n, dk); adjacent pairs as complex numbers times e^(i theta)."""
    hh, n, dk = x.shape
    m = torch.arange(dk // 2, dtype=torch.float64)
    p = torch.arange(n, dtype=torch.float64) + offset
    theta = p[:, None] * torch.pow(torch.tensor(base), -2.0 * m / dk)[None, :]
    z = torch.view_as_complex(x.reshape(hh, n, dk // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(theta), theta)).reshape(hh, n, dk)


def visible(n, mask, window):
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    if mask == "causal":
        return j <= i
    if mask == "window":
        return (j <= i) & (j > i - window)
    return torch.ones(n, n, dtype=torch.bool)


def attention(c, lo, a, w, l, ablate, out, case):
    n, h, g, dk, dv = a.shape[0], c["heads"], c["kv_heads"], c["d_k"], c["d_v"]
    q = (a @ w["Wq"]).reshape(n, h, dk).transpose(0, 1)
    k = (a @ w["Wk"]).reshape(n, g, dk).transpose(0, 1)
    v = (a @ w["Wv"]).reshape(n, g, dv).transpose(0, 1)
    if c["positions"] == "rope":
        close(f"L{l}.Q0", out["Q0"], q.transpose(0, 1).reshape(n, h * dk), case)
        close(f"L{l}.K0", out["K0"], k.transpose(0, 1).reshape(n, g * dk), case)
        q, k = rope(q, c["offset"], c["rope_base"]), rope(k, c["offset"], c["rope_base"])
    k, v = k.repeat_interleave(h // g, dim=0), v.repeat_interleave(h // g, dim=0)
    qkt = q @ k.transpose(1, 2)
    s = qkt / math.sqrt(dk) if lo["scale"] == "sqrt_dk" else qkt
    s = s.masked_fill(~visible(n, lo["mask"], lo["window"]), -math.inf)
    A = torch.softmax(s / lo["temp"], dim=-1)
    o = A @ v
    for hd in ablate:
        o[hd - 1] = 0.0
    for hd in range(h):
        ph = out["per_head"][hd]
        for name, t in (("Q", q), ("K", k), ("V", v), ("QKt", qkt), ("S", s), ("A", A), ("O", o)):
            close(f"L{l}.{name}{hd + 1}", ph[name], t[hd], case)
    O = o.transpose(0, 1).reshape(n, h * dv)
    close(f"L{l}.O", out["O"], O, case)
    return O, A


def scores_of(A, tok):
    n = len(tok)
    prev = float(sum(A[i, i - 1] for i in range(1, n)) / (n - 1)) if n > 1 else None
    rows = []
    for i in range(n):
        targets = {j + 1 for j in range(i) if tok[j] == tok[i]}
        if targets:
            rows.append(float(sum(A[i, t] for t in sorted(targets))))
    return prev, (sum(rows) / len(rows) if rows else None)


def forward(c, d, case):
    """Every stage of the model in torch, compared as it goes."""
    P = {k: T(v) for k, v in d["params"].items() if k != "n"}
    tok, n, eps = c["tokens"], len(c["tokens"]), c["eps"]
    h = P["E"][tok]
    if c["positions"] == "learned":
        h = h + P["P"][c["offset"]:c["offset"] + n]
    elif c["positions"] == "sinusoidal":
        h = h + sinusoidal(n, c["d_model"], c["offset"])
    heads_A = {}
    for l in range(1, c["layers"] + 1):
        out, lo = d["layers"][l - 1], c["attn"][l - 1]
        g1, b1 = P.get(f"L{l}.g1"), P.get(f"L{l}.beta1")
        close(f"L{l}.h_in", out["h_in"], h, case)
        a = norm(c["norm"], h, None if g1 is None else g1[0], None if b1 is None else b1[0], eps)
        close(f"L{l}.a", out["a"], a, case)
        for nm, t in zip(("mean1", "var1", "sigma1"), stats(c["norm"], h, eps)):
            close(f"L{l}.{nm}", out[nm], t, case)
        w = {k: P[f"L{l}.{k}"] for k in ("Wq", "Wk", "Wv", "Wo")}
        O, A = attention(c, lo, a, w, l, [hd for (ll, hd) in c["ablate"] if ll == l], out, case)
        heads_A[l] = A
        Y = O @ w["Wo"]
        close(f"L{l}.Y", out["Y"], Y, case)
        h = h + Y
        close(f"L{l}.h_mid", out["h_mid"], h, case)
        if c["d_ff"] > 0:
            g2, b2 = P.get(f"L{l}.g2"), P.get(f"L{l}.beta2")
            b = norm(c["norm"], h, None if g2 is None else g2[0], None if b2 is None else b2[0], eps)
            for nm, t in zip(("mean2", "var2", "sigma2"), stats(c["norm"], h, eps)):
                close(f"L{l}.{nm}", out[nm], t, case)
            close(f"L{l}.b", out["b"], b, case)
            u = b @ P[f"L{l}.W1"] + P[f"L{l}.b1"][0]
            close(f"L{l}.u", out["u"], u, case)
            f = F.relu(u) if c["act"] == "relu" else F.gelu(u)
            close(f"L{l}.f", out["f"], f, case)
            h = h + (f @ P[f"L{l}.W2"] + P[f"L{l}.b2"][0])
        close(f"L{l}.h", out["h"], h, case)
    gf, bf = P.get("gf"), P.get("betaf")
    hf = norm(c["norm"], h, None if gf is None else gf[0], None if bf is None else bf[0], eps)
    close("h_final", d["h_final"], hf, case)
    for nm, t in zip(("meanf", "varf", "sigmaf"), stats(c["norm"], h, eps)):
        close(nm, d[nm], t, case)
    logits = hf @ (P["E"].T if c["unembed"] == "tied" else P["WU"])
    close("logits", d["logits"], logits, case)
    p = torch.softmax(logits / c["sample_temp"], dim=-1)
    close("p", d["p"], p, case)
    return p, heads_A


def check_prediction(c, d, p, heads_A, case):
    row = np.asarray(d["p"][-1], dtype=float)  # (equal to torch's p to TOL, checked)
    if d["greedy"] != int(np.argmax(row)):  # numpy: the first of equal maxima
        fails.append(f"case {case}: greedy {d['greedy']}, numpy's argmax {int(np.argmax(row))}")
    want = int(np.random.RandomState(c["sample_seed"]).choice(c["vocab"], p=row))
    u = np.random.RandomState(c["sample_seed"]).random_sample()
    if d["sample"] != want or d["u"] != u:
        fails.append(f"case {case}: sample {d['sample']} (u {d['u']}), numpy {want} (u {u})")
    if d["predict"] != (want if c.get("sample") else d["greedy"]):
        fails.append(f"case {case}: predict {d['predict']}")
    for s in d["scores"]:
        prev, ind = scores_of(heads_A[s["layer"]][s["head"] - 1], c["tokens"])
        for nm, got, wnt in (("prev", s["prev"], prev), ("induction", s["induction"], ind)):
            if (got is None) != (wnt is None) or (got is not None and abs(got - wnt) > TOL):
                fails.append(f"case {case}: L{s['layer']}.H{s['head']} {nm} {got}, torch {wnt}")
            elif got is not None:
                worst[nm] = max(worst.get(nm, 0.0), abs(got - wnt))
    if d["explain_bad"] != 0 or d["explain_cells"] == 0:
        fails.append(f"case {case}: {d['explain_bad']} of {d['explain_cells']} explained cells do not rebuild")


def random_case(rnd, k):
    """One random config (the dumper's keys) and its own record."""
    heads = rnd.choice([1, 1, 2, 2, 3, 4])
    kv = rnd.choice([g for g in range(1, heads + 1) if heads % g == 0])
    positions = rnd.choice(["learned", "sinusoidal", "rope", "none"])
    dk = rnd.choice([2, 4] if positions == "rope" else [1, 2, 3, 4])
    explicit = rnd.random() < 0.25
    d_model = heads * dk if not explicit else rnd.randint(1, 12)
    dv = rnd.randint(1, 4) if explicit else dk
    vocab = rnd.choice([2, 3, 5, 8, 17, 128]) if k % 50 else 128
    ctx = rnd.randint(2, 16) if k % 40 != 3 else 64  # now and then the longest input
    offset = rnd.randint(0, min(3, ctx - 1)) if positions == "learned" else rnd.choice([0, 0, 3, 1000])
    n = rnd.randint(1, (ctx - offset) if positions == "learned" else ctx)
    if positions == "learned" and n < 1:
        offset, n = 0, 1
    c = dict(layers=rnd.randint(1, 4), d_model=d_model, heads=heads, kv_heads=kv,
             d_k=dk if explicit else 0, d_v=dv if explicit else 0,
             d_ff=(0 if rnd.random() < 0.3 else rnd.randint(1, 24)) if k != 7 else 256,
             act=rnd.choice(["relu", "gelu"]), norm=rnd.choice(["none", "layernorm", "rmsnorm"]),
             eps=rnd.choice([1e-5, 1e-5, 1e-3, 0.5]), positions=positions, rope_base=rnd.choice([10000, 100, 2.5]),
             offset=offset, ctx=ctx, vocab=vocab, unembed=rnd.choice(["separate", "tied"]),
             sample_temp=rnd.choice([1, 1, 0.5, 2.0]), sample_seed=rnd.randint(0, 2**32 - 1),
             seed=rnd.randint(0, 10**6), wscale=rnd.choice([0.1, 0.5, 1.0]), sample=rnd.randint(0, 1))
    # repeats so the induction score has rows: tokens from a small pool, sometimes a copy
    pool = rnd.randint(1, vocab)
    tokens = [rnd.randrange(pool) for _ in range(n)]
    if n >= 4 and rnd.random() < 0.5:
        half = n // 2
        tokens = tokens[:half] + tokens[:n - half]
    c["tokens"] = tokens
    every = dict(scale=rnd.choice(["sqrt_dk", "sqrt_dk", "none"]),
                 softmax=rnd.choice(["stable", "stable", "naive", "online"]),
                 mask=rnd.choice(["causal", "causal", "none", "window"]), window=rnd.randint(1, 4),
                 temp=rnd.choice([1, 1, 0.5, 3.0]), block=rnd.randint(1, 3))
    if c["norm"] == "none":  # no norm: the stream grows layer by layer; keep it well conditioned
        c["wscale"] = min(c["wscale"], 0.3)
    if c["norm"] == "none" and every["softmax"] == "naive":
        every["softmax"] = "online"  # a growing stream overflows the naive exp, honestly (inf, NaN)
    c["attn"] = [dict(every) for _ in range(c["layers"])]
    words = [f"{key}={c[key]}" for key in ("layers", "d_model", "heads", "kv_heads", "d_k", "d_v", "d_ff", "act",
                                            "norm", "eps", "positions", "rope_base", "offset", "ctx", "vocab",
                                            "unembed", "sample_temp", "sample_seed", "sample", "seed", "wscale")]
    words += [f"{key}={v}" for key, v in every.items()]
    if rnd.random() < 0.3:  # one layer's own mask and temperature
        l = rnd.randint(1, c["layers"])
        c["attn"][l - 1]["mask"] = rnd.choice(["none", "window", "causal"])
        c["attn"][l - 1]["temp"] = 2.0
        words += [f"L{l}.mask={c['attn'][l - 1]['mask']}", f"L{l}.temp=2.0"]
    c["ablate"] = []
    if rnd.random() < 0.2:
        c["ablate"] = [(rnd.randint(1, c["layers"]), rnd.randint(1, heads))]
        words.append("ablate=" + ",".join(f"{l}.{h}" for l, h in c["ablate"]))
    if rnd.random() < 0.8:
        words.append(f"affine={rnd.randint(0, 1000)}")
    words.append("tokens=" + ",".join(map(str, tokens)))
    if c["d_k"] == 0:
        c["d_k"] = c["d_v"] = d_model // heads
    return c, " ".join(words)


def check_draw(c, d, case):
    w = draw(c, c["seed"], c["wscale"])
    names = [k for k in d["params"] if k != "n"]
    drawn = [k for k in names if k in w]
    if sorted(drawn) != sorted(w):
        fails.append(f"case {case}: drawn parameters {sorted(drawn)}, numpy {sorted(w)}")
    for k in w:
        if k in d["params"] and not np.array_equal(np.asarray(d["params"][k]), w[k]):
            fails.append(f"case {case}: {k} is not numpy's draw bit for bit")


def run_cases():
    rnd = random.Random(20261202)
    cases = [random_case(rnd, k) for k in range(CASES)]
    proc = subprocess.run([BIN], input="\n".join(line for _, line in cases) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {BIN}: {proc.stderr.strip()}")
    outs = proc.stdout.splitlines()
    if len(outs) != len(cases):
        sys.exit(f"FAIL: {len(outs)} dumps for {len(cases)} configs")
    for k, ((c, line), out) in enumerate(zip(cases, outs)):
        d = json.loads(out)
        check_draw(c, d, k)
        p, heads_A = forward(c, d, k)
        check_prediction(c, d, p, heads_A, k)
    kinds = {x for c, _ in cases for x in (c["norm"], c["positions"], c["unembed"], c["act"])}
    print(f"model_ref: {len(cases)} random models (kinds: {', '.join(sorted(kinds))})")


def dump(words):
    proc = subprocess.run([BIN] + words, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {BIN} {' '.join(words)}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def encoder_layer(P, d, heads, ff, x, mask):
    """Layer 1 of P (torch tensors by parameter name) as torch's own pre-norm
    block, nn.TransformerEncoderLayer (GELU, dropout 0, zero attention
    biases), applied to the stream x under mask ("none" or causal)."""
    layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=ff, dropout=0.0, activation="gelu",
                                             layer_norm_eps=1e-5, batch_first=True, norm_first=True)
    layer.train()  # the slow path, the plain formulas (dropout 0)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([P["L1.Wq"].T, P["L1.Wk"].T, P["L1.Wv"].T]))
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(P["L1.Wo"].T)
        layer.self_attn.out_proj.bias.zero_()
        layer.linear1.weight.copy_(P["L1.W1"].T)
        layer.linear1.bias.copy_(P["L1.b1"][0])
        layer.linear2.weight.copy_(P["L1.W2"].T)
        layer.linear2.bias.copy_(P["L1.b2"][0])
        for nm, g, b in (("norm1", "L1.g1", "L1.beta1"), ("norm2", "L1.g2", "L1.beta2")):
            getattr(layer, nm).weight.copy_(P[g][0])
            getattr(layer, nm).bias.copy_(P[b][0])
    n = x.shape[0]
    src_mask = None if mask == "none" else torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    return layer(x[None], src_mask=src_mask)[0]


def check_modules():
    """torch's own modules against one of our blocks."""
    for k, (heads, d, ff, mask) in enumerate([(1, 4, 8, "causal"), (2, 6, 5, "none"), (3, 12, 16, "causal"),
                                              (4, 8, 32, "causal")]):
        words = [f"layers=1", f"d_model={d}", f"heads={heads}", f"d_ff={ff}", "act=gelu", "norm=layernorm",
                 "positions=learned", "ctx=8", "vocab=6", f"mask={mask}", f"seed={k + 11}", "wscale=0.7",
                 f"affine={k}", "tokens=0,3,1,5,0,3,2"]
        r = dump(words)
        P = {n: T(v) for n, v in r["params"].items() if n != "n"}
        L = r["layers"][0]
        x = T(L["h_in"])
        ln = torch.nn.LayerNorm(d, eps=1e-5)
        with torch.no_grad():
            ln.weight.copy_(P["L1.g1"][0])
            ln.bias.copy_(P["L1.beta1"][0])
        close("nn.LayerNorm", L["a"], ln(x), f"module {k}")
        close("nn.TransformerEncoderLayer", L["h"], encoder_layer(P, d, heads, ff, x, mask), f"module {k}")
        close("F.gelu", L["f"], F.gelu(T(L["u"])), f"module {k}")
    r = dump(["layers=1", "d_model=5", "d_ff=7", "act=gelu", "norm=rmsnorm", "eps=1e-3", "vocab=4", "seed=5",
              "affine=9", "tokens=0,1,2,3,2"])
    L, g = r["layers"][0], T(r["params"]["L1.g1"][0])
    x = T(L["h_in"])
    if hasattr(torch.nn, "RMSNorm"):
        rms = torch.nn.RMSNorm(5, eps=1e-3)
        with torch.no_grad():
            rms.weight.copy_(g)
        want, what = rms(x), "nn.RMSNorm"
    else:
        want, what = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-3) * g, "RMSNorm formula"
    close(what, L["a"], want, "rms")
    print(f"model_ref: torch modules: nn.LayerNorm, {what}, F.gelu, nn.TransformerEncoderLayer(norm_first=True)")


def main():
    run_cases()
    check_modules()
    print("model_ref: largest differences: " + ", ".join(f"{k} {v:.2g}" for k, v in sorted(worst.items())))
    if fails:
        for f in fails[:40]:
            print("FAIL: " + f)
        sys.exit(f"model_ref: {len(fails)} failures")
    print(f"model_ref: every stage agrees to {TOL:g}")


if __name__ == "__main__":
    main()
