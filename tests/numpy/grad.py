#!/usr/bin/python3
"""Check qkvtutor's training against an independent numpy implementation.

For random lessons (1-3 heads, causal mask or none, temperature, sinusoidal
positions or none, scaling or none, naive or stable softmax), each with
targets on random rows:
  * `--json --at 1` must print `training.loss` and `training.grad` {Wq, Wk}
    equal to numpy's to 1e-12. numpy's gradient is derived another way than
    the C one: dL/dA = -t / A, then the full softmax Jacobian
    diag(a) - a a^T, then the chain through T, the scaling, Q K^T and H W.
  * `--json --at 2`, after `do: step 100`, must print Wq and Wk equal to a
    numpy gradient-descent loop of 100 steps to 1e-12.
Lesson 1's curve (REFERENCE.md: A[1][3] 0.350 -> 0.387 -> ... ) is checked
too. Run by `make numpy` with Debian's python3-numpy.
"""
import json, os, subprocess, sys, tempfile
import numpy as np

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
TOL = 1e-12
STEPS = 100


def positions(n, d):
    P = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            ang = p / np.power(10000.0, (2 * (c // 2)) / d)
            P[p, c] = np.sin(ang) if c % 2 == 0 else np.cos(ang)
    return P


def forward(H, Wq, Wk, L):
    """Per head: (Q_h, K_h, A_h) with the lesson's options L."""
    heads, dk, n = L["heads"], L["dk"], H.shape[0]
    Q, K = H @ Wq, H @ Wk
    out = []
    for h in range(heads):
        q, k = Q[:, h * dk:(h + 1) * dk], K[:, h * dk:(h + 1) * dk]
        S = q @ k.T
        if L["scale"] == "sqrt_dk":
            S = S / np.sqrt(dk)
        Z = S / L["temp"]
        A = np.zeros((n, n))
        for i in range(n):
            vis = i + 1 if L["mask"] == "causal" else n
            z = Z[i, :vis]
            e = np.exp(z - z.max()) if L["softmax"] == "stable" else np.exp(z)
            A[i, :vis] = e / e.sum()
        out.append((q, k, A))
    return out


def loss_and_grad(H, Wq, Wk, L, targets):
    """The loss and dL/dWq, dL/dWk, through the softmax Jacobian."""
    heads, dk, n = L["heads"], L["dk"], H.shape[0]
    fw = forward(H, Wq, Wk, L)
    dQ, dK = np.zeros((n, heads * dk)), np.zeros((n, heads * dk))
    loss = 0.0
    div = np.sqrt(dk) if L["scale"] == "sqrt_dk" else 1.0
    for (h, i, t) in targets:
        q, k, A = fw[h]
        vis = i + 1 if L["mask"] == "causal" else n
        a, tv = A[i, :vis], np.array(t[:vis])
        nz = tv > 0
        loss += -np.sum(tv[nz] * np.log(a[nz]))
        dA = np.zeros(vis)
        dA[nz] = -tv[nz] / a[nz]
        J = np.diag(a) - np.outer(a, a)          # d a / d z
        dz = J @ dA
        dqkt = np.zeros(n)
        dqkt[:vis] = dz / L["temp"] / div
        dQ[i, h * dk:(h + 1) * dk] += dqkt @ k
        dK[:, h * dk:(h + 1) * dk] += np.outer(dqkt, q[i])
    return loss, H.T @ dQ, H.T @ dK


def rows(M):
    return "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in r) + "]" for r in M) + "]"


def make_lesson(rng, k):
    heads = int(rng.integers(1, 4))
    n, d, dk = int(rng.integers(2, 7)), int(rng.integers(2, 7)), int(rng.integers(1, 5))
    L = dict(heads=heads, dk=dk, scale=["none", "sqrt_dk"][k % 2], softmax=["naive", "stable"][(k // 2) % 2],
             mask=["none", "causal"][(k // 4) % 2], temp=[1.0, 0.5, 2.0][(k // 8) % 3],
             pos=["none", "sinusoidal"][(k // 24) % 2], lr=float(rng.choice([0.1, 0.05])))
    X = np.round(rng.normal(size=(n, d)) * 0.5, 3)
    Wq, Wk = rng.normal(size=(d, heads * dk)) * 0.3, rng.normal(size=(d, heads * dk)) * 0.3
    Wv = rng.normal(size=(d, heads * dk)) * 0.4
    targets = []
    for i in range(n):
        if i != 0 and rng.uniform() < 0.5:
            continue
        h = int(rng.integers(0, heads))
        vis = i + 1 if L["mask"] == "causal" else n
        if rng.uniform() < 0.5:
            j = int(rng.integers(0, vis))
            t = [1.0 if c == j else 0.0 for c in range(n)]
        else:  # eighths: exact in binary, so they sum to 1 exactly
            w = rng.integers(0, 9, size=vis).astype(float)
            if w.sum() == 0:
                w[0] = 1
            w = np.floor(w / w.sum() * 8)
            w[int(np.argmax(w))] += 8 - w.sum()
            t = [float(w[c] / 8) if c < vis else 0.0 for c in range(n)]
        targets.append((h, i, t))
    text = f"format: qkvtutor/1\ntitle: training {k}\ntokens: [{', '.join(f't{i}' for i in range(n))}]\n"
    if heads > 1:
        text += f"heads: {heads}\n"
    text += f"X: {rows(X)}\nweights:\n  Wq: {rows(Wq)}\n  Wk: {rows(Wk)}\n  Wv: {rows(Wv)}\n"
    if heads > 1:
        text += f"  Wo: {rows(rng.normal(size=(heads * dk, d)))}\n"
    text += (f"options: {{scale: {L['scale']}, softmax: {L['softmax']}, mask: {L['mask']}, "
             f"temperature: {L['temp']}, positions: {L['pos']}, lr: {L['lr']}}}\nsteps:\n")
    dos = []
    for h, i, t in targets:
        name = f"A{h + 1}" if heads > 1 else "A"
        dos.append(f"target {name}[{i + 1}] = [" + ", ".join(repr(v) for v in t) + "]")
    text += "  - stage: softmax\n    do: [" + ", ".join(json.dumps(s) for s in dos) + "]\n"
    text += f"  - stage: softmax\n    do: \"step {STEPS}\"\n"
    H = X + positions(n, d) if L["pos"] == "sinusoidal" else X
    return text, L, H, Wq, Wk, targets


def run_json(path, at):
    p = subprocess.run([BIN, "--json", "--at", str(at), path], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{path} --at {at}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def worst(G, M):
    G = np.array(G, dtype=float)
    if G.shape != M.shape:
        return float("inf")
    return float(np.max(np.abs(G - M), initial=0))


def check_lesson1(tmp):
    """REFERENCE.md's training curve on lesson 1's numbers, step by step."""
    head = ("format: qkvtutor/1\ntitle: t\ntokens: [a, b, c]\nX: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]\n"
            "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\noptions: {scale: none, softmax: naive}\nsteps:\n"
            "  - stage: softmax\n    do: \"target A[1] = 3\"\n")
    head += "".join("  - stage: softmax\n    do: step\n" for _ in range(11))
    head += "  - stage: softmax\n    do: step 89\n"  # 100 in all
    path = os.path.join(tmp, "lesson1.yaml")
    with open(path, "w") as f:
        f.write(head)
    ref = [0.350, 0.387, 0.443, 0.535, 0.664, 0.787, 0.866, 0.910, 0.934, 0.949, 0.959, 0.966]
    curve = []
    for s in range(12):
        d = run_json(path, s + 1)
        curve.append((d["matrices"]["A"][0][2], d["training"]["loss"]))
        if abs(curve[-1][0] - ref[s]) > 0.0005:
            return f"lesson 1: A[1][3] after {s} steps is {curve[-1][0]:.6f}, REFERENCE.md says {ref[s]}", curve
    np.random.seed(42)
    Wq, Wk = np.random.randn(4, 3) * 0.3, np.random.randn(4, 3) * 0.3
    X = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]])
    L = dict(heads=1, dk=3, scale="none", softmax="naive", mask="none", temp=1.0)
    for _ in range(STEPS):
        _, g1, g2 = loss_and_grad(X, Wq, Wk, L, [(0, 0, [0.0, 0.0, 1.0])])
        Wq, Wk = Wq - 0.5 * g1, Wk - 0.5 * g2
    d = run_json(path, 13)
    e = max(worst(d["matrices"]["Wq"], Wq), worst(d["matrices"]["Wk"], Wk))
    if not e <= TOL:
        return f"lesson 1: after {STEPS} steps at lr 0.5, Wq/Wk differ by {e:.3g}", curve
    return None, curve


def main():
    rng = np.random.default_rng(20261130)
    fails, worst_g, worst_w, count = [], 0.0, 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        err, curve = check_lesson1(tmp)
        if err:
            fails.append(err)
        if os.environ.get("QKV_GRAD_CURVE"):
            for s, (a, l) in enumerate(curve):
                print(f"step {s:2d}: A[1][3] = {a:.6f}  loss = {l:.6f}")
        for k in range(48):
            text, L, H, Wq, Wk, targets = make_lesson(rng, k)
            path = os.path.join(tmp, f"g{k}.yaml")
            with open(path, "w") as f:
                f.write(text)
            try:
                d1, d2 = run_json(path, 1), run_json(path, 2)
            except RuntimeError as e:
                fails.append(str(e))
                continue
            loss, gq, gk = loss_and_grad(H, Wq, Wk, L, targets)
            tr = d1.get("training")
            if not tr:
                fails.append(f"lesson {k}: no training in the JSON")
                continue
            e = max(worst(tr["grad"]["Wq"], gq), worst(tr["grad"]["Wk"], gk), abs(tr["loss"] - loss))
            worst_g = max(worst_g, e)
            if not e <= TOL:
                fails.append(f"lesson {k} ({L}): gradient differs by {e:.3g}")
            wq, wk = Wq.copy(), Wk.copy()
            for _ in range(STEPS):
                _, g1, g2 = loss_and_grad(H, wq, wk, L, targets)
                wq, wk = wq - L["lr"] * g1, wk - L["lr"] * g2
            e = max(worst(d2["matrices"]["Wq"], wq), worst(d2["matrices"]["Wk"], wk))
            worst_w = max(worst_w, e)
            if not e <= TOL:
                fails.append(f"lesson {k} ({L}): after {STEPS} steps Wq/Wk differ by {e:.3g}")
            count += 1
    for f in fails:
        print("FAIL:", f)
    print(f"numpy grad: {count} random lessons: gradient and loss within {worst_g:.3g}, "
          f"{STEPS} steps within {worst_w:.3g} (tolerance {TOL:g}); lesson 1's curve "
          f"{'matches' if not err else 'DIFFERS'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
