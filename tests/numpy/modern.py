#!/usr/bin/python3
"""Today's attention options against an independent numpy implementation.

Drives tests/modern_dump (the core alone: no lesson loader, no JSON) over
random lessons with the options of DESIGN.md "Attention in today's models":
`append`, `mask: window W`, `kv_heads`, `positions: rope` with `rope_base`
and `offset` (and `offset` with sinusoidal positions), `softmax: online`
with `block`, and the gradient under each. numpy computes every matrix its
own way (rotation matrices for RoPE, a boolean mask for the window, a
per-head loop for shared K/V heads, the plain softmax for the online one,
a Python loop for the online blocks); each number must agree to 1e-12
(relative above 1). Prints the largest difference per option.
"""
import subprocess, sys
import numpy as np

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/tests/modern_dump"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 400
TOL = 1e-12


def sinusoidal(n, d, offset):
    p = (np.arange(n, dtype=float) + offset)[:, None]
    c = np.arange(d)
    angle = p / np.power(10000.0, (2 * (c // 2)) / d)
    return np.where(c % 2 == 0, np.sin(angle), np.cos(angle))


def rope_matrix(p, dk, heads, base):
    """The rotation of one row as a matrix R (row @ R): per head, the pair
    (2m, 2m+1) turns by theta = p * base^(-2m/d_k)."""
    R = np.zeros((dk, dk))
    for m in range(dk // 2):
        t = p * base ** (-2 * m / dk)
        c, s = np.cos(t), np.sin(t)
        R[2 * m:2 * m + 2, 2 * m:2 * m + 2] = [[c, s], [-s, c]]
    return np.kron(np.eye(heads), R)


def visible(n, mask, window):
    i, j = np.indices((n, n))
    if mask == "causal":
        return j <= i
    if mask == "window":
        return (j <= i) & (j > i - window)
    return np.ones((n, n), dtype=bool)


def pipeline(c, X):
    n, d, h, g, dk, dv = X.shape[0], X.shape[1], c["h"], c["g"], c["dk"], c["dv"]
    out = {"X": X}
    np.random.seed(c["seed"])
    out["Wq"] = np.random.randn(d, h * dk) * c["wscale"]
    out["Wk"] = np.random.randn(d, g * dk) * c["wscale"]
    out["Wv"] = np.random.randn(d, g * dv) * c["wscale"]
    if c["dout"]:
        out["Wo"] = np.random.randn(h * dv, c["dout"]) * c["wscale"]
    H = X.copy()
    if c["pos"] == "sinusoidal":
        out["P"] = sinusoidal(n, d, c["offset"])
        H = X + out["P"]
    out["H"] = H
    Q, K, V = H @ out["Wq"], H @ out["Wk"], H @ out["Wv"]
    if c["pos"] == "rope":
        out["Q0"], out["K0"] = Q, K
        Q = np.stack([Q[r] @ rope_matrix(r + c["offset"], dk, h, c["base"]) for r in range(n)])
        K = np.stack([K[r] @ rope_matrix(r + c["offset"], dk, g, c["base"]) for r in range(n)])
    out.update(Q=Q, K=K, V=V)
    vis = visible(n, c["mask"], c["window"])
    heads, Os = [], []
    for k in range(h):
        kv = k * g // h
        q, kk, v = Q[:, k * dk:(k + 1) * dk], K[:, kv * dk:(kv + 1) * dk], V[:, kv * dv:(kv + 1) * dv]
        qkt = q @ kk.T
        s = qkt / np.sqrt(dk) if c["scale"] == "sqrt_dk" else qkt
        s = np.where(vis, s, -np.inf)
        z = s / c["temp"]
        e = np.exp(z) if c["softmax"] == "naive" else np.exp(z - z.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        o = a @ v
        heads.append(dict(Q=q, K=kk, V=v, QKt=qkt, S=s, A=a, O=o))
        Os.append(o)
    out["O"] = np.hstack(Os)
    for name in ("QKt", "S", "A"):
        out[name] = heads[0][name]
    if h > 1:
        for k, hd in enumerate(heads):
            for name, m in hd.items():
                out[f"{name}{k + 1}"] = m
    if c["dout"]:
        out["Y"] = out["O"] @ out["Wo"]
    out["_heads"], out["_vis"] = heads, vis
    return out


def online_blocks(s_row, vis_row, v_col, block, temp):
    """FlashAttention's running max, sum and output for one row, in Python."""
    n, m, l, o, rows = len(s_row), -np.inf, 0.0, 0.0, []
    for k0 in range(0, n, block):
        ks = [k for k in range(k0, min(k0 + block, n)) if vis_row[k]]
        if not ks:
            rows.append((m, m, 1.0, l, l, o, o))
            continue
        z = [s_row[k] / temp for k in ks]
        m_new = max(m, max(z))
        r = np.exp(m - m_new)
        p = [np.exp(x - m_new) for x in z]
        l_new = l * r + sum(p)
        o_new = o * r + sum(pk * v_col[k] for pk, k in zip(p, ks))
        rows.append((m, m_new, r, l, l_new, o, o_new))
        m, l, o = m_new, l_new, o_new
    return rows


def gradient(c, ref, targets):
    """dL/dWq, dL/dWk by hand: softmax, scaling, the shared K/V heads, RoPE's
    rotation transposed, then H^T."""
    n, h, g, dk = ref["X"].shape[0], c["h"], c["g"], c["dk"]
    dQ, dK = np.zeros_like(ref["Q"]), np.zeros_like(ref["K"])
    div = np.sqrt(dk) if c["scale"] == "sqrt_dk" else 1.0
    loss = 0.0
    for head, row, t in targets:
        hd, kv = ref["_heads"][head], head * g // h
        a = hd["A"][row]
        loss -= sum(t[j] * np.log(a[j]) for j in range(n) if t[j] != 0)
        ds = np.where(ref["_vis"][row], (a - t) / c["temp"], 0.0) / div
        dQ[row, head * dk:(head + 1) * dk] += ds @ hd["K"]
        dK[:, kv * dk:(kv + 1) * dk] += np.outer(ds, hd["Q"][row])
    if c["pos"] == "rope":
        dQ = np.stack([dQ[r] @ rope_matrix(r + c["offset"], dk, h, c["base"]).T for r in range(n)])
        dK = np.stack([dK[r] @ rope_matrix(r + c["offset"], dk, g, c["base"]).T for r in range(n)])
    return ref["H"].T @ dQ, ref["H"].T @ dK, loss


def rows_text(M):
    return " ".join(repr(float(x)) for x in np.ravel(M))


def random_case(rng, k):
    h = int(rng.choice([1, 1, 2, 3, 4, 6]))
    g = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
    pos = ["none", "sinusoidal", "rope"][k % 3]
    dk = int(rng.integers(1, 5)) * 2 if pos == "rope" else int(rng.integers(1, 8))
    dk = min(dk, 64 // h - (64 // h) % 2)
    c = dict(id=k, n=int(rng.integers(1, 12)), d=int(rng.integers(1, 9)), h=h, g=g, dk=dk,
             dv=int(rng.integers(1, min(8, 64 // h) + 1)), dout=int(rng.integers(1, 7)) if h > 1 or k % 5 == 0 else 0,
             seed=int(rng.integers(0, 2**32)), wscale=float(np.round(rng.uniform(0.1, 1.0), 2)),
             scale=["none", "sqrt_dk"][k % 2], softmax=["naive", "stable", "online", "online"][(k // 2) % 4],
             block=int(rng.integers(1, 5)), mask=["none", "causal", "window", "window"][(k // 3) % 4],
             window=int(rng.integers(1, 5)), temp=float(rng.choice([1.0, 0.5, 2.0, 1.3])), pos=pos,
             base=float(rng.choice([10000.0, 100.0, 2.5])), offset=int(rng.choice([0, 0, 3, 17, 500])))
    c["X"] = np.round(rng.normal(size=(c["n"], c["d"])), 3)
    c["append"] = [np.round(rng.normal(size=c["d"]), 3) for _ in range(int(rng.integers(0, 4)) if k % 4 == 1 else 0)]
    nf = c["n"] + len(c["append"])
    vis = visible(nf, c["mask"], c["window"])
    c["targets"] = []
    for _ in range(int(rng.integers(0, 3))):
        head, row = int(rng.integers(0, h)), int(rng.integers(0, nf))
        if any(t[0] == head and t[1] == row for t in c["targets"]):
            continue
        t = np.where(vis[row], rng.uniform(0, 1, nf), 0.0)
        c["targets"].append((head, row, t / t.sum()))
    return c


def case_text(c):
    s = f"case {c['id']}\nshape {c['n']} {c['d']} {c['h']} {c['g']} {c['dk']} {c['dv']} {c['dout']}\n"
    s += f"weights {c['seed']} {c['wscale']!r}\nX {rows_text(c['X'])}\nscale {c['scale']}\n"
    s += f"softmax {c['softmax']} {c['block']}\nmask {c['mask']} {c['window']}\ntemp {c['temp']!r}\n"
    s += f"positions {c['pos']} {c['base']!r} {c['offset']}\n"
    for head, row, t in c["targets"]:
        s += f"target {head} {row} {rows_text(t)}\n"
    for x in c["append"]:
        s += f"append {rows_text(x)}\n"
    return s + "run\n"


def parse(text):
    cases, cur = {}, None
    for line in text.splitlines():
        w = line.split()
        if w[0] == "case":
            cur = cases.setdefault(int(w[1]), {"M": {}, "WORK": [], "BLK": []})
        elif w[0] == "M":
            r, c = int(w[2]), int(w[3])
            cur["M"][w[1]] = np.array([float(x) for x in w[4:]]).reshape(r, c)
        elif w[0] == "WORK":
            cur["WORK"].append([int(x) for x in w[1:]])
        elif w[0] == "BLK":
            cur["BLK"].append([int(x) for x in w[1:7]] + [float(x) for x in w[7:]])
        elif w[0] == "LOSS":
            cur["LOSS"] = float(w[1])
    return cases


def diff(a, b):
    """The largest |a - b| / max(1, |b|), -inf and NaN matching exactly; inf when shapes differ."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return np.inf
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    fin = np.isfinite(a) & np.isfinite(b)
    if not np.all(same | fin):
        return np.inf
    with np.errstate(invalid="ignore"):
        return float(np.max(np.where(fin, np.abs(a - b) / np.maximum(1.0, np.abs(b)), 0.0), initial=0.0))


def main():
    rng = np.random.default_rng(2026)
    cases = [random_case(rng, k) for k in range(CASES)]
    r = subprocess.run([BIN], input="".join(case_text(c) for c in cases), capture_output=True, text=True)
    if r.returncode != 0:
        print(f"modern.py: {BIN} failed: {r.stderr.strip()}")
        return 1
    got = parse(r.stdout)
    worst, fails, counts, lessons = {}, [], {}, {}

    def check(what, d, cid, name):
        worst[what] = max(worst.get(what, 0.0), d)
        counts[what] = counts.get(what, 0) + 1
        if not d <= TOL:
            fails.append(f"case {cid} ({what}): {name} differs by {d:g}")

    for c in cases:
        X = np.vstack([c["X"]] + [x[None, :] for x in c["append"]])
        ref, out = pipeline(c, X), got.get(c["id"])
        if out is None:
            fails.append(f"case {c['id']}: no output")
            continue
        tags = [t for t, on in (("append", c["append"]), ("window", c["mask"] == "window"),
                                ("kv_heads", c["g"] < c["h"]), ("rope", c["pos"] == "rope"),
                                ("offset", c["offset"] and c["pos"] != "none"),
                                ("online", c["softmax"] == "online")) if on] or ["plain"]
        for t in tags + (["gradient"] if c["targets"] else []):
            lessons[t] = lessons.get(t, 0) + 1
        names = [k for k in ref if not k.startswith("_")]
        printed = set(out["M"]) - {"gWq", "gWk"}
        if set(names) != printed:
            fails.append(f"case {c['id']}: matrices {sorted(set(names) ^ printed)} in only one of C, numpy")
        for name in names:
            for t in tags:
                check(t, diff(out["M"].get(name, []), ref[name]), c["id"], name)
        if c["softmax"] == "online":  # the blocks, m, l and o of column 0, row by row
            blk = iter(out["BLK"])
            for k, hd in enumerate(ref["_heads"]):
                for i in range(X.shape[0]):
                    for want in online_blocks(hd["S"][i], ref["_vis"][i], hd["V"][:, 0], c["block"], c["temp"]):
                        b = next(blk, None)
                        # b: head row k0 k1 v0 v1 bmax, then m_old m_new rescale l_old l_new o_old o_new
                        d = np.inf if b is None or b[0] != k or b[1] != i else diff(b[7:], want)
                        check("online", d, c["id"], f"head {k + 1} row {i + 1} blocks")
        for w_ in out["WORK"]:  # n heads rows_new scores_new rows_full scores_full exact nstale stale...
            n = w_[0]
            vis = visible(n, c["mask"], c["window"])
            want_stale = list(range(n - 1)) if c["mask"] == "none" else []
            ok = w_[1:7] == [c["h"], 1, int(vis[n - 1].sum()), n, n * n, int(c["mask"] != "none")] and \
                w_[7] == len(want_stale) and w_[8:] == want_stale
            check("append", 0.0 if ok else np.inf, c["id"], f"work {w_}")
        if c["targets"]:
            gq, gk, loss = gradient(c, ref, c["targets"])
            for t in tags + ["gradient"]:
                check(t, diff(out["M"].get("gWq", []), gq), c["id"], "dL/dWq")
                check(t, diff(out["M"].get("gWk", []), gk), c["id"], "dL/dWk")
                check(t, diff(out.get("LOSS", np.nan), loss), c["id"], "loss")
    # The numpy gradient itself against central differences, on a few cases.
    fd_worst = 0.0
    for c in [c for c in cases if c["targets"]][:12]:
        X = np.vstack([c["X"]] + [x[None, :] for x in c["append"]])
        ref = pipeline(c, X)
        gq, _, _ = gradient(c, ref, c["targets"])
        def loss_at(Wq):
            cc = dict(c)
            r2 = pipeline_with(cc, X, Wq)
            return sum(-sum(t[j] * np.log(r2["_heads"][hh]["A"][row][j]) for j in range(len(t)) if t[j] != 0)
                       for hh, row, t in c["targets"])
        eps = 1e-6
        for (a, b) in [(0, 0), (gq.shape[0] - 1, gq.shape[1] - 1)]:
            W = ref["Wq"].copy(); W[a, b] += eps; lp = loss_at(W)
            W[a, b] -= 2 * eps; lm = loss_at(W)
            fd_worst = max(fd_worst, abs((lp - lm) / (2 * eps) - gq[a, b]) / max(1.0, abs(gq[a, b])))
    if fd_worst > 1e-5:
        fails.append(f"the numpy gradient differs from central differences by {fd_worst:g}")
    for f in fails[:20]:
        print("FAIL:", f)
    for what in sorted(worst):
        print(f"modern: {what:9} {lessons.get(what, 0):4} lessons, {counts[what]:6} matrices and blocks compared, "
              f"largest difference {worst[what]:.2e}")
    print(f"modern: numpy gradient vs central differences {fd_worst:.1e}")
    print(f"modern: {len(cases)} random lessons, {len(fails)} failures (tolerance {TOL:g})")
    return 1 if fails else 0


def pipeline_with(c, X, Wq):
    """pipeline() with Wq replaced (for the central differences)."""
    orig = np.random.randn
    ref = None
    try:
        calls = [0]
        def randn(*shape):
            calls[0] += 1
            m = orig(*shape)
            return Wq / c["wscale"] if calls[0] == 1 else m
        np.random.randn = randn
        ref = pipeline(c, X)
    finally:
        np.random.randn = orig
    return ref


if __name__ == "__main__":
    sys.exit(main())
