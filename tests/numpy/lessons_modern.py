#!/usr/bin/python3
"""Lessons 10-13 (today's models) against numpy, step by step.

For every step of lessons/10-13 that has `expect:`, reads the state after
that step from `qkvtutor --json --at N` (X, the weights and the options,
after the step's `do:` actions: appended tokens, window, RoPE, offset,
online softmax, shared K/V heads), recomputes every matrix with numpy in its
own way (rotation matrices for RoPE, a boolean mask for the window, a
per-head loop for shared K/V heads, the online blocks in a Python loop),
and requires
  - every matrix the JSON prints to agree with numpy to 1e-12, and
  - every expect: value of the step to hold for numpy's number (within half
    a unit of its last written decimal), so the lesson's figures are
    numpy's, not only the C code's.
Usage: lessons_modern.py BINARY [LESSON...]
"""
import glob
import json
import math
import re
import subprocess
import sys

import numpy as np
import yaml

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
LESSONS = sys.argv[2:] or sorted(glob.glob("lessons/1[0-3]-*.yaml"))
TOL = 1e-12


def rope_rows(M, heads, dk, offset, base):
    out = M.copy()
    for r in range(M.shape[0]):
        p = r + offset
        R = np.zeros((dk, dk))
        for m in range(dk // 2):
            t = p * base ** (-2.0 * m / dk)
            R[2 * m:2 * m + 2, 2 * m:2 * m + 2] = [[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]
        out[r] = M[r] @ np.kron(np.eye(heads), R)
    return out


def online(s_row, vis_row, V, block):
    m, l, o = -np.inf, 0.0, np.zeros(V.shape[1])
    for k0 in range(0, len(s_row), block):
        ks = [k for k in range(k0, min(k0 + block, len(s_row))) if vis_row[k]]
        if not ks:
            continue
        m_new = max(m, max(s_row[k] for k in ks))
        r = math.exp(m - m_new) if m > -np.inf else 0.0
        p = {k: math.exp(s_row[k] - m_new) for k in ks}
        l = l * r + sum(p.values())
        o = o * r + sum(p[k] * V[k] for k in ks)
        m = m_new
    a = np.array([math.exp(s_row[k] - m) / l if vis_row[k] else 0.0 for k in range(len(s_row))])
    return a, o / l


def recompute(js):
    o, mats = js["options"], js["matrices"]
    X = np.array(mats["X"], dtype=float)
    n, h, g = X.shape[0], js.get("heads", 1), o["kv_heads"]
    Wq, Wk, Wv = (np.array(mats[k], dtype=float) for k in ("Wq", "Wk", "Wv"))
    dk, dv = Wq.shape[1] // h, Wv.shape[1] // g
    out = {}
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    if o["positions"] == "sinusoidal":
        raise SystemExit("sinusoidal positions: not in these lessons' expects")
    if o["positions"] == "rope":
        out["Q0"], out["K0"] = Q, K
        Q, K = rope_rows(Q, h, dk, o["offset"], o["rope_base"]), rope_rows(K, g, dk, o["offset"], o["rope_base"])
    out.update(Q=Q, K=K, V=V)
    i, j = np.indices((n, n))
    vis = np.ones((n, n), dtype=bool)
    if o["mask"] == "causal":
        vis = j <= i
    elif o["mask"].startswith("window"):
        vis = (j <= i) & (j > i - int(o["mask"].split()[1]))
    per = []
    for k in range(h):
        kv = k * g // h
        q, kk, v = Q[:, k * dk:(k + 1) * dk], K[:, kv * dk:(kv + 1) * dk], V[:, kv * dv:(kv + 1) * dv]
        qkt = q @ kk.T
        s = qkt / math.sqrt(dk) if o["scale"] == "sqrt_dk" else qkt
        s = np.where(vis, s, -np.inf) / o["temperature"]
        if o["softmax"] == "online":
            rows = [online(s[r], vis[r], v, o["block"]) for r in range(n)]
            a, oo = np.array([x[0] for x in rows]), np.array([x[1] for x in rows])
        else:
            e = np.exp(s - s.max(axis=1, keepdims=True)) if o["softmax"] == "stable" else np.exp(s)
            a = e / e.sum(axis=1, keepdims=True)
            oo = a @ v
        per.append({"Q": q, "K": kk, "V": v, "S": s * o["temperature"], "A": a, "O": oo})
    out["O"] = np.hstack([p["O"] for p in per])
    for name in ("S", "A"):
        out[name] = per[0][name]
    if h > 1:
        for k, p in enumerate(per):
            for name, m in p.items():
                out[f"{name}{k + 1}"] = m
        out["Y"] = out["O"] @ np.array(mats["Wo"], dtype=float)
    return out, per


def close(a, b):
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    if a.shape != b.shape:
        return False, float("inf")
    fin = np.isfinite(b)
    if not np.array_equal(np.isfinite(a), fin):
        return False, float("inf")
    d = np.abs(a[fin] - b[fin]) / np.maximum(1.0, np.abs(b[fin]))
    worst = float(d.max()) if d.size else 0.0
    return worst <= TOL, worst


def json_mats(js):
    m = {k: [[float("-inf") if x is None else x for x in row] for row in v] for k, v in js["matrices"].items()}
    for k, p in enumerate(js.get("per_head", [])):
        for name, v in p.items():
            m[f"{name}{k + 1}"] = [[float("-inf") if x is None else x for x in row] for row in v]
    return m


def check_step(path, k, step, fails):
    js = json.loads(subprocess.run([BIN, "--json", "--at", str(k), path], check=True, capture_output=True,
                                   text=True).stdout)
    ref, _ = recompute(js)
    got = json_mats(js)
    worst = 0.0
    for name, M in ref.items():
        if name in got:
            ok, d = close(got[name], M)
            worst = max(worst, d)
            if not ok:
                fails.append(f"{path} step {k}: {name} differs from numpy by {d:.3g}")
    for key, want in (step.get("expect") or {}).items():
        m = re.fullmatch(r"([A-Za-z]+\d*)\[(\d+)\](?:\[(\d+)\])?", key)
        name, i, j = m.group(1), int(m.group(2)) - 1, m.group(3)
        row = ref[name][i]
        vals = [row[int(j) - 1]] if j else list(row)
        texts = want if isinstance(want, list) else [want]   # as written (BaseLoader): the decimals count
        wants = [float(t) for t in texts]
        for v, w, t in zip(vals, wants, texts):
            dec = len(t.split(".")[1]) if "." in t else 0
            if abs(v - float(w)) > 0.5 * 10 ** -dec + 1e-12:
                fails.append(f"{path} step {k}: expect {key} = {w}, numpy gives {v:.6f}")
    return worst


KS = [0, 1, 7, 42, 2026, 4294967295]


def check_variants(path, lesson, fails):
    """--json --variant K: W_Q, W_K, W_V (kv_heads wide), W_O drawn as numpy's
    RandomState(K).randn in that order, bit for bit, and every matrix of the
    lesson as written recomputed."""
    r = lesson["weights"].get("random")
    if r is None:
        return 0
    d, h = len(lesson["X"][0]), int(lesson.get("heads", 1))
    g = int(lesson.get("kv_heads", h))
    dk = int(r["d_k"])
    dv, sc = int(r.get("d_v", dk)), float(r.get("scale", 1.0))
    for k in KS:
        js = json.loads(subprocess.run([BIN, "--json", "--variant", str(k), path], check=True, capture_output=True,
                                       text=True).stdout)
        rs = np.random.RandomState(k)
        shapes = [("Wq", (d, h * dk)), ("Wk", (d, g * dk)), ("Wv", (d, g * dv))]
        if "Wo" in js["matrices"]:
            shapes.append(("Wo", (h * dv, len(js["matrices"]["Wo"][0]))))
        for name, shape in shapes:
            want = rs.randn(*shape) * sc
            if not np.array_equal(np.array(js["matrices"][name], dtype=float), want):
                fails.append(f"{path} --variant {k}: {name} is not numpy's draw")
        ref, _ = recompute(js)
        got = json_mats(js)
        for name, M in ref.items():
            if name in got and not close(got[name], M)[0]:
                fails.append(f"{path} --variant {k}: {name} differs from numpy")
    return len(KS)


def main():
    fails, checked, worst = [], 0, 0.0
    variants = 0
    for path in LESSONS:
        with open(path, encoding="utf-8") as f:
            lesson = yaml.load(f, Loader=yaml.BaseLoader)
        variants += check_variants(path, lesson, fails)
        for k, step in enumerate(lesson["steps"], 1):
            if not step.get("expect"):
                continue
            worst = max(worst, check_step(path, k, step, fails))
            checked += len(step.get("expect") or {})
    for f in fails:
        print("FAIL:", f)
    print(f"lessons 10-13 against numpy: {len(LESSONS)} lessons, {checked} expectations, {variants} variants, "
          f"largest matrix difference {worst:.2g}, {len(fails)} failures")
    sys.exit(1 if fails else 0)


main()
