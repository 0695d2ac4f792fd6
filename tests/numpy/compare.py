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


def differ(got, want, name):
    """The first difference between qkvtutor's matrices and numpy's, or None.

    Each matrix must have numpy's shape exactly (nothing is reshaped), every
    cell must be a finite number (cJSON writes inf, -inf and NaN as null, so
    they cannot be told apart: any of them fails, as does a non-finite value
    on numpy's side, which would make the comparison meaningless), and the
    cells must agree to TOL."""
    for key, M in want.items():
        if not np.isfinite(M).all():
            return f"{name}: numpy's {key} is not finite; this lesson cannot be compared"
        if key not in got:
            return f"{name}: no matrix {key} in the JSON"
        try:
            G = np.array(got[key], dtype=float)
        except (TypeError, ValueError) as e:
            return f"{name}: {key} is not a matrix of numbers: {e}"
        if G.shape != M.shape:
            return f"{name}: {key} is {'x'.join(map(str, G.shape))}, want {'x'.join(map(str, M.shape))}"
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
    return missed


def run_json(args, name, binary=None):
    """(matrices, None) from `qkvtutor --json ARGS`, or (None, why) when it
    exits non-zero or prints no JSON."""
    out = subprocess.run([binary or BIN, "--json", *args], capture_output=True, text=True)
    if out.returncode != 0:
        return None, f"{name}: exit {out.returncode}: {out.stderr.strip()}"
    try:
        return json.loads(out.stdout)["matrices"], None
    except (ValueError, KeyError) as e:
        return None, f"{name}: no JSON matrices on stdout ({e})"


def check(text, want, name):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        got, err = run_json([f.name], name)
    finally:
        os.unlink(f.name)
    return err or differ(got, want, name)


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
    for f in failures:
        print("FAIL:", f)
    print(f"numpy: {max(0, 61 - len(failures))} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
