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


def pipeline(X, Wq, Wk, Wv, scale, softmax):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    QKt = Q @ K.T
    S = QKt / np.sqrt(K.shape[1]) if scale == "sqrt_dk" else QKt
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S - S.max(axis=-1, keepdims=True)) if softmax == "stable" else np.exp(S)
        A = E / E.sum(axis=-1, keepdims=True)
    return dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Q=Q, K=K, V=V, QKt=QKt, S=S, A=A, O=A @ V)


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


def check(text, want, name):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([BIN, "--json", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        return f"{name}: exit {out.returncode}: {out.stderr.strip()}"
    got = json.loads(out.stdout)["matrices"]
    for key, M in want.items():
        G = np.array(got[key], dtype=float).reshape(M.shape)
        finite = np.isfinite(M)
        if not np.array_equal(finite, np.isfinite(G)) or np.max(np.abs(G[finite] - M[finite]), initial=0) > TOL:
            return f"{name}: {key} differs by {np.max(np.abs(G[finite] - M[finite]), initial=0):.3g}"
    return None


def main():
    X = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]])
    np.random.seed(42)
    W = [np.random.randn(4, 3) * 0.3 for _ in range(3)]
    failures, rng = [], np.random.default_rng(2026)
    out = subprocess.run([BIN, "--json", "1"], capture_output=True, text=True)
    got = json.loads(out.stdout)["matrices"]
    want = pipeline(X, *W, "none", "naive")
    for key, M in want.items():
        if np.max(np.abs(np.array(got[key]) - M)) > TOL:
            failures.append(f"lesson 01: {key} differs")
    for k in range(60):
        text, want = lesson(rng, k)
        err = check(text, want, f"random lesson {k}")
        if err:
            failures.append(err)
    for f in failures:
        print("FAIL:", f)
    print(f"numpy: {61 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
