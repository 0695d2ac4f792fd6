#!/usr/bin/python3
"""Compare `qkvtutor --json` with numpy's pipeline on random lessons.

Each lesson gets random sizes, a random seed (or weights written out), and
random options; qkvtutor's matrices must equal numpy's to 1e-12. Run by
`make test` when Debian's python3-numpy is installed.
"""
import json, os, subprocess, sys, tempfile
import numpy as np

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
TOL = 1e-12


def positions(n, d):
    """Sinusoidal P (DESIGN.md): P[p][2m] = sin(p / 10000^(2m/d)), P[p][2m+1] = cos(the same)."""
    p = np.arange(n, dtype=float)[:, None]
    c = np.arange(d)
    angle = p / np.power(10000.0, (2 * (c // 2)) / d)
    return np.where(c % 2 == 0, np.sin(angle), np.cos(angle))


def pipeline(X, Wq, Wk, Wv, scale, softmax, mask="none", T=1.0, pos="none", over=None):
    """numpy's pipeline. over: {(p, i): row} rows of Q (p 0), K (1), V (2) set by hand."""
    H = X + positions(*X.shape) if pos == "sinusoidal" else X
    Q, K, V = H @ Wq, H @ Wk, H @ Wv
    for (p, i), row in (over or {}).items():
        (Q, K, V)[p][i] = row
    QKt = Q @ K.T
    S = QKt / np.sqrt(K.shape[1]) if scale == "sqrt_dk" else QKt
    if mask == "causal":
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), 1), -np.inf, S)
    Z = S / T
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(Z - Z.max(axis=-1, keepdims=True)) if softmax == "stable" else np.exp(Z)
        A = E / E.sum(axis=-1, keepdims=True)
    out = dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Q=Q, K=K, V=V, QKt=QKt, S=S, A=A, O=A @ V)
    if pos == "sinusoidal":
        out.update(P=positions(*X.shape), H=H)
    return out


def rows(M):
    return "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in r) + "]" for r in M) + "]"


def lesson(rng, k):
    n, d, dk, dv = (int(rng.integers(1, 17)) for _ in range(4))
    X = np.round(rng.normal(size=(n, d)), 3)
    scale = ["none", "sqrt_dk"][k % 2]
    soft = ["naive", "stable"][(k // 2) % 2]
    text = f"format: qkvtutor/1\ntitle: random {k}\ntokens: [{', '.join(f't{i}' for i in range(n))}]\n"
    text += f"X: {rows(X)}\noptions: {{scale: {scale}, softmax: {soft}, digits: 4}}\nweights:\n"
    if k % 3 == 2:  # weights written out
        Wq, Wk, Wv = rng.normal(size=(d, dk)), rng.normal(size=(d, dk)), rng.normal(size=(d, dv))
        text += f"  Wq: {rows(Wq)}\n  Wk: {rows(Wk)}\n  Wv: {rows(Wv)}\n"
    else:
        seed, sc = int(rng.integers(0, 2**32)), float(np.round(rng.uniform(0.1, 1.0), 2))
        np.random.seed(seed)
        Wq = np.random.randn(d, dk) * sc
        Wk = np.random.randn(d, dk) * sc
        Wv = np.random.randn(d, dv) * sc
        text += f"  random: {{seed: {seed}, scale: {sc}, d_k: {dk}, d_v: {dv}}}\n"
    return text, pipeline(X, Wq, Wk, Wv, scale, soft)


def positions(n, d):
    """Sinusoidal positions: P[p][2m] = sin(p / 10000^(2m/d)), P[p][2m+1] = cos(same)."""
    P = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            a = p / 10000 ** ((2 * (c // 2)) / d)
            P[p, c] = np.sin(a) if c % 2 == 0 else np.cos(a)
    return P


def pipeline_heads(X, Wq, Wk, Wv, Wo, h, scale, softmax, mask, temp, pos):
    """Multi-head attention as DESIGN.md says: head k takes the k-th block of
    d_k (d_v) columns; O is the heads' outputs side by side; Y = O Wo."""
    n, d = X.shape
    Hm = X + positions(n, d) if pos == "sinusoidal" else X
    Q, K, V = Hm @ Wq, Hm @ Wk, Hm @ Wv
    dk, dv = Wq.shape[1] // h, Wv.shape[1] // h
    heads, outs = [], []
    for k in range(h):
        q, kk, v = Q[:, k * dk:(k + 1) * dk], K[:, k * dk:(k + 1) * dk], V[:, k * dv:(k + 1) * dv]
        QKt = q @ kk.T
        S = QKt / np.sqrt(dk) if scale == "sqrt_dk" else QKt.copy()
        if mask == "causal":
            S[np.triu_indices(n, 1)] = -np.inf
        Z = S / temp
        with np.errstate(over="ignore", invalid="ignore"):
            E = np.exp(Z - Z.max(axis=-1, keepdims=True)) if softmax == "stable" else np.exp(Z)
            A = E / E.sum(axis=-1, keepdims=True)
        O = A @ v
        heads.append(dict(Q=q, K=kk, V=v, QKt=QKt, S=S, A=A, O=O))
        outs.append(O)
    O = np.hstack(outs)
    top = dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Q=Q, K=K, V=V, O=O)
    if pos == "sinusoidal":
        top.update(P=Hm - X, H=Hm)
    if Wo is not None:
        top.update(Wo=Wo, Y=O @ Wo)
    return top, heads


def heads_lesson(rng, k, extras):
    """A random lesson with 1-4 heads of d_k 1-8, d_v != d_k, d_out !=
    d_model; with the mask, temperature and positions when the binary
    reads them (extras)."""
    h = int(rng.integers(1, 5))
    n, d = int(rng.integers(1, 9)), int(rng.integers(2, 9))
    dk = int(rng.integers(1, 9))
    dv = int(rng.choice([x for x in range(1, 9) if x != dk]))
    dout = int(rng.choice([x for x in range(1, 9) if x != d]))
    X = np.round(rng.normal(size=(n, d)), 3)
    scale = ["none", "sqrt_dk"][k % 2]
    soft = ["naive", "stable"][(k // 2) % 2]
    mask, temp, pos = "none", 1.0, "none"
    opts = f"scale: {scale}, softmax: {soft}, digits: 4"
    if extras and k % 4 >= 2:
        mask, temp, pos = ["none", "causal"][k % 2], [0.5, 2.0, 1.0, 0.25][(k // 4) % 4], \
            ["none", "sinusoidal"][(k // 8) % 2]
        opts += f", mask: {mask}, temperature: {temp}, positions: {pos}"
    text = f"format: qkvtutor/1\ntitle: heads {k}\ntokens: [{', '.join(f't{i}' for i in range(n))}]\n"
    text += f"heads: {h}\nX: {rows(X)}\noptions: {{{opts}}}\nweights:\n"
    Wo = None
    if k % 3 == 2:  # weights written out; Wo always (required from 2 heads on)
        Wq, Wk = rng.normal(size=(d, h * dk)), rng.normal(size=(d, h * dk))
        Wv, Wo = rng.normal(size=(d, h * dv)), rng.normal(size=(h * dv, dout))
        text += f"  Wq: {rows(Wq)}\n  Wk: {rows(Wk)}\n  Wv: {rows(Wv)}\n  Wo: {rows(Wo)}\n"
    else:
        seed, sc = int(rng.integers(0, 2**32)), float(np.round(rng.uniform(0.1, 1.0), 2))
        give_dout = h == 1 and k % 2 == 0  # one head: W_O only when d_out is given
        np.random.seed(seed)
        Wq = np.random.randn(d, h * dk) * sc
        Wk = np.random.randn(d, h * dk) * sc
        Wv = np.random.randn(d, h * dv) * sc
        if h >= 2 or give_dout:
            Wo = np.random.randn(h * dv, dout) * sc
        extra = f", d_out: {dout}" if h >= 2 or give_dout else ""
        text += f"  random: {{seed: {seed}, scale: {sc}, d_k: {dk}, d_v: {dv}{extra}}}\n"
    return text, pipeline_heads(X, Wq, Wk, Wv, Wo, h, scale, soft, mask, temp, pos), h


def differ_masked(got, want, name):
    """differ() for matrices that hold -inf where masked: those cells must be
    null in the JSON, the others must agree to TOL."""
    for key, M in want.items():
        if key not in got:
            return f"{name}: no matrix {key} in the JSON"
        G = got[key]
        if np.array(G, dtype=object).shape != M.shape:
            return f"{name}: {key} has the wrong shape"
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                w, g = M[i, j], G[i][j]
                if np.isneginf(w):
                    if g is not None:
                        return f"{name}: {key}[{i + 1}][{j + 1}] is {g!r}, want null (masked)"
                elif g is None or not np.isfinite(w) or abs(g - w) > TOL:
                    return f"{name}: {key}[{i + 1}][{j + 1}] is {g!r}, want {w!r}"
    return None


def check_heads(text, want, h, name):
    """Run --json on a heads lesson; compare the top level and per_head."""
    top, heads = want
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([BIN, "--json", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        return f"{name}: exit {out.returncode}: {out.stderr.strip()}"
    doc = json.loads(out.stdout)
    err = differ(doc["matrices"], top, name)
    if err:
        return err
    if h == 1:  # one head: the top level keeps QKt, S, A; no per_head
        if "per_head" in doc:
            return f"{name}: per_head in a one-head lesson"
        return differ_masked(doc["matrices"], {k: heads[0][k] for k in ("QKt", "S", "A")}, name)
    if doc.get("heads") != h or len(doc.get("per_head", [])) != h:
        return f"{name}: heads {doc.get('heads')!r}, per_head {len(doc.get('per_head', []))}, want {h}"
    if doc.get("d_out") != top["Wo"].shape[1]:
        return f"{name}: d_out {doc.get('d_out')!r}, want {top['Wo'].shape[1]}"
    for k in range(h):
        err = differ_masked(doc["per_head"][k], heads[k], f"{name} head {k + 1}")
        if err:
            return err
    return None


def reads_extras():
    """Does the binary read options mask, temperature and positions?"""
    text = ("format: qkvtutor/1\ntokens: [a]\nX: [[1.0]]\nweights: {random: {seed: 1, d_k: 1}}\n"
            "options: {mask: causal, temperature: 0.5, positions: sinusoidal}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([BIN, "--json", f.name], capture_output=True).returncode == 0
    finally:
        os.unlink(f.name)


def options_lesson(rng, k):
    """A random lesson crossed with mask, temperature and positions, whose one
    step applies random actions (swap, the options, a row copy): --json --at 1
    against numpy applying the same actions in order. Returns (text, want,
    tokens after the swaps)."""
    n, d, dk, dv = int(rng.integers(1, 9)), int(rng.integers(1, 10)), int(rng.integers(1, 7)), int(rng.integers(1, 7))
    X = np.round(rng.normal(size=(n, d)), 3)
    seed, sc = int(rng.integers(0, 2**32)), float(np.round(rng.uniform(0.1, 1.0), 2))
    np.random.seed(seed)
    W = [np.random.randn(d, dk) * sc, np.random.randn(d, dk) * sc, np.random.randn(d, dv) * sc]
    temps = [1.0, 0.05, 20.0, float(np.round(rng.uniform(0.05, 20), 3))]
    opt = dict(scale=["none", "sqrt_dk"][k % 2], softmax=["naive", "stable"][(k // 2) % 2],
               mask=["none", "causal"][(k // 4) % 2], T=temps[(k // 8) % 4], pos=["none", "sinusoidal"][(k // 3) % 2])
    toks = [f"t{i}" for i in range(n)]
    text = f"format: qkvtutor/1\ntitle: options {k}\ntokens: [{', '.join(toks)}]\nX: {rows(X)}\n"
    text += (f"options: {{scale: {opt['scale']}, softmax: SOFTMAX, mask: {opt['mask']}, "
             f"temperature: {opt['T']!r}, positions: {opt['pos']}, digits: 4}}\n")
    text += f"weights:\n  random: {{seed: {seed}, scale: {sc}, d_k: {dk}, d_v: {dv}}}\n"
    over, acts = {}, []
    for _ in range(int(rng.integers(1, 6))):
        kind = int(rng.integers(0, 5))
        if kind == 0:  # swap, a token with itself now and then
            i, j = int(rng.integers(0, n)), int(rng.integers(0, n))
            acts.append(f"swap {i + 1} {j + 1}")
            X[[i, j]] = X[[j, i]]
            toks[i], toks[j] = toks[j], toks[i]
            over = {(p, j if r == i else i if r == j else r): row for (p, r), row in over.items()}
        elif kind == 1:
            opt["mask"] = ["none", "causal"][int(rng.integers(0, 2))]
            acts.append(f"mask = {opt['mask']}")
        elif kind == 2:
            opt["T"] = float(np.round(rng.uniform(0.05, 20), 2))
            acts.append(f"temperature = {opt['T']!r}")
        elif kind == 3:
            opt["pos"] = ["none", "sinusoidal"][int(rng.integers(0, 2))]
            acts.append(f"positions = {opt['pos']}")
        else:  # Q[i] = K[j] * c, from the state as it is now
            i, j, c = int(rng.integers(0, n)), int(rng.integers(0, n)), float(np.round(rng.uniform(-3, 3), 2))
            if dk > 0:
                cur = pipeline(X, *W, opt["scale"], opt["softmax"], opt["mask"], opt["T"], opt["pos"], over)
                over[(0, i)] = cur["K"][j] * c
                acts.append(f"Q[{i + 1}] = K[{j + 1}] * {c!r}")
    text += "steps:\n  - stage: output\n    do: [" + ", ".join(f'"{a}"' for a in acts) + "]\n"
    want = pipeline(X, *W, opt["scale"], opt["softmax"], opt["mask"], opt["T"], opt["pos"], over)
    if not np.isfinite(want["A"]).all():  # naive exp overflowed at a low T: compare the stable softmax
        opt["softmax"] = "stable"
        want = pipeline(X, *W, opt["scale"], opt["softmax"], opt["mask"], opt["T"], opt["pos"], over)
    return text.replace("SOFTMAX", opt["softmax"]), want, toks


def differ(got, want, name, unwanted=("P", "H")):
    """The first difference between qkvtutor's matrices and numpy's, or None.

    Each matrix must have numpy's shape exactly (nothing is reshaped), every
    cell must be a finite number (cJSON writes inf, -inf and NaN as null, so
    they cannot be told apart: any of them fails, as does a non-finite value
    on numpy's side, which would make the comparison meaningless), and the
    cells must agree to TOL. The one exception is the causal mask: S is null
    exactly where numpy's S is -inf above the diagonal, and nowhere else.
    A matrix in `unwanted` that numpy did not compute (P and H without
    positions) must not be in the JSON."""
    for key in unwanted:
        if key in got and key not in want:
            return f"{name}: {key} is in the JSON but positions are off"
    for key, M in want.items():
        hidden = np.zeros(M.shape, dtype=bool)
        if key == "S" and M.ndim == 2 and M.shape[0] == M.shape[1]:
            hidden = np.isneginf(M) & np.triu(np.ones(M.shape, dtype=bool), 1)
        if not np.isfinite(M[~hidden]).all():
            return f"{name}: numpy's {key} is not finite; this lesson cannot be compared"
        if key not in got:
            return f"{name}: no matrix {key} in the JSON"
        try:
            G = np.array(got[key], dtype=float)  # null reads as NaN
        except (TypeError, ValueError) as e:
            return f"{name}: {key} is not a matrix of numbers: {e}"
        if G.shape != M.shape:
            return f"{name}: {key} is {'x'.join(map(str, G.shape))}, want {'x'.join(map(str, M.shape))}"
        for i, j in np.argwhere(hidden):
            if got[key][i][j] is not None:
                return f"{name}: {key}[{i + 1}][{j + 1}] is {got[key][i][j]!r}, want null (masked)"
        G, M = np.where(hidden, 0.0, G), np.where(hidden, 0.0, M)
        bad = np.argwhere(~np.isfinite(G))
        if len(bad):
            i, j = (int(k) for k in bad[0])
            v = got[key][i][j]
            return f"{name}: {key}[{i + 1}][{j + 1}] is {'null' if v is None else repr(v)}, not a finite number (want {M[i, j]!r})"
        d = np.max(np.abs(G - M), initial=0)
        if d > TOL:
            return f"{name}: {key} differs by {d:.3g}"
    return None


def self_test():
    """differ() and run_json() must catch what they are for; a list of what
    they let through."""
    M = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    missed = []
    for what, got in (("a transposed matrix", M.T.tolist()), ("a flattened matrix", [M.ravel().tolist()]),
                      ("an empty matrix", []), ("a null (inf, -inf or NaN)", [[1.0, None, 3.0], [4.0, 5.0, 6.0]]),
                      ("inf", [[1.0, 2.0, float("inf")], [4.0, 5.0, 6.0]]),
                      ("NaN", [[1.0, 2.0, 3.0], [float("nan"), 5.0, 6.0]]),
                      ("a cell off by 1e-9", [[1.0, 2.0, 3.0], [4.0, 5.0 + 1e-9, 6.0]])):
        if differ({"M": got}, {"M": M}, "self-test") is None:
            missed.append(f"self-test: {what} was not caught")
    if differ({"M": M.tolist()}, {"M": M}, "self-test") is not None:
        missed.append("self-test: equal matrices were reported different")
    if run_json(["1"], "self-test", "/bin/false")[1] is None:
        missed.append("self-test: a failing exit status was not caught")
    # The causal mask: null exactly where numpy's S is -inf above the diagonal.
    S = np.array([[1.0, -np.inf], [2.0, 3.0]])
    for what, got in (("a number where the mask is", [[1.0, 5.0], [2.0, 3.0]]),
                      ("a null below the diagonal", [[1.0, None], [None, 3.0]]),
                      ("a null on the diagonal", [[None, None], [2.0, 3.0]])):
        if differ({"S": got}, {"S": S}, "self-test") is None:
            missed.append(f"self-test: {what} was not caught")
    if differ({"S": [[1.0, None], [2.0, 3.0]]}, {"S": S}, "self-test") is not None:
        missed.append("self-test: a null exactly where the mask is was refused")
    if differ({"M": M.tolist(), "P": M.tolist()}, {"M": M}, "self-test") is None:
        missed.append("self-test: P without positions was not caught")
    return missed


def run_json(args, name, binary=None, whole=False):
    """(matrices, None) from `qkvtutor --json ARGS` (the whole object with
    `whole`), or (None, why) when it exits non-zero or prints no JSON."""
    out = subprocess.run([binary or BIN, "--json", *args], capture_output=True, text=True)
    if out.returncode != 0:
        return None, f"{name}: exit {out.returncode}: {out.stderr.strip()}"
    try:
        obj = json.loads(out.stdout)
        return (obj if whole else obj["matrices"]), None
    except (ValueError, KeyError) as e:
        return None, f"{name}: no JSON matrices on stdout ({e})"


def check(text, want, name, at=None, tokens=None):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        got, err = run_json(([f"--at={at}"] if at else []) + [f.name], name, whole=True)
    finally:
        os.unlink(f.name)
    if err:
        return err
    if tokens is not None and got.get("tokens") != tokens:
        return f"{name}: tokens are {got.get('tokens')}, want {tokens}"
    return differ(got["matrices"], want, name)


def edge_cases():
    """One token; an odd d_model (P's last column a sine); a swap of a token
    with itself; the smallest and largest temperature; lesson 07's swap with
    and without positions."""
    cases = []
    def one(what, toks, X, options, acts, over=None, **kw):
        n, d = X.shape
        np.random.seed(5)
        W = [np.random.randn(d, 2) * 0.7 for _ in range(3)]
        text = (f"format: qkvtutor/1\ntitle: {what}\ntokens: [{', '.join(toks)}]\nX: {rows(X)}\n"
                f"options: {{{options}}}\nweights:\n  random: {{seed: 5, scale: 0.7, d_k: 2}}\n"
                "steps:\n  - stage: output\n    do: [" + ", ".join(f'"{a}"' for a in acts) + "]\n")
        cases.append((what, text, pipeline(X, *W, **kw), kw.pop("tokens", None) or toks))
    X3 = np.array([[0.5, -1.0, 0.25, 2.0, 0.0], [1.5, 0.0, -0.5, 1.0, 0.75], [0.0, 1.25, 1.0, -1.0, 0.5]])
    one("one token", ["solo"], np.array([[0.3, -0.7, 1.1]]), "mask: causal, positions: sinusoidal", ["temperature = 0.05"],
        scale="sqrt_dk", softmax="stable", mask="causal", T=0.05, pos="sinusoidal")
    one("odd d_model", ["a", "b", "c"], X3, "positions: sinusoidal, scale: none", ["mask = causal"],
        scale="none", softmax="stable", mask="causal", pos="sinusoidal")
    one("swap with itself", ["a", "b", "c"], X3, "positions: sinusoidal", ["swap 2 2"],
        scale="sqrt_dk", softmax="stable", pos="sinusoidal")
    one("smallest temperature", ["a", "b", "c"], X3, "softmax: naive, temperature: 0.05", ["mask = causal"],
        scale="sqrt_dk", softmax="naive", mask="causal", T=0.05)
    one("largest temperature", ["a", "b", "c"], X3, "temperature: 20, positions: sinusoidal", ["swap 1 3", "swap 1 3"],
        scale="sqrt_dk", softmax="stable", T=20.0, pos="sinusoidal")
    return cases


def main():
    X = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]])
    np.random.seed(42)
    W = [np.random.randn(4, 3) * 0.3 for _ in range(3)]
    failures, rng = self_test(), np.random.default_rng(2026)
    got, err = run_json(["1"], "lesson 01")
    err = err or differ(got, pipeline(X, *W, "none", "naive"), "lesson 01")
    if err:
        failures.append(err)
    for k in range(60):
        text, want = lesson(rng, k)
        err = check(text, want, f"random lesson {k}")
        if err:
            failures.append(err)
    total = 61
    for k in range(64):  # every mix of scale, softmax, mask, 4 temperatures, positions; random actions
        text, want, toks = options_lesson(rng, k)
        err = check(text, want, f"options lesson {k}", at=1, tokens=toks)
        if err:
            failures.append(err)
        total += 1
    for what, text, want, toks in edge_cases():
        err = check(text, want, what, at=1, tokens=toks)
        if err:
            failures.append(err)
        total += 1
    extras = reads_extras()
    if not extras:
        print("numpy: this build does not read mask, temperature, positions: heads lessons without them")
    for k in range(60):
        text, want, h = heads_lesson(rng, k, extras)
        err = check_heads(text, want, h, f"random heads lesson {k} (heads {h})")
        if err:
            failures.append(err)
        total += 1
    for f in failures:
        print("FAIL:", f)
    print(f"numpy: {max(0, total - len(failures))} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
