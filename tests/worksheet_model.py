"""tests/worksheet_model.py - solve a model lesson's worksheet from its Markdown
alone (tests/worksheet_solve.py hands it the sheet part of the output).

A model sheet (DESIGN.md "From a head to a model") gives the tokens, the
vocab, the model's settings, and either a numpy draw of every parameter
(seed, scale, name and shape, in order) or a weights file; and under each
question the numbers its cell needs one stage back ("This question needs"
tables). Two solvers, written from the definitions, not from the C code:

  by hand   each answer from its question's tables only (a norm of the
            stream row, a dot product with W's columns, the scores and
            softmax of the head's query against the keys it sees, the
            residual, the feed-forward, a logit, a softmax over the vocab);
            the tables are rounded as printed, so an answer is held to the
            sheet's own rule (within 1% or one unit of the last decimal);
  redrawn   when the sheet states a draw: every parameter drawn again with
            numpy's legacy generator and the whole model run forward (pre-norm
            blocks, RoPE, causal or windowed attention, W_O, the feed-forward with
            exact GELU or ReLU, the final norm, the unembedding, p at T_s);
            its answers must print as the key's do, and every number of every
            "needs" table must print as the redrawn model's.
"""
import math
import re

import numpy as np

MINUS = "\u2212"
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"


def num(s):
    s = s.strip().replace(MINUS, "-").replace("\\", "")
    return -np.inf if s in ("-∞", "-inf") else float(s)


def unescape(s):
    return re.sub(r"\\(.)", r"\1", s.strip())


def table_at(lines, k):
    rows = []
    while k < len(lines) and lines[k].startswith("|"):
        if not re.fullmatch(r"[-:| ]+", lines[k]):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", lines[k].strip())[1:-1]])
        k += 1
    return rows, k


def is_model_sheet(text):
    return "\n**Vocab**\n" in text or "\n**词表**\n" in text


ASKED = re.compile(r"^(?:L(\d+)\.)?([A-Za-z_]+?)(\d*)\[(\d+)\](?:\[(\d+)\])?$")


def parse_ask(s):
    m = ASKED.match(s)
    layer, kind, head, i, j = m.groups()
    return int(layer or 0), kind, int(head) if head else 0, int(i) - 1, int(j) - 1 if j else None


class ModelSheet:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.tokens, self.vocab, self.opt = [], [], {}
        self.draw = None
        self.questions = []   # dicts: asked, actions, needs {name: {(r, c): v}}
        self.parse()

    def key(self, label, col):
        label = unescape(label)
        if re.fullmatch(r"\d+", label):
            return int(label) - 1
        m = re.match(r"(\d+) ", label)
        if m and not col:
            return int(m.group(1)) - 1
        return self.vocab.index(label)

    def parse(self):
        L, k, q, caption = self.lines, 0, None, None
        while k < len(L):
            line = L[k]
            if m := re.search(r"np\.random\.seed\((\d+)\)", line):
                seed = int(m.group(1))
                scales = re.findall(r"× (" + NUM + ")", line)
                shapes = re.findall(r"((?:L\d+\.)?[A-Za-z]+\d?) (\d+)[×x](\d+)", line)
                self.draw = (seed, float(scales[0]), float(scales[-1]), [(n, int(r), int(c)) for n, r, c in shapes])
            if m := re.match(r"### \d+ · ", line):
                q = {"asked": None, "actions": [], "needs": {}}
                self.questions.append(q)
            elif q is not None and (m := re.match(r"- `(.*)`", line)):
                q["actions"].append(m.group(1))
            elif m := re.match(r"\*\*(.+?) = \?\*\*$", line):
                q["asked"] = unescape(m.group(1))
                caption = None
            elif m := re.match(r"\*\*([^*]+)\*\*( · .*)?$", line):
                caption = unescape(m.group(1))
                if q is None:
                    rows, k = table_at(L, k + 2)
                    if caption in ("Tokens", "词", "Vocab", "词表"):   # on its side, in tables of 12
                        names = []
                        while rows:
                            names += [unescape(x) for x in rows[1][1:]]
                            rows, k = table_at(L, k + 1) if L[k + 1:k + 2] and L[k + 1].startswith("|") else ([], k)
                        if caption in ("Tokens", "词"):
                            self.tokens = names
                        else:
                            self.vocab = names
                        continue
                    elif caption in ("Model", "模型"):
                        self.opt = {unescape(r[0]): unescape(r[1]) for r in rows[1:]}
                    continue
                if q["asked"] is not None:
                    caption = None
            elif line.startswith("|") and q is not None and caption and q["asked"] is None:
                rows, k = table_at(L, k)
                cells = q["needs"].setdefault(caption, {})
                cols = [self.key(c, True) for c in rows[0][1:]]
                for r in rows[1:]:
                    rk = self.key(r[0], False)
                    for c, v in zip(cols, r[1:]):
                        cells[(rk, c)] = num(v)
                continue
            k += 1
        self.digits = int(self.word("digits"))

    def word(self, name, layer=0):
        v = self.opt.get(f"L{layer}.{name}", self.opt.get(name))
        return re.match(r"[A-Za-z_]+|" + NUM, v).group(0) if v is not None else None

    def window(self, layer):
        v = self.opt.get(f"L{layer}.mask", self.opt.get("mask"))
        m = re.match(r"window (\d+)", v)
        return int(m.group(1)) if m else None


# ---- the formulas ---------------------------------------------------------------------------

def norm(kind, x, g, b, eps):
    x = np.asarray(x, float)
    if kind == "layernorm":
        mu = x.mean()
        return (x - mu) / math.sqrt(((x - mu) ** 2).mean() + eps) * g + b
    if kind == "rmsnorm":
        return x / math.sqrt((x ** 2).mean() + eps) * g
    return x.copy()


def act(kind, x):
    x = np.asarray(x, float)
    if kind == "relu":
        return np.maximum(x, 0.0)
    return x * 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def visible(mask, window, i, n):
    if mask == "causal":
        return list(range(0, i + 1))
    if mask == "window":
        return list(range(max(0, i - window + 1), i + 1))
    return list(range(n))


def sinusoid(n, d, offset):
    P = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            ang = (p + offset) / 10000 ** (2 * (c // 2) / d)
            P[p, c] = math.sin(ang) if c % 2 == 0 else math.cos(ang)
    return P


def turn(vals, cols, dk, base, pos):
    """RoPE: each pair of columns (2m, 2m+1) of a head of dk (0-based, the
    pair within the head) turned by pos · base^(−2m/dk); vals by column."""
    out = dict(zip(cols, vals))
    for c in cols:
        if c % 2 == 0 and c + 1 in out:
            t = pos * base ** (-2 * ((c % dk) // 2) / dk)
            x, y = out[c], out[c + 1]
            out[c], out[c + 1] = x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)
    return np.array([out[c] for c in cols])


def rowvec(cells, name, row=None):
    """The one row of a needs table (or row `row`), by column order."""
    t = cells[name]
    r = row if row is not None else next(iter(t))[0]
    cols = sorted(c for rr, c in t if rr == r)
    return np.array([t[(r, c)] for c in cols]), cols


def matrix(cells, name):
    t = cells[name]
    rows = sorted({r for r, _ in t})
    cols = sorted({c for _, c in t})
    return np.array([[t[(r, c)] for c in cols] for r in rows]), rows, cols


def by_name(needs, suffix):
    return next(n for n in needs if n == suffix or n.endswith("." + suffix))


# ---- by hand: a question from its own tables -----------------------------------------------

def by_hand(sh, q):
    layer, kind, head, i, j = parse_ask(q["asked"])
    nd = q["needs"]
    eps = float(sh.word("eps") or 0)
    nk = sh.word("norm")
    gain = lambda gname, bname, n: (rowvec(nd, gname)[0] if gname in nd else np.ones(n),   # noqa: E731
                                    rowvec(nd, bname)[0] if bname in nd else np.zeros(n))
    L = f"L{layer}."
    if kind == "h_in":
        if layer == 1:
            e, cols = rowvec(nd, "E")
            pos = rowvec(nd, "P")[0] if "P" in nd else (
                sinusoid(i + 1 + int(sh.word("offset") or 0), int(sh.word("d_model")), 0)[i + int(
                    sh.word("offset") or 0)][cols] if sh.word("positions") == "sinusoidal" else 0.0)
            vals = e + pos
        else:
            vals, cols = rowvec(nd, f"L{layer - 1}.h")
    elif kind in ("a", "b", "h_final"):
        src = L + "h_in" if kind == "a" else L + "h_mid" if kind == "b" else by_name(nd, "h")
        x, _ = rowvec(nd, src)
        gn, bn = {"a": (L + "g1", L + "beta1"), "b": (L + "g2", L + "beta2"), "h_final": ("gf", "betaf")}[kind]
        y = norm(nk, x, *gain(gn, bn, len(x)), eps)
        cols = list(range(len(x)))
        vals = y
    elif kind in ("Q", "K", "V"):
        a, _ = rowvec(nd, L + "a")
        W, _, wcols = matrix(nd, L + "W" + kind.lower())
        vals = a @ W
        if sh.word("positions") == "rope" and kind != "V":
            vals = turn(vals, wcols, int(sh.word("d_k")), float(sh.word("rope_base")),
                        i + int(sh.word("offset") or 0))
        if j is not None:   # the asked column: its place among W's columns (a pair with RoPE)
            dk = int(sh.word("d_v" if kind == "V" else "d_k"))
            off = 0 if not head else (head - 1) * dk if kind == "Q" else \
                ((head - 1) * int(sh.word("kv_heads") or sh.word("heads")) // int(sh.word("heads"))) * dk
            return [vals[wcols.index(off + j)]]
        return list(vals)
    elif kind in ("QKt", "S", "A", "O"):
        heads = [head] if head or kind != "O" or f"{L}Q" in nd else \
            sorted(int(n[len(L) + 1:]) for n in nd if re.fullmatch(re.escape(L) + r"Q\d+", n))
        outs = []
        for h in heads:
            hs = str(h) if h else ""
            qv, _ = rowvec(nd, f"{L}Q{hs}")
            K, keys, _ = matrix(nd, f"{L}K{hs}")
            s = K @ qv
            if kind != "QKt" and sh.word("scale", layer) == "sqrt_dk":
                s = s / math.sqrt(len(qv))
            if kind == "QKt":
                full = {kk: v for kk, v in zip(keys, s)}
                outs = [full.get(c, np.nan) for c in range(max(keys) + 1 + (j or 0))]
                break
            if kind == "S":
                outs = [s[keys.index(c)] if c in keys else -np.inf for c in range(max(max(keys), j or 0) + 1)]
                break
            a = softmax(s / float(sh.word("temperature", layer)))
            if kind == "A":
                outs = [a[keys.index(c)] if c in keys else 0.0 for c in range(max(max(keys), j or 0) + 1)]
                break
            V, _, _ = matrix(nd, f"{L}V{hs}")
            outs.extend(a @ V)
        vals = np.array(outs)
        cols = list(range(len(vals)))
    elif kind == "Y":
        o, _ = rowvec(nd, L + "O")
        W, _, cols = matrix(nd, L + "Wo")
        vals = o @ W
    elif kind in ("h_mid", "h") and L + "f" not in nd:
        h, cols = rowvec(nd, L + "h_in")
        o, _ = rowvec(nd, L + "O")
        W, _, _ = matrix(nd, L + "Wo")
        vals = h + o @ W
    elif kind == "h":
        h, cols = rowvec(nd, L + "h_mid")
        f, _ = rowvec(nd, L + "f")
        W, _, _ = matrix(nd, L + "W2")
        vals = h + f @ W + rowvec(nd, L + "b2")[0]
    elif kind in ("u", "f"):
        b, _ = rowvec(nd, L + "b")
        W, _, cols = matrix(nd, L + "W1")
        vals = b @ W + rowvec(nd, L + "b1")[0]
        if kind == "f":
            vals = act(sh.word("act"), vals)
    elif kind == "logits":
        h, _ = rowvec(nd, "h_final")
        if "WU" in nd:
            W, _, cols = matrix(nd, "WU")
            vals = h @ W
        else:
            E, cols, _ = matrix(nd, "E")
            vals = E @ h
    elif kind == "p":
        z, cols = rowvec(nd, "logits")
        vals = softmax(z / float(sh.word("T_s")))
    else:
        raise ValueError(f"the by-hand solver does not know {q['asked']}")
    if j is None:
        return list(vals)
    return [vals[cols.index(j)] if j in cols else vals[j]]


# ---- redrawn: the whole model from the stated draw --------------------------------------------

class Forward:
    def __init__(self, sh):
        self.sh = sh
        seed, scale, embed, shapes = sh.draw
        np.random.seed(seed)
        self.w = {}
        for name, r, c in shapes:
            self.w[name] = np.random.randn(r, c) * (embed if name in ("E", "P") else scale)
        o = sh.word
        self.layers, self.d, self.heads = int(o("layers")), int(o("d_model")), int(o("heads"))
        self.dk, self.dv, self.dff = int(o("d_k")), int(o("d_v")), int(o("d_ff"))
        self.g = int(o("kv_heads") or self.heads)
        self.tok = [sh.vocab.index(t) for t in sh.tokens]
        self.ablated = set()

    def act(self, text):
        if m := re.fullmatch(r"(ablate|restore) L(\d+)\.H(\d+)", text):
            (self.ablated.add if m.group(1) == "ablate" else self.ablated.discard)((int(m.group(2)), int(m.group(3))))
        elif m := re.fullmatch(r"tokens = (.*)", text):
            self.tok = [self.sh.vocab.index(t) for t in m.group(1).split()]
        elif m := re.fullmatch(r"generate (\d+)", text):
            if self.sh.word("next") != "greedy":
                raise ValueError("generate with sampling: not solved here")
            for _ in range(int(m.group(1))):
                self.tok.append(int(np.argmax(self.run()["p"][-1])))
        else:
            raise ValueError(f"the model solver does not know the action {text!r}")

    def run(self):
        sh, o, r = self.sh, self.sh.word, {}
        n, eps, nk = len(self.tok), float(o("eps") or 0), o("norm")
        off = int(o("offset") or 0)
        h = self.w["E"][self.tok].copy()
        if o("positions") == "learned":
            h += self.w["P"][off:off + n]
        elif o("positions") == "sinusoidal":
            h += sinusoid(n, self.d, off)

        for l in range(1, self.layers + 1):
            L = f"L{l}."
            r[L + "h_in"] = h
            a = np.array([norm(nk, x, 1.0, 0.0, eps) for x in h])
            r[L + "a"] = a
            Q, K, V = a @ self.w[L + "Wq"], a @ self.w[L + "Wk"], a @ self.w[L + "Wv"]
            if o("positions") == "rope":
                base, cq, ck = float(o("rope_base")), list(range(Q.shape[1])), list(range(K.shape[1]))
                Q = np.array([turn(Q[p], cq, self.dk, base, p + off) for p in range(n)])
                K = np.array([turn(K[p], ck, self.dk, base, p + off) for p in range(n)])
            r[L + "Q"], r[L + "K"], r[L + "V"] = Q, K, V
            outs = []
            mask, win = o("mask", l), sh.window(l)
            T = float(o("temperature", l))
            for hd in range(1, self.heads + 1):
                kv = (hd - 1) * self.g // self.heads
                q = Q[:, (hd - 1) * self.dk:hd * self.dk]
                k = K[:, kv * self.dk:(kv + 1) * self.dk]
                v = V[:, kv * self.dv:(kv + 1) * self.dv]
                qkt = q @ k.T
                s = qkt / math.sqrt(self.dk) if o("scale", l) == "sqrt_dk" else qkt.copy()
                A = np.zeros((n, n))
                for i in range(n):
                    vis = visible(mask, win, i, n)
                    hide = [c for c in range(n) if c not in vis]
                    s[i, hide] = -np.inf
                    A[i, vis] = softmax(s[i, vis] / T)
                O = A @ v
                if (l, hd) in self.ablated:
                    O = O * 0.0
                hs = str(hd) if self.heads > 1 else ""
                r[f"{L}Q{hs}"], r[f"{L}K{hs}"], r[f"{L}V{hs}"] = q, k, v
                r[f"{L}QKt{hs}"], r[f"{L}S{hs}"], r[f"{L}A{hs}"], r[f"{L}O{hs}"] = qkt, s, A, O
                outs.append(O)
            r[L + "O"] = np.hstack(outs)
            r[L + "Y"] = r[L + "O"] @ self.w[L + "Wo"]
            h = h + r[L + "Y"]
            r[L + "h_mid"] = h
            if self.dff > 0:
                b = np.array([norm(nk, x, 1.0, 0.0, eps) for x in h])
                u = b @ self.w[L + "W1"]
                f = act(o("act"), u)
                r[L + "b"], r[L + "u"], r[L + "f"] = b, u, f
                h = h + f @ self.w[L + "W2"]
            r[L + "h"] = h
        hf = np.array([norm(nk, x, 1.0, 0.0, eps) for x in h])
        r["h_final"] = hf
        r["logits"] = hf @ (self.w["WU"] if o("unembed") == "separate" else self.w["E"].T)
        r["p"] = np.array([softmax(z / float(o("T_s"))) for z in r["logits"]])
        for name, x in self.w.items():
            r[name] = x
        d = self.d
        for l in range(1, self.layers + 1):   # gains 1, biases 0: not drawn
            for g_, b_ in (("g1", "beta1"), ("g2", "beta2")):
                r[f"L{l}.{g_}"], r[f"L{l}.{b_}"] = np.ones((1, d)), np.zeros((1, d))
            r[f"L{l}.b1"], r[f"L{l}.b2"] = np.zeros((1, max(self.dff, 1))), np.zeros((1, d))
        r["gf"], r["betaf"] = np.ones((1, d)), np.zeros((1, d))
        return r


def answer_of(r, asked):
    layer, kind, head, i, j = parse_ask(asked)
    name = (f"L{layer}." if layer else "") + kind + (str(head) if head else "")
    M = r[name]
    return [M[i, j]] if j is not None else list(M[i])


def fmt(v, d):
    if v == -np.inf:
        return "-inf"
    s = f"{v:.{d}f}"
    return "0." + "0" * d if float(s) == 0 else s


def solve_model(text):
    """[(asked, redrawn answers or None, by-hand answers, digits, needs mismatches)]"""
    sh = ModelSheet(text)
    fw = Forward(sh) if sh.draw else None
    out = []
    for q in sh.questions:
        for a in q["actions"]:
            if re.fullmatch(r"step( \d+)?", a):
                fw = None  # training is not redrawn here: from this question on, by hand only (as trained weights)
            if fw:
                fw.act(a)
        hand = by_hand(sh, q)
        red, bad = None, []
        if fw:
            r = fw.run()
            red = answer_of(r, q["asked"])
            dn = sh.digits + 2   # the needs tables print MWS_EXTRA more decimals
            for name, cells in q["needs"].items():
                M = r[name]
                for (rk, c), v in cells.items():
                    if fmt(M[rk, c], dn) != fmt(v, dn):
                        bad.append(f"{name}[{rk + 1}][{c + 1}] {fmt(v, dn)} (redrawn: {fmt(M[rk, c], dn)})")
        out.append((q["asked"], red, hand, sh.digits, bad))
    return out
