#!/usr/bin/python3
"""tests/lessons/model-2l.yaml's expectations against an independent numpy
float64 forward of its model (DESIGN.md "From a head to a model").

The weights are drawn here with numpy.random.RandomState(seed).randn(...) *
scale in DESIGN.md's order (E, P, per layer Wq Wk Wv Wo W1 W2, then WU);
gains 1, biases 0. The forward is written from the design's formulas
(pre-norm blocks, population LayerNorm, exact GELU, causal softmax with
1/sqrt(d_k)), not from the C core. Every expect: of every step must hold
within half a unit of its last written decimal (the lesson's digits for a
whole number of a result), and `qkvtutor --check` on the lesson must pass,
so the binary and numpy agree on the same numbers.

usage: model_lesson.py BINARY [LESSON]"""
import math
import re
import subprocess
import sys

import numpy as np
import yaml

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
LESSON = sys.argv[2] if len(sys.argv) > 2 else "tests/lessons/model-2l.yaml"
lesson = yaml.safe_load(open(LESSON, encoding="utf-8"))
cfg = lesson["model"]
assert cfg.get("act", "gelu") == "gelu" and cfg.get("norm", "layernorm") == "layernorm"
assert cfg.get("positions", "learned") == "learned" and cfg.get("unembed", "separate") == "separate"
assert lesson.get("options", {}).get("mask", "causal") == "causal"
L, d, H, dff, ctx = cfg["layers"], cfg["d_model"], cfg["heads"], cfg.get("d_ff", 0), cfg["ctx"]
vocab = [str(v) for v in lesson["vocab"]]
V, dk = len(vocab), d // H
tok = [vocab.index(str(t)) for t in lesson["tokens"]]
n = len(tok)
r = np.random.RandomState(lesson["weights"]["random"]["seed"])
s = lesson["weights"]["random"].get("scale", 1.0)
E = r.randn(V, d) * s
P = r.randn(ctx, d) * s
layers = []
for _ in range(L):
    w = {k: r.randn(d, d) * s for k in ("Wq", "Wk", "Wv", "Wo")}
    if dff:
        w["W1"], w["W2"] = r.randn(d, dff) * s, r.randn(dff, d) * s
    layers.append(w)
WU = r.randn(d, V) * s


def norm(x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)


gelu = np.vectorize(lambda x: x * 0.5 * (1 + math.erf(x / math.sqrt(2))))
got = {"E": E, "P": P}
h = E[tok] + P[:n]
for l, w in enumerate(layers, 1):
    got[f"L{l}.h_in"] = h
    a = norm(h)
    Q, K, Vv = a @ w["Wq"], a @ w["Wk"], a @ w["Wv"]
    O = np.zeros((n, d))
    for k in range(H):
        c = slice(k * dk, (k + 1) * dk)
        S = Q[:, c] @ K[:, c].T / math.sqrt(dk)
        S[np.triu_indices(n, 1)] = -np.inf
        A = np.exp(S - S.max(1, keepdims=True))
        A /= A.sum(1, keepdims=True)
        O[:, c] = A @ Vv[:, c]
        got[f"L{l}.S{k + 1}"], got[f"L{l}.A{k + 1}"] = S, A
    h = h + O @ w["Wo"]
    if dff:
        h = h + gelu(norm(h) @ w["W1"]) @ w["W2"]
    got[f"L{l}.h"] = h
logits = norm(h) @ WU
z = np.exp(logits - logits.max(1, keepdims=True))
got["logits"], got["p"] = logits, z / z.sum(1, keepdims=True)

digits = lesson.get("options", {}).get("digits", 3)
checked, bad = 0, []
for no, step in enumerate(lesson.get("steps", []), 1):
    for key, want in (step.get("expect") or {}).items():
        m = re.fullmatch(r"([A-Za-z0-9_.]+)\[(\d+)\](?:\[(\d+)\])?", key)
        name, i = m.group(1), int(m.group(2)) - 1
        if name not in got and L == 1:
            name = "L1." + name
        row = got[name][i]
        cells = [(int(m.group(3)) - 1, want)] if m.group(3) else list(enumerate(want))
        for j, w in cells:
            text = str(w)
            w = float(text.replace("−∞", "-inf"))
            dec = len(text.split(".")[1]) if "." in text and "e" not in text else 0
            whole = dec == 0 and not name.split(".")[-1] in ("E", "P") and not re.search(r"\.W|^W", name)
            tol = 0.5 * 10 ** -(digits if whole else dec)
            ok = row[j] == w if math.isinf(w) else abs(row[j] - w) <= tol
            checked += 1
            if not ok:
                bad.append(f"step {no}: {name}[{i + 1}][{j + 1}] is {row[j]!r} in numpy, the lesson expects {text}")
for b in bad:
    print("FAIL:", b)
check = subprocess.run([BIN, "--check", LESSON], capture_output=True, text=True)
if check.returncode != 0:
    print("FAIL: qkvtutor --check", LESSON, check.stdout, check.stderr)
print(f"model lesson: {checked} expected numbers hold in numpy ({len(bad)} do not); --check exit {check.returncode}")
sys.exit(1 if bad or check.returncode else 0)
