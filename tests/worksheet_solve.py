#!/usr/bin/python3
"""tests/worksheet_solve.py - solve a worksheet from its Markdown alone.

    worksheet_solve.py BINARY [LESSON ...] [--variants 1-30] [--langs en,zh]
    worksheet_solve.py --sheet FILE.md          (print the solver's answers)

For every lesson, language and variant it runs `BINARY --worksheet
--answers`, cuts the output at the page break before the key, and hands the
solver only the sheet part: the givens tables (tokens, X, P, the weights,
rows of Q/K/V the lesson sets, heads and their columns, the options) and,
per question, the action lines the lesson applies before it. The solver
knows nothing of the C code or the lesson file: it parses the text and
computes attention with numpy (positions, scale, mask, temperature, the
softmax, heads, W_O, and gradient steps on Wq and Wk towards the targets at
the learning rate), and today's models from their definitions: append (a
new last row of X, everything recomputed), a sliding window of W keys
ending at the query, query heads sharing K/V heads by group (kv_heads, as
the heads table shows), RoPE (pairs of each head's columns of Q and K
turned by position × base^(−2i/d_k), position = offset + row) and the
online softmax (blocks of keys, the running max and sum rescaled). Every answer it gets must print, with the sheet's
decimals, as the key's answer does; one that only meets the sheet's own
rule (within 1% or one unit of the last decimal) is counted "close" and
fails too, since the givens are exact: a sheet that states a numpy draw is
redrawn (and checked against its tables), others write their numbers with
every decimal they have.

A model lesson's sheet (a vocab and a model: table) goes to
tests/worksheet_model.py: by hand from each question's tables (held to the
sheet's rule, since those tables are rounded results) and, when the sheet
states its draw, from the whole model redrawn (print-equal, every table
checked); a lesson with trained weights has no variants.

The last line is "worksheet-solve: N passed, M failed".
"""
import re
import subprocess
import sys

sys.path = [p for p in sys.path if not p.endswith("tests")]   # tests/numpy/ is not numpy
sys.path.append(__file__.rsplit("/", 1)[0] if "/" in __file__ else ".")   # but worksheet_model.py is here
import numpy as np  # noqa: E402
import worksheet_model as wm  # noqa: E402  (tests/worksheet_model.py: model lessons' sheets)

MINUS = "\u2212"
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"


def num(s):
    s = s.strip().replace(MINUS, "-").replace("\\", "")
    if s in ("-∞", "-inf"):
        return -np.inf
    return float(s)


def unescape(s):
    return re.sub(r"\\(.)", r"\1", s.strip())


# ---- parsing the Markdown ------------------------------------------------------------

def tables_after(lines, k):
    """The table starting at the first '|' line at or after k: (rows, next k)."""
    while k < len(lines) and not lines[k].startswith("|"):
        k += 1
    rows = []
    while k < len(lines) and lines[k].startswith("|"):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", lines[k].strip())[1:-1]]
        if not re.fullmatch(r"[-:| ]+", lines[k]):
            rows.append(cells)
        k += 1
    return rows, k


class Sheet:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.mats = {}        # name -> np.array (givens)
        self.row_labels = {}  # name -> labels
        self.over = {"Q": {}, "K": {}, "V": {}}
        self.options = {}
        self.tokens = []
        self.source = None    # cross-attention's source tokens (a second "#" table)
        self.pad = None       # one 0/1 per key
        self.head_cols = None
        self.window = None
        self.draw = None
        self.questions = []   # (name, [actions])
        self.parse()

    def parse(self):
        L = self.lines
        k = 0
        while k < len(L):
            line = L[k]
            m = re.search(r"np\.random\.seed\((\d+)\)(.*)", line)
            if m:   # the seed, the factor after ×, the matrices in the order named
                self.draw = (int(m.group(1)), float(re.search(r"× (" + NUM + ")", m.group(2)).group(1)),
                             re.findall(r"W[qkvo]|Xs", m.group(2)))
            m = re.match(r"\*\*([^*\[\]]+)\*\*", line)
            if m and not self.questions:
                name = m.group(1)
                rows, after = tables_after(L, k + 1)
                if name in ("X", "Xs", "P", "Wq", "Wk", "Wv", "Wo"):
                    self.mats[name] = np.array([[num(c) for c in r[1:]] for r in rows[1:]])
                elif name in ("Q", "K", "V"):
                    for r in rows[1:]:
                        self.over[name][self.tokens.index(unescape(r[0]))] = np.array([num(c) for c in r[1:]])
                elif rows and rows[0][0] == "#" and self.tokens:   # the second: cross-attention's source
                    self.source = [unescape(r[1]) for r in rows[1:]]
                elif rows and rows[0][0] == "#":
                    self.tokens = [unescape(r[1]) for r in rows[1:]]
                elif rows and len(rows[0]) == 3 and "Wq" in rows[0][1]:   # heads and their columns
                    self.head_cols = [(self.span(r[1]), None, self.span(r[1]), self.span(r[2]), self.span(r[2]))
                                      for r in rows[1:]]
                elif rows and len(rows[0]) == 6 and "Wq" in rows[0][1]:   # query heads sharing K/V heads
                    self.head_cols = [(self.span(r[1]), int(r[2]) - 1, self.span(r[3]), self.span(r[4]),
                                       self.span(r[5])) for r in rows[1:]]
                elif rows and any(unescape(r[0]) == "d_model" for r in rows):
                    for r in rows[1:]:
                        if unescape(r[0]) == "pad":   # "0 0 1: ...": one 0/1 per key
                            self.pad = [int(x) for x in re.split("[:：]", unescape(r[1]))[0].split()]
                            continue
                        self.options[unescape(r[0])] = re.match(r"[A-Za-z_]+|" + NUM, unescape(r[1])).group(0)
                        if m := re.match(r"window (\d+)\b", unescape(r[1])):
                            self.window = int(m.group(1))
                else:
                    k += 1
                    continue
                k = after
                continue
            if re.match(r"### (\d+) · ", line):
                self.questions.append([None, []])
            elif self.questions:
                m = re.match(r"- `(.*)`$", line)
                if m:
                    self.questions[-1][1].append(m.group(1))
                m = re.match(r"\*\*(.+) = \?\*\*$", line)
                if m:
                    self.questions[-1][0] = m.group(1)
            k += 1

    @staticmethod
    def span(s):
        a, b = re.split(r"[–-]", s)
        return int(a) - 1, int(b)


# ---- the state and its pipeline ----------------------------------------------------------

def positions(n, d, offset=0):
    P = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            ang = (p + offset) / 10000 ** ((c - c % 2) / d)
            P[p, c] = np.sin(ang) if c % 2 == 0 else np.cos(ang)
    return P


def rope(M, dk, base, offset, keep):
    """Each row's pairs of columns (2m, 2m+1) within a head of dk turned by
    (offset + row) · base^(−2m/dk); keep[i] holds the columns set by hand."""
    R = M.copy()
    for i in range(len(M)):
        for c in range(0, M.shape[1] - 1, 2):
            if c in keep.get(i, ()):
                continue
            t = (offset + i) * base ** (-2 * ((c % dk) // 2) / dk)
            x, y = M[i, c], M[i, c + 1]
            R[i, c], R[i, c + 1] = x * np.cos(t) - y * np.sin(t), x * np.sin(t) + y * np.cos(t)
    return R


def online_row(z, v, block):
    """FlashAttention's online softmax of one row of z = s ÷ T: blocks of keys,
    the running max m and sum l (and output o) rescaled by e^(m_old − m_new)."""
    m, l, o = -np.inf, 0.0, np.zeros(v.shape[1])
    for b in range(0, len(z), block):
        idx = [j for j in range(b, min(b + block, len(z))) if np.isfinite(z[j])]
        if not idx:
            continue
        m_new = max(m, max(z[j] for j in idx))
        p = np.exp(np.array([z[j] for j in idx]) - m_new)
        l = l * np.exp(m - m_new) + p.sum()
        o = o * np.exp(m - m_new) + p @ v[idx]
        m = m_new
    a = np.array([np.exp(x - m) / l if np.isfinite(x) else 0.0 for x in z])
    return a, o / l


class State:
    def __init__(self, sh):
        o = sh.options
        self.sheet = sh
        self.digits = int(o["digits"])
        self.X = sh.mats["X"].copy()
        self.W = {w: sh.mats[w].copy() for w in ("Wq", "Wk", "Wv", "Wo", "Xs") if w in sh.mats}
        self.cross = o.get("attention") == "cross"
        assert self.cross == ("Xs" in sh.mats) == (sh.source is not None), "cross-attention gives its source and Xs"
        if sh.draw:   # a numpy draw the sheet states: redraw it, and it must be the tables' numbers
            seed, scale, names = sh.draw
            np.random.seed(seed)
            for w in names:
                d = np.random.randn(*self.W[w].shape) * scale
                if np.max(np.abs(d - self.W[w])) > 0.5 * 10 ** -self.digits + 1e-12:
                    raise ValueError(f"{w} is not np.random.seed({seed}) × {scale}")
                self.W[w] = d
        self.h = int(o.get("heads", 1))
        self.g = int(o.get("kv_heads", self.h))   # K/V heads: query head k reads floor(k·g/h) (0-based)
        self.dk, self.dv = int(o["d_k"]), int(o["d_v"])
        if self.h > 1:
            cols = sh.head_cols
            assert cols and len(cols) == self.h, "a sheet with heads names their columns"
            for k, (qc, kv, kc, vc, oc) in enumerate(cols):
                g = k * self.g // self.h
                assert kv in (None, g) and (kv is not None or self.g == self.h), f"head {k + 1} reads K/V head {g + 1}"
                assert qc == (k * self.dk, (k + 1) * self.dk) and oc == (k * self.dv, (k + 1) * self.dv)
                assert kc == (g * self.dk, (g + 1) * self.dk) and vc == (g * self.dv, (g + 1) * self.dv)
        self.opts = {"scale": o["scale"], "softmax": o["softmax"], "mask": o.get("mask", "none"),
                     "window": sh.window, "temperature": float(o.get("temperature", 1)),
                     "positions": o.get("positions", "none"), "rope_base": o.get("rope_base"),
                     "offset": o.get("offset"), "block": o.get("block")}
        self.lr = float(o.get("lr", 0.5))
        self.tokens = list(range(len(self.X)))
        self.over = {m: {i: (v.copy(), None) for i, v in sh.over[m].items()} for m in "QKV"}
        if "P" in sh.mats:
            P = positions(*self.X.shape, int(self.opts["offset"] or 0))
            assert np.max(np.abs(P - sh.mats["P"])) <= 0.5 * 10 ** -self.digits + 1e-12
        self.base = (self.X.copy(), {w: v.copy() for w, v in self.W.items()}, dict(self.opts),
                     {m: dict(v) for m, v in self.over.items()}, self.lr)
        self.targets = {}
        self.run()

    def reset(self):
        X, W, opts, over, lr = self.base
        self.X, self.W, self.opts, self.lr = X.copy(), {w: v.copy() for w, v in W.items()}, dict(opts), lr
        self.over = {m: dict(v) for m, v in over.items()}
        self.tokens = list(range(len(self.X)))
        self.targets = {}

    def need(self, opt, why):
        """An option the sheet must state for what it asks (no default)."""
        if self.opts[opt] is None:
            raise ValueError(f"the sheet uses {why} but does not give {opt}")
        return float(self.opts[opt])

    def cols(self, name, hd):
        """Head hd's (0-based) columns of Q, K or V: K and V those of its K/V head."""
        w = self.dv if name == "V" else self.dk
        k = hd if name == "Q" else hd * self.g // self.h
        return slice(k * w, (k + 1) * w)

    # the pipeline
    def project(self):
        n, d = self.X.shape
        pos = self.opts["positions"]
        off = self.need("offset", "RoPE") if pos == "rope" else float(self.opts["offset"] or 0)
        self.P = positions(n, d, off) if pos == "sinusoidal" else np.zeros((n, d))
        self.H = self.X + self.P
        self.m = {"X": self.X, "P": self.P, "H": self.H, **self.W}
        for name in "QKV":   # cross-attention: K and V from the source's Xs
            M = (self.W["Xs"] if self.cross and name != "Q" else self.H) @ self.W["W" + name.lower()]
            width = self.dv if name == "V" else self.dk
            keep = {}
            for i, (v, heads) in self.over[name].items():
                if heads is None:
                    M[i] = v
                    keep[i] = range(M.shape[1])
                else:
                    for hd in heads:
                        M[i, hd * width:(hd + 1) * width] = v[hd * width:(hd + 1) * width]
                    keep[i] = [c for hd in heads for c in range(hd * width, (hd + 1) * width)]
            if pos == "rope" and name in "QK":
                M = rope(M, self.dk, self.need("rope_base", "RoPE"), off, keep)
            self.m[name] = M

    def attend(self, q, k, v):
        n = len(q)
        qkt = q @ k.T
        s = qkt / np.sqrt(self.dk) if self.opts["scale"] == "sqrt_dk" else qkt.copy()
        i, j = np.indices((n, len(k)))
        if self.sheet.pad:   # padding keys: -inf before the softmax
            s[:, np.array(self.sheet.pad, dtype=bool)] = -np.inf
        if self.opts["mask"] == "causal":
            s[j > i] = -np.inf
        elif self.opts["mask"] == "window":
            s[(j > i) | (j <= i - self.opts["window"])] = -np.inf
        z = s / self.opts["temperature"]
        if self.opts["softmax"] == "online":
            rows = [online_row(z[r], v, int(self.need("block", "the online softmax"))) for r in range(n)]
            return qkt, s, np.array([a for a, _ in rows]), np.array([o for _, o in rows])
        e = np.exp(z - z.max(axis=1, keepdims=True)) if self.opts["softmax"] == "stable" else np.exp(z)
        a = e / e.sum(axis=1, keepdims=True)
        return qkt, s, a, a @ v

    def run(self):
        self.project()
        outs = []
        for hd in range(self.h):
            q, k, v = (self.m[nm][:, self.cols(nm, hd)] for nm in "QKV")
            qkt, s, a, o = self.attend(q, k, v)
            outs.append(o)
            for nm, val in (("Q", q), ("K", k), ("V", v), ("QKt", qkt), ("S", s), ("A", a), ("O", o)):
                self.m[f"{nm}{hd + 1}"] = val
                if hd == 0 and nm not in "QKV":
                    self.m[nm] = val
        self.m["O"] = np.hstack(outs)
        if "Wo" in self.W:
            self.m["Y"] = self.m["O"] @ self.W["Wo"]

    # training: L = sum over targets of -sum_j t_j ln A^h_ij; descent on Wq, Wk
    def step(self):
        dq, dk = np.zeros_like(self.m["Q"]), np.zeros_like(self.m["K"])
        for (hd, i), t in self.targets.items():
            a = self.m[f"A{hd + 1}"]
            ds = np.zeros_like(a)
            ds[i] = (a[i] - t) / self.opts["temperature"]
            if self.opts["scale"] == "sqrt_dk":
                ds = ds / np.sqrt(self.dk)
            qc, kc = self.cols("Q", hd), self.cols("K", hd)
            dq[:, qc] += ds @ self.m["K"][:, kc]
            dk[:, kc] += ds.T @ self.m["Q"][:, qc]
        if self.opts["positions"] == "rope":   # back through the turn: turn the gradient back
            base, off = self.need("rope_base", "RoPE"), self.need("offset", "RoPE")
            dq, dk = (np.vstack([rope(D[r:r + 1], self.dk, base, -(off + r), {}) for r in range(len(D))])
                      for D in (dq, dk))
        gq, gk = self.H.T @ dq, self.H.T @ dk
        self.W["Wq"] = self.W["Wq"] - self.lr * gq
        self.W["Wk"] = self.W["Wk"] - self.lr * gk
        self.run()

    # the action language, as the sheet writes it
    def ref(self, s):
        m = re.fullmatch(r"\s*([A-Za-z]+)(\d*)\[(\d+)\](?:\[(\d+)\])?\s*", s)
        if not m:
            raise ValueError(f"not a reference: {s}")
        return m.group(1), int(m.group(2)) if m.group(2) else 0, int(m.group(3)) - 1, \
            int(m.group(4)) - 1 if m.group(4) else None

    def act(self, text):
        t = text.replace(MINUS, "-").strip()
        if t == "reset":
            self.reset()
        elif m := re.fullmatch(r"mask\s*=\s*window\s+(\d+)", t):
            self.opts["mask"], self.opts["window"] = "window", int(m.group(1))
        elif m := re.fullmatch(r"(scale|softmax|mask|positions|temperature)\s*=\s*(\S+)", t):
            self.opts[m.group(1)] = float(m.group(2)) if m.group(1) == "temperature" else m.group(2)
        elif m := re.fullmatch(r"(offset|block|rope_base)\s*=\s*(" + NUM + ")", t):
            self.opts[m.group(1)] = m.group(2)
        elif m := re.fullmatch(r"append\s+(\S+)\s+\[(.*)\]", t):   # a new last row of X
            row = np.array([num(x) for x in m.group(2).split(",")])
            if len(row) != self.X.shape[1]:
                raise ValueError(f"append: {len(row)} numbers for a row of X of {self.X.shape[1]}")
            self.X = np.vstack([self.X, row])
            self.tokens.append(len(self.tokens))
        elif m := re.fullmatch(r"lr\s*=\s*(" + NUM + ")", t):
            self.lr = float(m.group(1))
        elif m := re.fullmatch(r"step(?:\s+(\d+))?", t):
            for _ in range(int(m.group(1) or 1)):
                self.step()
            return
        elif m := re.fullmatch(r"swap\s+(\d+)\s+(\d+)", t):
            i, j = int(m.group(1)) - 1, int(m.group(2)) - 1
            self.X[[i, j]] = self.X[[j, i]]
            self.tokens[i], self.tokens[j] = self.tokens[j], self.tokens[i]
            for name in "QKV":
                o = self.over[name]
                oi, oj = o.pop(i, None), o.pop(j, None)
                if oi is not None:
                    o[j] = oi
                if oj is not None:
                    o[i] = oj
        elif m := re.fullmatch(r"target\s+(A\d*\[\d+\])\s*=\s*(.+)", t):
            _, hd, i, _ = self.ref(m.group(1))
            hd = max(hd, 1) - 1
            v = m.group(2).strip()
            if v == "none":
                self.targets.pop((hd, i), None)
            elif v.startswith("["):
                self.targets[(hd, i)] = np.array([num(x) for x in v.strip("[]").split(",")])
            else:
                tt = np.zeros(len(self.X))
                tt[int(v) - 1] = 1
                self.targets[(hd, i)] = tt
        elif m := re.fullmatch(r"(.+?)\s*=\s*(.+)", t):
            self.assign(m.group(1), m.group(2))
        else:
            raise ValueError(f"an action the solver does not know: {text}")
        self.run()

    def value_of(self, rhs, width):
        rhs = rhs.strip()
        if rhs.startswith("["):
            return np.array([num(x) for x in rhs.strip("[]").split(",")])
        m = re.fullmatch(r"(.+?\])\s*(?:\*\s*(" + NUM + "))?", rhs)
        if m:
            name, hd, i, j = self.ref(m.group(1))
            key = f"{name}{hd}" if hd else name
            v = self.m[key][i] if j is None else self.m[key][i, j]
            return np.array(v, dtype=float) * (float(m.group(2)) if m.group(2) else 1.0)
        return np.array(num(rhs))

    def assign(self, lhs, rhs):
        name, hd, i, j = self.ref(lhs)
        v = self.value_of(rhs, None)
        if name in ("X", "Xs", "Wq", "Wk", "Wv", "Wo"):
            target = self.X if name == "X" else self.W[name]
            if j is None:
                target[i] = v
            else:
                target[i, j] = v
            return
        if name not in "QKV":
            raise ValueError(f"cannot set {lhs}")
        width = self.dv if name == "V" else self.dk
        row = self.m[name][i].copy()
        old = self.over[name].get(i)
        if hd:
            cols = slice((hd - 1) * width, hd * width)
            if j is None:
                row[cols] = v
            else:
                row[cols.start + j] = v
            heads = None if old and old[1] is None else (set(old[1]) if old else set()) | {hd - 1}
        else:
            if j is None:
                row[:] = v
            else:
                row[j] = v
            heads = None
        self.over[name][i] = (row, heads)

    def answer(self, asked):
        name, hd, i, j = self.ref(asked)
        key = f"{name}{hd}" if hd else name
        M = self.m[key]
        return [M[i, j]] if j is not None else list(M[i])


def solve(text):
    """The answers of a sheet, one list of numbers per question."""
    sh = Sheet(text)
    st = State(sh)
    out = []
    for asked, actions in sh.questions:
        for a in actions:
            st.act(a)
        out.append((asked, st.answer(asked), st.digits))
    return out


def fmt(v, d):
    if v == -np.inf:
        return "-inf"
    s = f"{v:.{d}f}"
    return "0." + "0" * d if float(s) == 0 else s


def key_answers(text):
    """The key's table: [(asked, [numbers as printed])]."""
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("## ") and ("Answer key" in line or "参考答案" in line))
    rows, _ = tables_after(lines, k + 1)
    return [(r[2], [x.strip().replace(MINUS, "-").replace("-∞", "-inf") for x in r[3].split(",")]) for r in rows[1:]]


def check(binary, lesson, lang, variant):
    args = [binary, "--worksheet", "--answers", "--lang", lang] + (["--variant", str(variant)] if variant is not None
                                                                    else []) + [lesson]
    full = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    cut = full.index('<div class="page-break"')
    sheet, key = full[:cut], full[cut:]
    assert "Answer key" not in sheet and "参考答案" not in sheet
    want = key_answers(key)
    if wm.is_model_sheet(sheet):
        return check_model(sheet, want)
    got = solve(sheet)
    if [a for a, _ in want] != [a for a, _, _ in got]:
        return False, f"asked {[a for a, _ in want]} but the sheet asks {[a for a, _, _ in got]}"
    for (asked, printed), (_, vals, d) in zip(want, got):
        mine = [fmt(v, d) for v in vals]
        if mine != printed:
            close = all(p == "-inf" and m == "-inf" or abs(float(p) - v) <= max(0.01 * abs(v), 10 ** -d) + 1e-12
                        for p, m, v in zip(printed, mine, vals))
            return False, f"{asked}: the key says {', '.join(printed)}, the sheet gives {', '.join(mine)}" + \
                (" (close: within the sheet's 1% rule only)" if close else "")
    return True, f"{len(want)} answers"


def check_model(sheet, want):
    """A model lesson's sheet (tests/worksheet_model.py): the redrawn model's
    answers print as the key's, the by-hand answers (from each question's
    rounded tables) meet the sheet's rule, every table agrees with the
    redrawn model."""
    got = wm.solve_model(sheet)
    if [a for a, _ in want] != [a for a, *_ in got]:
        return False, f"asked {[a for a, _ in want]} but the sheet asks {[a for a, *_ in got]}"
    drawn = 0
    for (asked, printed), (_, red, hand, d, bad) in zip(want, got):
        if bad:
            return False, f"{asked}: the question's tables disagree with the redrawn model: {'; '.join(bad[:3])}"
        if red is not None:
            drawn += 1
            if [fmt(v, d) for v in red] != printed:
                return False, f"{asked}: the key says {', '.join(printed)}, the redrawn model {', '.join(fmt(v, d) for v in red)}"
        for p, v in zip(printed, hand):
            if not (p == "-inf" and v == -np.inf) and not abs(float(p) - v) <= max(0.01 * abs(float(p)), 10 ** -d) + 1e-12:
                return False, f"{asked}: the key says {', '.join(printed)}, by hand from the sheet {', '.join(fmt(x, d) for x in hand)}"
    return True, f"{len(want)} answers ({drawn} also from the redrawn model)"


def self_test(binary):
    """The solver must notice a sheet that leaves something out: drop one
    given (an action line, an option, the heads table; an appended row, a
    window, kv_heads, RoPE's base and offset, the block) and the answers no
    longer equal the key. Returns the mutations it missed, and how many."""
    missed = 0
    cases = [("6", "- `mask = causal`\n", ""),
             ("6", "- `temperature = 0.5`\n", ""),
             ("tests/worksheet/solve-all.yaml", "| temperature | 2: ", "| temperature | 1: "),
             ("tests/worksheet/solve-all.yaml", "- `step 4`\n", "- `step 3`\n"),
             ("tests/worksheet/solve-all.yaml", "- `swap 1 4`\n", ""),
             ("3", "| scale       | sqrt\\_dk", "| scale       | none"),
             ("10", "- `append 猫 [0.0, 0.0, 1.0, 0.5]`\n", ""),
             ("11", "- `mask = window 2`\n", ""),
             ("11", "| kv\\_heads   | 2:", "| kv\\_head    | 2:"),
             ("12", "| rope\\_base  | 10000:", "| rope\\_base  | 500:"),
             ("12", "| offset      | 0:", "| offsets     | 0:"),
             ("13", "| block       | 2:", "| blocks      | 2:"),
             ("tests/worksheet/solve-modern.yaml", "| mask        | window 2:", "| mask        | window 3:"),
             # model lessons (tests/worksheet_model.py): a setting, the draw, an action, a table's number
             ("tests/worksheet/solve-model.yaml", "- `ablate L2.H1`\n", ""),
             ("tests/worksheet/solve-model.yaml", "- `tokens = <s> B C B`\n", ""),
             ("tests/worksheet/solve-model.yaml", "np.random.seed(5)", "np.random.seed(6)"),
             ("tests/worksheet/solve-model2.yaml", "| norm        | rmsnorm", "| norm        | layernorm"),
             ("tests/worksheet/solve-model2.yaml", "| act         | relu", "| act         | gelu"),
             ("tests/worksheet/solve-model2.yaml", "| T\\_s        | 2:", "| T\\_s        | 1:"),
             ("tests/worksheet/solve-model2.yaml", "| mask        | window 2", "| mask        | causal"),
             ("tests/worksheet/solve-model2.yaml", "| 2 y  | 0.83408 |", "| 2 y  | 0.83418 |"),
             ("lessons/15-the-next-token.yaml", "| T\\_s        | 0.8:", "| T\\_s        | 2:"),
             ("tests/worksheet/solve-model3.yaml", "| offset      | 2:", "| offset      | 0:"),
             ("tests/worksheet/solve-model3.yaml", "| rope\\_base  | 10000", "| rope\\_base  | 500")]
    for lesson, old, new in cases:
        full = subprocess.run([binary, "--worksheet", "--answers", lesson], capture_output=True, text=True,
                              check=True).stdout
        cut = full.index('<div class="page-break"')
        sheet, key = full[:cut], full[cut:]
        if old not in sheet:
            print(f"FAIL: self-test: {old!r} is not on the sheet of {lesson}")
            missed += 1
            continue
        if wm.is_model_sheet(sheet):   # the model checker: the sheet passes as printed, not once mutated
            try:
                caught = check_model(sheet, key_answers(key))[0] and not check_model(sheet.replace(old, new, 1),
                                                                                      key_answers(key))[0]
            except Exception as e:
                caught, old = False, f"{old} (the solver failed: {type(e).__name__}: {e})"
            print(f"{'ok' if caught else 'FAIL'}: self-test: {lesson} without {old.strip()!r} "
                  f"{'fails the check' if caught else 'still passes'}")
            missed += 0 if caught else 1
            continue
        want = [p for _, p in key_answers(key)]
        try:
            got = [[fmt(v, d) for v in vals] for _, vals, d in solve(sheet.replace(old, new, 1))]
        except Exception:
            got = None
        if got == want:
            print(f"FAIL: self-test: {lesson} without {old.strip()!r} still gives the key's answers")
            missed += 1
        else:
            print(f"ok: self-test: {lesson} without {old.strip()!r} gives other answers")
    return missed, len(cases)


def main(argv):
    if argv[1:2] == ["--self-test"]:
        missed, cases = self_test(argv[2])
        print(f"worksheet-solve self-test: {cases - missed} passed, {missed} failed")
        return 1 if missed else 0
    if argv[1:2] == ["--sheet"]:
        for asked, vals, d in solve(open(argv[2], encoding="utf-8").read()):
            print(asked, "=", ", ".join(fmt(v, d) for v in vals))
        return 0
    binary = argv[1]
    lessons, variants, langs = [], list(range(1, 31)), ["en", "zh"]
    k = 2
    while k < len(argv):
        if argv[k] == "--variants":
            a, _, b = argv[k + 1].partition("-")
            variants = list(range(int(a), int(b or a) + 1))
            k += 2
        elif argv[k] == "--langs":
            langs = argv[k + 1].split(",")
            k += 2
        else:
            lessons.append(argv[k])
            k += 1
    passed = failed = 0
    for lesson in lessons:
        text = open(lesson, encoding="utf-8").read()
        trained = re.search(r"^model:", text, re.M) and re.search(r"^weights:\s*\n\s+file:", text, re.M)
        lesson_variants = [] if trained else variants   # trained weights: no variants (tests/cli.sh)
        sheets = answers = 0
        for lang in langs:
            for variant in [None] + lesson_variants:
                try:
                    ok, what = check(binary, lesson, lang, variant)
                except Exception as e:  # a sheet the solver cannot read is a failure too
                    ok, what = False, f"{type(e).__name__}: {e}"
                if ok:
                    sheets += 1
                    answers += int(what.split()[0])
                else:
                    failed += 1
                    print(f"FAIL: {lesson} --lang {lang} --variant {variant}: {what}")
        full = sheets == len(langs) * (len(lesson_variants) + 1)
        if sheets:
            passed += 1 if full else 0
        which = f"variants {variants[0]}-{variants[-1]}" if lesson_variants else "trained weights: no variants"
        print(f"{'ok' if full else 'FAIL'}: {lesson}: {sheets} sheets "
              f"({', '.join(langs)}; the lesson's own and {which}) solved from their "
              f"Markdown alone, {answers} answers equal the key")
    print(f"worksheet-solve: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
