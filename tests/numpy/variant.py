#!/usr/bin/python3
"""`qkvtutor --json --variant K` against numpy's pipeline with seed K.

For each lesson with random: weights (the shipped ones, tests/live's, and
generated ones of random sizes and options), and several K: numpy draws
RandomState(K).randn(d_model, d_k) * scale for Wq, then Wk, then Wv (d_v),
as the lesson's random: block describes (with variants: {scale: c}, c); the pipeline (compare.py's) runs on
the lesson's X, overrides and options; every matrix of qkvtutor's JSON must
equal numpy's to 1e-12. A lesson with written-out weights and variants:
gets its written weights plus the declared draw (lessons/README.md
"Variants"); one without variants: must be refused
with exit 2. A model lesson's random weights (E, P, each layer's W's, WU)
are numpy's draw with seed K in DESIGN.md's order; trained weights are
refused. Needs numpy and PyYAML (Debian: python3-numpy, python3-yaml)."""
import glob, json, os, re, subprocess, sys, tempfile
import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import differ, pipeline, rows  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
KS = [0, 1, 7, 42, 2026, 4294967295]


def want(doc, k):
    """numpy's matrices for a lesson (parsed YAML) drawn with seed k."""
    X = np.array(doc["X"], dtype=float)
    r = doc["weights"]["random"]
    d, dk = X.shape[1], int(r["d_k"])
    dv, sc = int(r.get("d_v", dk)), float(r.get("scale", 1.0))
    if "variants" in doc:  # variants: {scale: c}: a variant's draw has its own scale
        sc = float(doc["variants"]["scale"])
    rs = np.random.RandomState(k)
    Wq, Wk, Wv = rs.randn(d, dk) * sc, rs.randn(d, dk) * sc, rs.randn(d, dv) * sc
    opts = doc.get("options") or {}
    scale, soft = opts.get("scale", "sqrt_dk"), opts.get("softmax", "stable")
    over = doc.get("overrides") or {}
    if not over:
        return pipeline(X, Wq, Wk, Wv, scale, soft)
    # rows of Q, K, V set by the lesson replace X·W's before the scores
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    for ref, row in over.items():
        m, i = ref[0], int(ref[2:-1]) - 1
        {"Q": Q, "K": K, "V": V}[m][i] = row
    QKt = Q @ K.T
    S = QKt / np.sqrt(K.shape[1]) if scale == "sqrt_dk" else QKt
    E = np.exp(S - S.max(axis=-1, keepdims=True)) if soft == "stable" else np.exp(S)
    A = E / E.sum(axis=-1, keepdims=True)
    return dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Q=Q, K=K, V=V, QKt=QKt, S=S, A=A, O=A @ V)


def generated(rng, n):
    """A lesson of random sizes, scale and options (text, parsed)."""
    t, d, dk, dv = (int(rng.integers(1, 13)) for _ in range(4))
    X = np.round(rng.normal(size=(t, d)), 3)
    sc = float(np.round(rng.uniform(0.1, 2.0), 2))
    text = (f"format: qkvtutor/1\ntitle: generated {n}\ntokens: [{', '.join(f't{i}' for i in range(t))}]\n"
            f"X: {rows(X)}\nweights:\n  random: {{seed: {int(rng.integers(0, 2**32))}, scale: {sc}, "
            f"d_k: {dk}, d_v: {dv}}}\n"
            f"options: {{scale: {['none', 'sqrt_dk'][n % 2]}, softmax: {['naive', 'stable'][n // 2 % 2]}}}\n")
    if n % 3 == 1:
        text += f"overrides: {{\"K[1]\": {rows([rng.normal(size=dk)])[1:-1]}}}\n"
    return text


def run(args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def model_draw(doc, k):
    """A model lesson's parameters drawn with seed k, in DESIGN.md's order:
    E, P (learned positions), per layer Wq Wk Wv Wo (W1 W2 with d_ff > 0), WU
    (separate unembedding); E and P at embed_scale, the rest at scale."""
    m, r = doc["model"], doc["weights"]["random"]
    d, h = int(m["d_model"]), int(m.get("heads", 1))
    g, dk, dv = int(m.get("kv_heads", h)), int(m.get("d_k", d // h)), int(m.get("d_v", d // h))
    sc = float(r.get("scale", 1.0))
    es = float(r.get("embed_scale", sc))
    rs = np.random.RandomState(k)
    out = {"E": rs.randn(len(doc["vocab"]), d) * es}
    if m.get("positions", "learned") == "learned":
        out["P"] = rs.randn(int(m.get("ctx", 16)), d) * es
    for l in range(1, int(m.get("layers", 1)) + 1):
        for name, shape in (("Wq", (d, h * dk)), ("Wk", (d, g * dk)), ("Wv", (d, g * dv)), ("Wo", (h * dv, d))):
            out[f"L{l}.{name}"] = rs.randn(*shape) * sc
        if int(m.get("d_ff", 0)) > 0:
            out[f"L{l}.W1"] = rs.randn(d, int(m["d_ff"])) * sc
            out[f"L{l}.W2"] = rs.randn(int(m["d_ff"]), d) * sc
    if m.get("unembed", "separate") == "separate":
        out["WU"] = rs.randn(d, len(doc["vocab"])) * sc
    return out


def model_variants(path, failures):
    """--json --variant K of a model lesson: every drawn parameter is numpy's
    with seed K; trained weights (weights: {file: ...}) are refused."""
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    if "random" not in doc["weights"]:
        out = run(["--json", "--variant", "7", path])
        if out.returncode != 2 or "reads trained weights from a file" not in out.stderr:
            failures.append(f"{path}: trained weights with --variant: exit {out.returncode}, {out.stderr!r}")
        return 1
    for k in KS:
        out = run(["--json", "--variant", str(k), path])
        got = json.loads(out.stdout)["params"] if out.returncode == 0 else {}
        for name, w in model_draw(doc, k).items():
            if name not in got or np.array(got[name]).shape != w.shape or np.max(np.abs(np.array(got[name]) - w)) > 1e-12:
                failures.append(f"{path} --variant {k}: {name} is not numpy's RandomState({k}) draw")
                break
    return len(KS)


def main():
    failures, checked = [], 0
    tmp = tempfile.mkdtemp()
    lessons = [f for f in sorted(glob.glob("lessons/*.yaml")) + ["tests/live/templates-asks.yaml"]
               if not re.search(r"^model:", open(f, encoding="utf-8").read(), re.M)]  # model lessons: model_variants
    for f in sorted(glob.glob("lessons/*.yaml")) + sorted(glob.glob("tests/worksheet/solve-model*.yaml")) + \
            ["tests/lessons/model-2l.yaml", "tests/lessons/model-17shape.yaml"]:
        if re.search(r"^model:", open(f, encoding="utf-8").read(), re.M):
            checked += model_variants(f, failures)
    rng = np.random.default_rng(15)
    for n in range(12):
        path = os.path.join(tmp, f"gen{n}.yaml")
        with open(path, "w") as f:
            f.write(generated(rng, n))
        lessons.append(path)
    for path in lessons:
        with open(path) as f:
            doc = yaml.safe_load(f)
        if "random" not in doc["weights"] and "variants" in doc:
            # variants: {add: [...], scale, decimals}: the written weights plus
            # np.random.seed(K) randn draws, rounded half away from zero
            v = doc["variants"]
            names = v["add"] if isinstance(v["add"], list) else [v["add"]]
            unit = 10.0 ** v.get("decimals", 2)
            for k in KS:
                np.random.seed(k)
                wantw = {}
                for w in names:
                    own = np.array(doc["weights"][w], dtype=float)
                    d = np.random.randn(*own.shape) * float(v["scale"])
                    wantw[w] = own + np.sign(d) * np.floor(np.abs(d) * unit + 0.5) / unit
                out = run(["--json", "--variant", str(k), path])
                checked += 1
                got = json.loads(out.stdout)["matrices"] if out.returncode == 0 else {}
                for w, m in wantw.items():
                    if out.returncode != 0 or np.max(np.abs(np.array(got[w]) - m)) > 1e-12:
                        failures.append(f"{path} --variant {k}: {w} is not the written {w} plus the variant's draw")
                        break
            continue
        if "random" not in doc["weights"]:
            out = run(["--json", "--variant", "7", path])
            if out.returncode != 2 or "declares no variants" not in out.stderr:
                failures.append(f"{path}: written-out weights with --variant: exit {out.returncode}, {out.stderr!r}")
            checked += 1
            continue
        opts = doc.get("options") or {}
        if int(doc.get("heads", 1)) != 1 or opts.get("mask", "none") != "none" or opts.get("positions", "none") != "none":
            continue  # heads, masks, positions: lessons_modern.py draws and recomputes these variants
        for k in KS:
            out = run(["--json", "--variant", str(k), path])
            name = f"{path} --variant {k}"
            checked += 1
            if out.returncode != 0:
                failures.append(f"{name}: exit {out.returncode}: {out.stderr.strip()}")
                continue
            err = differ(json.loads(out.stdout)["matrices"], want(doc, k), name)
            if err:
                failures.append(err)
    # --variant with the lesson's own seed changes nothing.
    same = run(["--json", "--variant", "42", "1"]).stdout == run(["--json", "1"]).stdout
    checked += 1
    if not same:
        failures.append("lesson 1: --variant 42 (its own seed) differs from no --variant")
    for f in failures:
        print("FAIL:", f)
    print(f"numpy variant: {checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
