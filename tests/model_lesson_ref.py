#!/usr/bin/python3
"""Model lessons' --json against an independent torch float64 forward.

    model_lesson_ref.py QKVTUTOR [COUNT]

Writes COUNT random model lessons (YAML, into a temporary folder; seeds
fixed, so every run writes the same files) across layers 1-4, heads 1-4,
kv_heads (GQA, MQA), d_k/d_v given or not, d_ff 0 and > 0, act relu/gelu,
norm none/layernorm/rmsnorm (and eps), positions learned/sinusoidal/rope/none
(rope_base, offset), tied and separate unembedding, mask none/causal/window W,
scale, the softmax kinds (stable, naive, online with its block), the attention
temperature and sampling (temperature, seed). Weights are either `random:
{seed, scale}`, which this script draws itself (numpy.random.RandomState(seed)
.randn in DESIGN.md's order, model_ref.draw; gains 1, biases 0), or `file:` a
weights file this script writes itself (random gains, betas and biases too).
Each lesson goes through `QKVTUTOR --json LESSON`, and every array of the
object (params, every layer's h_in, a, per head Q K V QKt S A O, Q0 K0 with
RoPE, O, Y, h_mid, b, f, h; h_final, logits, p) must equal this script's own
torch forward, computed from the YAML it wrote, to 1e-12 (relative above 1);
masked entries of S must be null exactly where the mask is; "next" must be
the greedy argmax or numpy's RandomState(seed).choice of the last row of p;
each head's "prev" and "induction" score must be torch's, and be absent
exactly when they do not exist. Some lessons carry a step script and are
also printed with --at K: the object must then hold exactly the stages that
step reaches, with the same numbers.

The block's pieces come from tests/model_ref.py (by import: its norm, the
RMSNorm formula, sinusoidal, RoPE as complex rotations, the visible mask,
the attention with repeat_interleave for shared heads, the scores, the
draw); this script builds the model from its own YAML and walks it. Last, a
one-layer LayerNorm + GELU lesson against torch's own
nn.TransformerEncoderLayer(norm_first=True, activation='gelu', dropout=0)
with zero attention biases; then every built-in model lesson as shipped
(lessons/*.yaml with model:, lesson 17's trained weights file included), its
YAML and weights file read here with PyYAML.
"""
import glob, json, math, os, random, subprocess, sys, tempfile
import numpy as np
import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ in tests/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_ref as mr  # noqa: E402  (its torch pieces; it runs nothing on import)

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/qkvtutor"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 300
LESSONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lessons")
TOL = mr.TOL
torch.set_default_dtype(torch.float64)
fails = mr.fails  # model_ref.close() records there
checked = {"arrays": 0, "numbers": 0, "at": 0}


def close(name, got, want, case):
    g = np.asarray(got, dtype=float)
    checked["arrays"] += 1
    checked["numbers"] += g.size
    mr.close(name, got, want, case)


def fail(case, what):
    fails.append(f"{case}: {what}")


def num(v):
    """A number as YAML (and the loader) read it back to the same double."""
    return repr(float(v)) if not float(v).is_integer() or abs(v) >= 1e16 else repr(int(v))


def rows(m):
    m = np.asarray(m, dtype=float)
    if m.ndim == 1:
        m = m[None, :]
    return "[" + ", ".join("[" + ", ".join(num(x) for x in r) + "]" for r in m) + "]"


VOCAB_POOL = ["<s>"] + [chr(ord("A") + k) for k in range(26)] + ["猫", "狗", "追", "我", "love", "the", "x1", "y_2"]


def random_lesson(rnd, k):
    """A model lesson's settings (model_ref's config keys) and its YAML parts."""
    heads = rnd.choice([1, 1, 2, 2, 3, 4])
    kv = rnd.choice([g for g in range(1, heads + 1) if heads % g == 0])
    positions = rnd.choice(["learned", "sinusoidal", "rope", "none"])
    dk = rnd.choice([2, 4] if positions == "rope" else [1, 2, 3, 4])
    explicit = rnd.random() < 0.25
    d_model = heads * dk if not explicit else rnd.randint(1, 12)
    dv = rnd.randint(1, 4) if explicit else dk
    nv = rnd.choice([2, 3, 5, 8, 17, 27]) if k % 40 else len(VOCAB_POOL)
    ctx = rnd.randint(2, 16) if k % 37 != 5 else 64
    offset = rnd.randint(0, min(3, ctx - 1)) if positions == "learned" else rnd.choice([0, 0, 3, 1000])
    n = rnd.randint(1, (ctx - offset) if positions == "learned" else ctx)
    c = dict(layers=rnd.randint(1, 4), d_model=d_model, heads=heads, kv_heads=kv,
             d_k=dk if explicit else d_model // heads, d_v=dv if explicit else d_model // heads, explicit=explicit,
             d_ff=0 if rnd.random() < 0.35 else rnd.randint(1, 24), act=rnd.choice(["relu", "gelu"]),
             norm=rnd.choice(["none", "layernorm", "rmsnorm"]), eps=rnd.choice([1e-5, 1e-5, 1e-3, 0.5]),
             positions=positions, rope_base=rnd.choice([10000.0, 100.0, 2.5]), offset=offset, ctx=ctx, vocab=nv,
             unembed=rnd.choice(["separate", "tied"]))
    c["names"] = VOCAB_POOL[:nv] if nv == len(VOCAB_POOL) else rnd.sample(VOCAB_POOL, nv)
    pool = rnd.randint(1, nv)
    tok = [rnd.randrange(pool) for _ in range(n)]
    if n >= 4 and rnd.random() < 0.5:  # a repeated half: the induction score has rows
        tok = tok[:n // 2] + tok[:n - n // 2]
    c["tokens"] = tok
    lo = dict(scale=rnd.choice(["sqrt_dk", "sqrt_dk", "none"]), softmax=rnd.choice(["stable", "stable", "naive", "online"]),
              mask=rnd.choice(["causal", "causal", "none", "window"]), window=rnd.randint(1, 4),
              temp=rnd.choice([1.0, 1.0, 0.5, 3.0]), block=rnd.randint(1, 3))
    c["wseed"], c["wscale"] = rnd.randint(0, 10**6), rnd.choice([0.1, 0.5, 1.0])
    if c["norm"] == "none":  # the stream grows layer by layer: keep it well conditioned
        c["wscale"] = min(c["wscale"], 0.3)
        if lo["softmax"] == "naive":
            lo["softmax"] = "online"
    c["attn"] = [lo] * c["layers"]
    c["sample"] = rnd.random() < 0.4
    c["sample_temp"] = rnd.choice([1.0, 0.5, 2.0, 0.8]) if c["sample"] else 1.0
    c["sample_seed"] = rnd.randint(0, 2**32 - 1) if c["sample"] else 0
    c["file"] = rnd.random() < 0.5
    c["steps"] = k % 3 == 1
    return c


def param_names(c):
    """The parameters a model of settings c has, in DESIGN.md's order."""
    ff = c["d_ff"]
    names = ["E"] + (["P"] if c["positions"] == "learned" else [])
    for l in range(1, c["layers"] + 1):
        names += [f"L{l}.{x}" for x in ("Wq", "Wk", "Wv", "Wo")]
        names += [f"L{l}.{x}" for x in {"layernorm": ("g1", "beta1"), "rmsnorm": ("g1",), "none": ()}[c["norm"]]]
        if ff > 0:
            names += [f"L{l}.{x}" for x in ("W1", "b1", "W2", "b2")]
            names += [f"L{l}.{x}" for x in {"layernorm": ("g2", "beta2"), "rmsnorm": ("g2",), "none": ()}[c["norm"]]]
    names += {"layernorm": ["gf", "betaf"], "rmsnorm": ["gf"], "none": []}[c["norm"]]
    names += ["WU"] if c["unembed"] == "separate" else []
    return names


def params_of(c, rnd):
    """Every parameter by name: the draw for random:, or made up here for file:."""
    w = mr.draw(c, c["wseed"], c["wscale"])
    d, ff = c["d_model"], c["d_ff"]
    names = param_names(c)
    r = np.random.RandomState(rnd.randint(0, 2**31))
    out = {}
    for nm in names:
        base = nm.split(".")[-1]
        width = ff if base == "b1" else d
        if base in ("g1", "g2", "gf"):
            out[nm] = np.ones((1, d)) + (0.3 * r.randn(1, d) if c["file"] else 0)
        elif base in ("beta1", "beta2", "betaf", "b1", "b2"):
            out[nm] = 0.3 * r.randn(1, width) if c["file"] else np.zeros((1, width))
        elif c["file"]:
            out[nm] = w[nm] * r.choice([0.5, 1.0, 2.0]) + 0.01 * r.randn(*w[nm].shape)
        else:
            out[nm] = w[nm]
    return names, out


def model_yaml(c):
    keys = ["layers", "d_model", "heads", "kv_heads"] + (["d_k", "d_v"] if c["explicit"] else [])
    keys += ["d_ff", "act", "norm", "eps", "positions"] + (["rope_base"] if c["positions"] == "rope" else [])
    keys += ["ctx", "unembed"]
    return "{" + ", ".join(f"{k}: {num(c[k]) if isinstance(c[k], float) else c[k]}" for k in keys) + "}"


def steps_of(c, rnd):
    """A short script: a few (layer, stage) places in order, the last (next) or not."""
    places = []
    for l in range(1, c["layers"] + 1):
        for s in range(1, 8):
            if s < 7 or c["d_ff"] > 0:
                places.append((l, s))
    places.append((c["layers"], 8))
    pick = sorted(rnd.sample(range(len(places)), min(3, len(places))))
    return [places[i] for i in pick]


STAGE_KEYS = ["", "embed", "qkv", "scores", "softmax", "output", "project", "ffn", "next"]


def write_lesson(c, names, P, folder, k):
    q = lambda s: json.dumps(s, ensure_ascii=False)
    lo = c["attn"][0]
    mask = f"window {lo['window']}" if lo["mask"] == "window" else lo["mask"]
    y = [f"format: qkvtutor/1", f"title: {{en: {q('reference lesson ' + str(k))}, zh: {q('参考课 ' + str(k))}}}",
         "vocab: [" + ", ".join(q(s) for s in c["names"]) + "]",
         "tokens: [" + ", ".join(q(c["names"][t]) for t in c["tokens"]) + "]",
         f"model: {model_yaml(c)}",
         f"options: {{mask: {mask}, scale: {lo['scale']}, softmax: {lo['softmax']}, temperature: {num(lo['temp'])}, "
         f"block: {lo['block']}, offset: {c['offset']}}}"]
    if c["sample"]:
        y.append(f"sampling: {{temperature: {num(c['sample_temp'])}, seed: {c['sample_seed']}}}")
    if c["file"]:
        wname = f"weights-{k}.yaml"
        w = [f"format: qkvtutor-weights/1", f"model: {model_yaml(c)}", "params:"]
        w += [f"  {nm}: {rows(P[nm])}" for nm in names]
        with open(os.path.join(folder, wname), "w", encoding="utf-8") as f:
            f.write("\n".join(w) + "\n")
        y.append(f"weights: {{file: {wname}}}")
    else:
        y.append(f"weights: {{random: {{seed: {c['wseed']}, scale: {num(c['wscale'])}}}}}")
    if c["steps"]:
        y.append("steps:")
        for (l, s) in c["script"]:
            y.append(f"  - {{stage: {STAGE_KEYS[s]}, layer: {l}}}")
    path = os.path.join(folder, f"lesson-{k}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(y) + "\n")
    return path


def nulls_to_inf(S):
    return [[-math.inf if x is None else x for x in r] for r in S]


def forward(c, P, out, case):
    """Every stage in torch, from the parameters this script wrote, compared
    with the JSON's as it goes (the attention by model_ref.attention, on the
    layer's object with S's nulls read as -inf: the nulls must be exactly
    where torch's mask puts -inf). Returns the heads' A, or None."""
    T = {k: mr.T(v) for k, v in P.items()}
    tok, n, eps, d = c["tokens"], len(c["tokens"]), c["eps"], c["d_model"]
    heads_A = {}
    if len(out["layers"]) != c["layers"]:
        fail(case, f"{len(out['layers'])} layers, expected {c['layers']}")
        return None
    h = T["E"][tok]
    if c["positions"] == "learned":
        h = h + T["P"][c["offset"]:c["offset"] + n]
    elif c["positions"] == "sinusoidal":
        h = h + mr.sinusoidal(n, d, c["offset"])
    for l in range(1, c["layers"] + 1):
        lo, L, J = c["attn"][l - 1], (lambda nm: T.get(f"L{l}.{nm}")), dict(out["layers"][l - 1])
        want_keys = ["h_in", "a", "per_head", "O", "Y", "h_mid"] + (["b", "f"] if c["d_ff"] else []) + ["h"]
        want_keys[3:3] = ["Q0", "K0"] if c["positions"] == "rope" else []
        if list(J) != want_keys:
            fail(case, f"L{l}'s keys {list(J)}, expected {want_keys}")
            return None
        J["per_head"] = [dict(ph, S=nulls_to_inf(ph["S"])) for ph in J["per_head"]]
        if len(J["per_head"]) != c["heads"] or any(list(ph) != HEAD_KEYS for ph in J["per_head"]):
            fail(case, f"L{l}: per_head is not {c['heads']} x {HEAD_KEYS}")
            return None
        close(f"L{l}.h_in", J["h_in"], h, case)
        g1, b1 = L("g1"), L("beta1")
        a = mr.norm(c["norm"], h, None if g1 is None else g1[0], None if b1 is None else b1[0], eps)
        close(f"L{l}.a", J["a"], a, case)
        w = {k: L(k) for k in ("Wq", "Wk", "Wv", "Wo")}
        O, A = mr.attention(c, lo, a, w, l, [], J, case)
        checked["arrays"] += c["heads"] * 7 + 1
        heads_A[l] = A
        Y = O @ w["Wo"]
        close(f"L{l}.Y", J["Y"], Y, case)
        h = h + Y
        close(f"L{l}.h_mid", J["h_mid"], h, case)
        if c["d_ff"] > 0:
            g2, b2 = L("g2"), L("beta2")
            b = mr.norm(c["norm"], h, None if g2 is None else g2[0], None if b2 is None else b2[0], eps)
            close(f"L{l}.b", J["b"], b, case)
            u = b @ L("W1") + L("b1")[0]
            f = F.relu(u) if c["act"] == "relu" else F.gelu(u)
            close(f"L{l}.f", J["f"], f, case)
            h = h + (f @ L("W2") + L("b2")[0])
        close(f"L{l}.h", J["h"], h, case)
    gf, bf = T.get("gf"), T.get("betaf")
    hf = mr.norm(c["norm"], h, None if gf is None else gf[0], None if bf is None else bf[0], eps)
    close("h_final", out["h_final"], hf, case)
    logits = hf @ (T["E"].T if c["unembed"] == "tied" else T["WU"])
    close("logits", out["logits"], logits, case)
    close("p", out["p"], torch.softmax(logits / c["sample_temp"], dim=-1), case)
    return heads_A


HEAD_KEYS = ["Q", "K", "V", "QKt", "S", "A", "O"]
TOP_KEYS = ["format", "title", "tokens", "options", "d_model", "d_k", "d_v", "heads", "model", "vocab", "params",
            "layers", "h_final", "logits", "p", "next", "scores"]


def lin(l, s):
    return l * 7 + 1 if s == 8 else (l - 1) * 7 + s


def compare(c, names, P, out, case):
    """The whole object (no --at): keys, settings, params, every stage, next, scores."""
    if list(out) != TOP_KEYS:
        fail(case, f"keys {list(out)}, expected {TOP_KEYS}")
        return
    if list(out["params"]) != names:
        fail(case, f"params {list(out['params'])}, expected {names}")
        return
    for nm in names:
        checked["arrays"] += 1
        checked["numbers"] += P[nm].size
        if not np.array_equal(np.asarray(out["params"][nm], dtype=float), P[nm]):
            fail(case, f"{nm} is not what the lesson gave, bit for bit")
    if out["tokens"] != [c["names"][t] for t in c["tokens"]] or out["vocab"] != c["names"]:
        fail(case, "tokens or vocab differ")
    m = out["model"]
    for k in ("layers", "d_model", "heads", "kv_heads", "d_k", "d_v", "d_ff", "act", "norm", "eps", "positions",
              "offset", "ctx", "vocab", "unembed"):
        if m.get(k) != c[k]:
            fail(case, f"model.{k} {m.get(k)!r}, the lesson's {c[k]!r}")
    if m["sampling"].get("temperature") != c["sample_temp"] or m["sampling"].get("seed") != (
            c["sample_seed"] if c["sample"] else None):
        fail(case, f"model.sampling {m['sampling']}")
    heads_A = forward(c, P, out, case)
    if heads_A is None:
        return
    row = np.asarray(out["p"][-1], dtype=float)  # torch's to 1e-12 (checked)
    k = int(np.random.RandomState(c["sample_seed"]).choice(c["vocab"], p=row)) if c["sample"] else int(np.argmax(row))
    if out["next"] != c["names"][k]:
        fail(case, f"next {out['next']!r}, expected {c['names'][k]!r}")
    compare_scores(c, out["scores"], heads_A, case)


def compare_at(c, full, part, upto, case):
    """--at K's object: exactly the stages up to (layer, stage) `upto`, each
    array the whole run's, bit for bit."""
    lay = {"h_in": 1, "a": 1, "per_head": 2, "Q0": 2, "K0": 2, "O": 5, "Y": 6, "h_mid": 6, "b": 7, "f": 7,
           "h": 7 if c["d_ff"] else 6}
    hst = dict(Q=2, K=2, V=2, QKt=3, S=3, A=4, O=5)
    at = lin(*upto)
    want = {k: full[k] for k in full if k not in ("layers", "h_final", "logits", "p", "next", "scores")}
    if at >= lin(c["layers"], 8):
        want.update({k: full[k] for k in ("h_final", "logits", "p", "next")})
    want["layers"] = []
    for l, L in enumerate(full["layers"], 1):
        if at < lin(l, 1):
            break
        d = {k: v for k, v in L.items() if at >= lin(l, lay[k])}
        if "per_head" in d:
            d["per_head"] = [{k: v for k, v in ph.items() if at >= lin(l, hst[k])} for ph in d["per_head"]]
        want["layers"].append(d)
    want["scores"] = [s for s in full["scores"] if at >= lin(s["layer"], 4)]
    if json.dumps(part, sort_keys=False) != json.dumps({k: want[k] for k in TOP_KEYS if k in want}):
        fail(case, f"--at {upto}: not the whole run's stages up to there")


def compare_scores(c, scores, heads_A, case):
    want = [(l, h) for l in range(1, c["layers"] + 1) for h in range(1, c["heads"] + 1)]
    got = [(s["layer"], s["head"]) for s in scores]
    if got != want:
        fail(case, f"scores for {got}, expected {want}")
        return
    for s in scores:
        prev, ind = mr.scores_of(heads_A[s["layer"]][s["head"] - 1], c["tokens"])
        for nm, wnt in (("prev", prev), ("induction", ind)):
            g = s.get(nm)
            if (g is None) != (wnt is None) or (g is not None and abs(g - wnt) > TOL):
                fail(case, f"L{s['layer']}.H{s['head']} {nm} {g}, torch {wnt}")
            elif g is not None:
                mr.worst[nm] = max(mr.worst.get(nm, 0.0), abs(g - wnt))


def run(args):
    p = subprocess.run([BIN] + args, capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode("utf-8", "replace").strip()
    return json.loads(p.stdout.decode("utf-8")), None


def run_lessons(folder):
    rnd = random.Random(20261202)
    kinds = set()
    for k in range(COUNT):
        c = random_lesson(rnd, k)
        if c["steps"]:
            c["script"] = steps_of(c, rnd)
        names, P = params_of(c, rnd)
        path = write_lesson(c, names, P, folder, k)
        case = f"lesson {k} ({os.path.basename(path)})"
        out, err = run(["--json", path])
        if out is None:
            fail(case, f"--json failed: {err}")
            continue
        compare(c, names, P, out, case)
        if c["steps"]:
            at = rnd.randint(1, len(c["script"]))
            part, err = run(["--json", "--at", str(at), path])
            checked["at"] += 1
            if part is None:
                fail(case, f"--json --at {at} failed: {err}")
            else:
                compare_at(c, out, part, c["script"][at - 1], f"{case} --at {at}")
        kinds |= {c["norm"], c["positions"], c["unembed"], c["act"], c["attn"][0]["mask"], c["attn"][0]["softmax"],
                  "file" if c["file"] else "random", "sampled" if c["sample"] else "greedy",
                  "ffn" if c["d_ff"] else "attention-only", f"layers {c['layers']}", f"heads {c['heads']}",
                  "gqa" if c["kv_heads"] < c["heads"] else "mha"}
    print(f"model_lesson_ref: {COUNT} lessons, {checked['at']} of them also --at K; "
          f"{checked['arrays']} arrays, {checked['numbers']} numbers compared")
    print("model_lesson_ref: kinds: " + ", ".join(sorted(kinds)))


def shipped_lesson(path):
    """A built-in model lesson read here (PyYAML): its settings in this
    script's terms (the loader's defaults where it says nothing) and its
    parameters, drawn (random:, with embed_scale) or read from its weights
    file (file:, relative to the lesson)."""
    import yaml
    with open(path, encoding="utf-8") as f:
        y = yaml.safe_load(f)
    m = y["model"]
    c = dict(layers=1, d_model=8, heads=1, d_ff=0, act="gelu", norm="layernorm", eps=1e-5, positions="learned",
             rope_base=10000.0, ctx=16, unembed="separate")
    c.update({k: v for k, v in m.items()})
    c["kv_heads"] = m.get("kv_heads", c["heads"])
    c["d_k"] = m.get("d_k", c["d_model"] // c["heads"])
    c["d_v"] = m.get("d_v", c["d_model"] // c["heads"])
    c["names"] = [str(v) for v in y["vocab"]]
    c["vocab"] = len(c["names"])
    c["tokens"] = [c["names"].index(str(t)) for t in y["tokens"]]
    o = y.get("options") or {}
    mask = str(o.get("mask", "causal"))
    lo = dict(scale=o.get("scale", "sqrt_dk"), softmax=o.get("softmax", "stable"),
              mask="window" if mask.startswith("window") else mask,
              window=int(mask.split()[1]) if mask.startswith("window") else 1,
              temp=float(o.get("temperature", 1.0)), block=int(o.get("block", 2)))
    c["offset"] = int(o.get("offset", 0))
    c["attn"] = [lo] * c["layers"]
    smp = y.get("sampling")
    c["sample"] = smp is not None
    c["sample_temp"] = float(smp.get("temperature", 1.0)) if smp else 1.0
    c["sample_seed"] = int(smp.get("seed", 0)) if smp else 0
    names = param_names(c)
    w = y["weights"]
    if "file" in w:
        with open(os.path.join(os.path.dirname(path), w["file"]), encoding="utf-8") as f:
            wf = yaml.safe_load(f)
        if wf["format"] != "qkvtutor-weights/1" or list(wf["params"]) != names:
            fail(path, f"its weights file holds {list(wf['params'])}, expected {names}")
        P = {nm: np.asarray(wf["params"][nm], dtype=float).reshape(-1, len(wf["params"][nm][0])) for nm in names}
    else:
        r = w["random"]
        d = mr.draw(c, int(r["seed"]), float(r["scale"]), r.get("embed_scale"))
        P = {}
        for nm in names:
            base = nm.split(".")[-1]
            width = c["d_ff"] if base == "b1" else c["d_model"]
            P[nm] = d[nm] if nm in d else (np.ones((1, width)) if base in ("g1", "g2", "gf") else np.zeros((1, width)))
    return c, names, P


def check_shipped(lessons):
    """Every built-in model lesson's --json (the lesson as written) against
    this script's forward of the YAML and weights file it reads itself."""
    done = []
    for path in lessons:
        with open(path, encoding="utf-8") as f:
            if not any(line.startswith("model:") for line in f):
                continue
        c, names, P = shipped_lesson(path)
        out, err = run(["--json", path])
        if out is None:
            fail(path, f"--json failed: {err}")
            continue
        compare(c, names, P, out, os.path.basename(path))
        done.append(os.path.basename(path))
    if not done:
        fail("shipped", "no built-in model lesson found")
    print(f"model_lesson_ref: the built-in model lessons as shipped (their YAML and weights files read here): "
          f"{', '.join(done)}")


def check_encoder_layer(folder):
    """A 1-layer LayerNorm + GELU lesson against nn.TransformerEncoderLayer."""
    rnd = random.Random(7)
    for k, (heads, d, ff, mask) in enumerate([(1, 4, 8, "causal"), (2, 6, 5, "none"), (4, 8, 32, "causal")]):
        c = dict(layers=1, d_model=d, heads=heads, kv_heads=heads, d_k=d // heads, d_v=d // heads, explicit=False,
                 d_ff=ff, act="gelu", norm="layernorm", eps=1e-5, positions="learned", rope_base=10000.0, offset=0,
                 ctx=8, vocab=6, unembed="separate", names=["a", "b", "c", "d", "e", "f"], tokens=[0, 3, 1, 5, 0, 3, 2],
                 attn=[dict(scale="sqrt_dk", softmax="stable", mask=mask, window=1, temp=1.0, block=2)],
                 wseed=11 + k, wscale=0.7, sample=False, sample_temp=1.0, sample_seed=0, file=True, steps=False)
        names, P = params_of(c, rnd)
        path = write_lesson(c, names, P, folder, 10000 + k)
        out, err = run(["--json", path])
        if out is None:
            fail(f"encoder {k}", err)
            continue
        T = {n: mr.T(v) for n, v in P.items()}
        L = out["layers"][0]
        x = mr.T(L["h_in"])
        close("nn.TransformerEncoderLayer", L["h"], mr.encoder_layer(T, d, heads, ff, x, mask), f"encoder {k}")
        ln = torch.nn.LayerNorm(d, eps=1e-5)
        with torch.no_grad():
            ln.weight.copy_(T["L1.g1"][0])
            ln.bias.copy_(T["L1.beta1"][0])
        close("nn.LayerNorm", L["a"], ln(x), f"encoder {k}")
    print("model_lesson_ref: one block against torch's nn.TransformerEncoderLayer(norm_first=True, gelu) and "
          "nn.LayerNorm: 3 lessons")


def main():
    with tempfile.TemporaryDirectory(prefix="qkv-model-lessons-") as folder:
        run_lessons(folder)
        check_encoder_layer(folder)
    check_shipped(sorted(glob.glob(os.path.join(LESSONS, "*.yaml"))))
    print("model_lesson_ref: largest differences: " + ", ".join(f"{k} {v:.2g}" for k, v in sorted(mr.worst.items())))
    if fails:
        for f in fails[:40]:
            print("FAIL: " + f)
        sys.exit(f"model_lesson_ref: {len(fails)} failures")
    print(f"model_lesson_ref: every array agrees to {TOL:g}")


if __name__ == "__main__":
    main()
