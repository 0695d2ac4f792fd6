#!/usr/bin/python3
"""Cross-attention and padding keys: `qkvtutor --json` against numpy.

Writes random one-layer lessons with `attention: cross` (a source with its
rows Xs, written out or drawn after the weights) and self-attention lessons
with `pad:`, each with random heads, kv_heads, scaling, softmax (naive,
stable, online), temperature and, for self-attention, a causal mask or a
window. The reference reads each lesson's YAML itself (python3-yaml), draws
the random weights as numpy's legacy generator does (DESIGN.md: Wq, Wk, Wv,
then Wo, then Xs), and computes every stage in float64; every matrix of
--json (X, Xs, Wq, Wk, Wv, Q, K, V, QKt, S, A, O, each head's, Wo, Y) must
agree to 1e-12, padded and masked scores are null, padded weights exactly
0, and each row of A sums to 1 over the real keys. DESIGN.md "From a head
to a model": Q = X·W_Q, K = Xs·W_K, V = Xs·W_V, S is n_target × n_source.
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import yaml

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 150
TOL = 1e-12


def rows(M):
    return "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in r) + "]" for r in M) + "]"


def write_lesson(rng, k):
    """The YAML text of random lesson k (the reference never sees these variables)."""
    cross = k % 4 != 3                      # every fourth: self-attention with padding
    n = int(rng.integers(1, 7))
    ns = int(rng.integers(1, 8)) if cross else n
    d = int(rng.integers(1, 9))
    h = int(rng.choice([1, 1, 2, 3, 4]))
    g = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
    dk, dv = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    npad = int(rng.integers(0, ns))         # at least one real key
    pad = [0] * (ns - npad) + [1] * npad
    t = f"format: qkvtutor/1\ntitle: cross {k}\n"
    t += f"tokens: [{', '.join(f't{i}' for i in range(n))}]\n"
    t += f"X: {rows(np.round(rng.normal(size=(n, d)), 3))}\n"
    random = k % 3 != 2
    drawn = cross and random and k % 2 == 0
    if cross:
        t += f"source: [{', '.join(f's{i}' for i in range(ns))}]\n"
        if not drawn:
            t += f"Xs: {rows(np.round(rng.normal(size=(ns, d)), 3))}\n"
        t += "attention: cross\n"
    if npad or (cross and k % 5 == 0):
        t += f"pad: [{', '.join(map(str, pad))}]\n"
    if h > 1:
        t += f"heads: {h}\n"
    if g != h:
        t += f"kv_heads: {g}\n"
    opts = {"scale": ["none", "sqrt_dk"][k % 2], "softmax": ["naive", "stable", "online"][(k // 2) % 3]}
    if opts["softmax"] == "online":
        opts["block"] = int(rng.integers(1, 4))
    if k % 7 == 1:
        opts["temperature"] = float(rng.choice([0.5, 2.0, 0.25]))
    real = ns - npad
    if not cross and (k // 4) % 3 == 1:
        opts["mask"] = "causal"
    elif not cross and (k // 4) % 3 == 2:  # wide enough that the last row sees a real key
        opts["mask"] = f"window {int(rng.integers(n - real + 1, n + 1))}"
    t += "options: {" + ", ".join(f"{a}: {b}" for a, b in opts.items()) + "}\n"
    t += "weights:\n"
    if random:
        seed, sc = int(rng.integers(0, 2**32)), float(np.round(rng.uniform(0.2, 1.0), 2))
        t += f"  random: {{seed: {seed}, scale: {sc}, d_k: {dk}, d_v: {dv}}}\n"
    else:
        t += f"  Wq: {rows(rng.normal(size=(d, h * dk)))}\n  Wk: {rows(rng.normal(size=(d, g * dk)))}\n"
        t += f"  Wv: {rows(rng.normal(size=(d, g * dv)))}\n"
        if h > 1:
            t += f"  Wo: {rows(rng.normal(size=(h * dv, d)))}\n"
    return t


def reference(doc):
    """Every stage of the lesson, from its parsed YAML alone."""
    X = np.array(doc["X"], dtype=float)
    n, d = X.shape
    h = int(doc.get("heads", 1))
    g = int(doc.get("kv_heads", h))
    cross = doc.get("attention", "self") == "cross"
    w = doc["weights"]
    Xs = np.array(doc["Xs"], dtype=float) if "Xs" in doc else None
    if "random" in w:
        r = w["random"]
        dk = int(r["d_k"])
        dv = int(r.get("d_v", dk))
        sc = float(r.get("scale", 1.0))
        np.random.seed(int(r["seed"]))
        Wq = np.random.randn(d, h * dk) * sc
        Wk = np.random.randn(d, g * dk) * sc
        Wv = np.random.randn(d, g * dv) * sc
        Wo = np.random.randn(h * dv, d) * sc if h > 1 else None
        if cross and Xs is None:  # the source's rows, drawn after the weights
            Xs = np.random.randn(len(doc["source"]), d) * sc
    else:
        Wq, Wk, Wv = (np.array(w[k], dtype=float) for k in ("Wq", "Wk", "Wv"))
        Wo = np.array(w["Wo"], dtype=float) if "Wo" in w else None
        dk, dv = Wq.shape[1] // h, Wv.shape[1] // g
    src = Xs if cross else X
    nk = src.shape[0]
    pad = np.array(doc.get("pad", [0] * nk), dtype=bool)
    o = doc.get("options", {})
    scale, soft = o.get("scale", "sqrt_dk"), o.get("softmax", "stable")
    T = float(o.get("temperature", 1))
    mask = str(o.get("mask", "none"))
    hidden = np.tile(pad, (n, 1))
    i, j = np.indices((n, nk))
    if mask == "causal":
        hidden |= j > i
    elif mask.startswith("window"):
        W = int(mask.split()[1])
        hidden |= (j > i) | (j <= i - W)
    Q, K, V = X @ Wq, src @ Wk, src @ Wv
    out = dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Q=Q, K=K, V=V)
    if cross:
        out["Xs"] = Xs
    heads, O = [], np.zeros((n, h * dv))
    for k in range(h):
        kv = k * g // h
        q, kk, v = Q[:, k * dk:(k + 1) * dk], K[:, kv * dk:(kv + 1) * dk], V[:, kv * dv:(kv + 1) * dv]
        qkt = q @ kk.T
        s = qkt / np.sqrt(dk) if scale == "sqrt_dk" else qkt
        s = np.where(hidden, -np.inf, s)
        z = s / T
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(z - z.max(axis=1, keepdims=True)) if soft != "naive" else np.exp(z)
        e = np.where(hidden, 0.0, e)
        a = e / e.sum(axis=1, keepdims=True)
        ok = a @ v
        O[:, k * dv:(k + 1) * dv] = ok
        heads.append(dict(Q=q, K=kk, V=v, QKt=qkt, S=s, A=a, O=ok))
    out["O"] = O
    if h == 1:
        out.update(QKt=heads[0]["QKt"], S=heads[0]["S"], A=heads[0]["A"])
    if Wo is not None:
        out.update(Wo=Wo, Y=O @ Wo)
    return out, heads, hidden, pad, cross


def close(name, got, want, hidden=None):
    """got (JSON rows, None for -inf) against want; False with a message when they differ."""
    g = np.array([[np.nan if x is None else x for x in r] for r in got], dtype=float)
    if g.shape != want.shape:
        print(f"  {name}: shape {g.shape}, numpy {want.shape}")
        return False
    if hidden is not None and name.split(".")[-1] == "S":
        if not (np.isnan(g) == hidden).all():
            print(f"  {name}: null cells {np.isnan(g).astype(int).tolist()}, hidden {hidden.astype(int).tolist()}")
            return False
        g, want = np.where(hidden, 0, g), np.where(hidden, 0, want)
    if name.split(".")[-1] == "A" and hidden is not None and not (g[hidden] == 0.0).all():
        print(f"  {name}: a hidden key's weight is not exactly 0")
        return False
    err = np.max(np.abs(g - want)) if g.size else 0.0
    if not err <= TOL:
        print(f"  {name}: max difference {err:.3g}")
        return False
    return True


def check(path, text):
    doc = yaml.safe_load(text)
    want, heads, hidden, pad, cross = reference(doc)
    r = subprocess.run([BIN, "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"  exit {r.returncode}: {r.stderr.strip()}")
        return False
    js = json.loads(r.stdout)
    m = js["matrices"]
    ok = True
    for name, M in want.items():
        if name not in m:
            print(f"  {name} missing from --json")
            ok = False
        else:
            ok = close(name, m[name], M, hidden) and ok
    if len(heads) > 1:
        for k, hd in enumerate(heads):
            for name, M in hd.items():
                ok = close(f"head{k + 1}.{name}", js["per_head"][k][name], M, hidden) and ok
    for hd in heads:
        sums = hd["A"].sum(axis=1)
        ok = ok and np.all(np.abs(sums - 1) < 1e-12)
    if cross:
        ok = ok and js.get("attention") == "cross" and js.get("source") == [str(s) for s in doc["source"]]
        ok = ok and len(m["S"] if "S" in m else js["per_head"][0]["S"]) == len(doc["tokens"])
    if pad.any() and js.get("pad") != pad.astype(int).tolist():
        print(f"  pad {js.get('pad')}, lesson {pad.astype(int).tolist()}")
        ok = False
    return ok


def main():
    rng = np.random.default_rng(20261202)
    failed, kinds = 0, {"cross": 0, "padded": 0, "heads": 0, "drawn Xs": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(COUNT):
            text = write_lesson(rng, k)
            path = os.path.join(tmp, f"cross{k}.yaml")
            with open(path, "w") as f:
                f.write(text)
            doc = yaml.safe_load(text)
            kinds["cross"] += doc.get("attention") == "cross"
            kinds["padded"] += 1 in doc.get("pad", [])
            kinds["heads"] += doc.get("heads", 1) > 1
            kinds["drawn Xs"] += doc.get("attention") == "cross" and "Xs" not in doc
            if not check(path, text):
                failed += 1
                print(f"FAIL: lesson {k}:\n{text}")
    print(f"cross.py: {COUNT - failed} of {COUNT} random lessons agree with numpy to {TOL:g} "
          f"({', '.join(f'{v} {k}' for k, v in kinds.items())})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
