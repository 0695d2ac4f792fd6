#!/usr/bin/python3
"""truth.py - the truth test's checker (DESIGN.md "The screen never contradicts
itself, in any state").

Reads what tests/truth_render.c prints (one record per screen: the state's
values, then the frame plan's text, each line prefixed with its block kind)
and the output of `qkvtutor --dump` (between "@@ DUMP" lines), and reports:

  arith      an arithmetic line (ARITH, TRAIN, a --dump arithmetic line) whose
             `=` does not reproduce: every equation is recomputed here from the
             numbers printed on the line (and the operands it names, read from
             the matrix cells printed on the same screen), rounded to the
             printed decimals. A line holding `≈` is exempt (the contract).
  unparsed   an equation with numbers this parser does not understand, so that a
             new format cannot slip by.
  notice     a departed state (by construction) without a NOTICE line, or a
             scripted one with a notice; a --dump --variant 7 without a `✎`
             notice before the first step (or a plain --dump with one).
  narration  a number in the narration (SAY; and the ASK block) that is not the
             state's: it must equal, to its printed digits, a cell of a matrix
             computed at that step, a row/column sum or a row max of S or A, a
             scalar (T, lr, loss, steps, sizes), the value of one of the step's
             own {templates} evaluated here on the state, or a {=fixed} figure;
             or be a whole number <= 99.
  leak       an open question (or one answered wrong) whose answer is on screen: an asked value printed
             with the lesson's digits in an ARITH/TRAIN/TRACE/STATUS/SAY/NOTICE/
             ASK/BARS line (on TRACE/STATUS/NOTICE/BARS lines its rounding
             neighbours too) or in the asked cell itself, or one step away (see
             ONE_STEP below); the same for the asked values of the state before
             the departure (WASASKED: what u brings back), which after a swap
             must also stay hidden in the cell their tokens moved to; and a
             TRACE or STATUS line that names an asked cell (or where its tokens
             went) with a number ("s₁₂ 0.006 → ?": before and after are "?").
             Printed 0 or 1 and one-digit values (0.000, 1.000, 0.006) are not
             looked for by value in text lines: they are everywhere; the named
             cells catch them.
  format     a number printed in e-notation below a million (2e+01).
  render     the harness or --dump failed.

ONE_STEP (the "one step away" forms checked for an asked α):
  - exp ÷ sum: an `exp(...) = [e...]` vector and its `sum = Σ` printed: e_j ÷ Σ;
  - ∂L/∂s = (α − t) ÷ T printed as [d...]: d_j·T + t_j;
  - the loss L = −ln α printed: exp(−L) for the target's key.

Usage: truth.py PLANS [DUMPS]      check; exit 1 on any failure
       truth.py --list-kinds PLANS [DUMPS]   counts per kind and 3 examples each
       truth.py --self-test DIR    run the hand-written records DIR/*.txt; each
                                   names the kinds it must produce in lines
                                   "# expect: KIND" (and "# expect-none")
"""
import math
import re
import sys
from collections import defaultdict, OrderedDict

SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
SUBCHARS = "₀₁₂₃₄₅₆₇₈₉"
NUM_RE = re.compile(r"(?<![A-Za-z_\d.])[−-]?(?:\d+(?:\.\d+)?(?:e[+−-]?\d+)?|inf)(?![\dA-Za-z])")
STATS = {"equations checked": 0, "left unchecked (operands not on screen)": 0}
TEXT_KINDS = ("ARITH", "TRAIN", "TRACE", "STATUS", "SAY", "NOTICE", "ASK", "BARS")


def norm(s):
    return s.replace("−", "-")


def decimals(p):
    p = norm(p)
    if "e" in p or "inf" in p:
        return None
    return len(p.split(".")[1]) if "." in p else 0


def fmt_to(v, d):
    s = "%.*f" % (d, v)
    if re.fullmatch(r"-0\.?0*", s):
        s = s[1:]
    return s


def rounds_to(v, p):
    """Does v, rounded to the decimals of the printed number p, give p? Exact
    ties (x.5 at the last digit) accept either neighbour."""
    p = norm(p)
    if v is None or isinstance(v, list):
        return False
    if p in ("inf", "-inf"):
        return math.isinf(v) and (v > 0) == (p == "inf")
    if math.isnan(v) or math.isinf(v):
        return False
    if "e" in p:  # scientific: round to the printed mantissa's digits
        mant, exp10 = p.split("e")
        d = decimals(mant)
        return "%.*e" % (d, v) == "%.*e" % (d, float(p))
    d = decimals(p)
    want = fmt_to(float(p), d)
    if fmt_to(v, d) == want:
        return True
    scaled = v * 10 ** d
    if abs(abs(scaled - math.floor(scaled)) - 0.5) < 1e-7:
        return fmt_to(math.floor(scaled) / 10 ** d, d) == want or fmt_to(math.ceil(scaled) / 10 ** d, d) == want
    return False


# ---- records -------------------------------------------------------------------------


class Rec:
    def __init__(self, head):
        self.hdr = dict(kv.split("=", 1) for kv in head.split()[2:])
        self.where = "%s %s %s %s %s" % (self.hdr["lesson"], self.hdr["step"].split("/")[0], self.hdr["lang"],
                                          self.hdr["size"], self.hdr["state"])
        self.lines = []           # (kind, text) in order
        self.vals = defaultdict(dict)   # name -> {(i, j): v}
        self.scal = {}
        self.asks = []            # (mat, i, j, state, digits, [v])
        self.was_asked = []       # (mat, i, j, now_i, now_j, v): before the departure; where its tokens are now
        self.targets = []         # (head, row, [t])
        self.cells = defaultdict(dict)  # name -> {(i, j): text}
        self.rawsay = ""
        self.applied = ""
        self.dump = False

    @property
    def digits(self):
        return int(self.hdr.get("digits", 3))


def parse_plans(path, fails):
    recs = []
    r = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("@@ REC "):
                r = Rec(line)
                continue
            if line.startswith("@@ END"):
                recs.append(r)
                r = None
                continue
            if line.startswith("@@") or r is None:
                continue
            tag, _, rest = line.partition(" ")
            if tag == "VAL":
                n, i, j, v = rest.split()
                r.vals[n][(int(i), int(j))] = float(v)
            elif tag == "SCALAR":
                n, v = rest.split()
                r.scal[n] = float(v)
            elif tag == "ASKED":
                p = rest.split()
                r.asks.append((p[0], int(p[1]), int(p[2]), p[3], int(p[4]), [float(x) for x in p[5:]]))
            elif tag == "WASASKED":
                p = rest.split()
                r.was_asked.append((p[0], int(p[1]), int(p[2]), int(p[3]), int(p[4]), float(p[5])))
            elif tag == "TARGET":
                p = rest.split()
                r.targets.append((int(p[0]), int(p[1]), [float(x) for x in p[2:]]))
            elif tag == "CELL":
                p = rest.split(" ", 3)
                r.cells[p[0]][(int(p[1]), int(p[2]))] = p[3] if len(p) > 3 else ""
            elif tag == "RAWSAY":
                r.rawsay = rest
            elif tag in ("APPLIED", "REFUSED"):
                r.applied = line
            else:
                r.lines.append((tag, rest))
    if r is not None:
        fails.append(("render", "%s: record not ended (the harness stopped)" % r.where))
    return recs


# ---- the expression evaluator ------------------------------------------------------------

class Unparsed(Exception):
    pass


class Unknown(Exception):
    """A name that cannot be resolved (its operands are not on the screen)."""


class Hidden(Exception):
    """An operand shown as '?' (an open question)."""


TOK_RE = re.compile(r"\s*(?:(?P<num>(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?)|inf|∞)|(?P<op>[-+*/^()\[\],√?])|"
                    r"(?P<name>[^\s\d\-+*/^()\[\],√?]+))")
KNOWN_STEMS = {"q", "k", "v", "x", "h", "p", "α", "s", "o", "y", "z", "t", "exp", "sum", "max", "T", "L", "ln",
               "sin", "cos", "sqrt", "score", "总和", "ᵀ", "Σ", "∂L/∂s", "∂L/∂q", "∂L/∂k", "∂L/∂W_Q", "∂L/∂W_K",
               "W", "lr", "Wq", "Wk", "Wv", "Wo", "Wstep"}
FUNCS = {"exp": math.exp, "ln": lambda x: -math.inf if x == 0 else math.log(x), "sin": math.sin, "cos": math.cos, "sqrt": math.sqrt}


def tokenize(s):
    s = norm(s).replace("·", "*").replace("÷", "/").replace("×", "*")
    out, pos = [], 0
    while pos < len(s):
        m = TOK_RE.match(s, pos)
        if not m or m.end() == pos:
            if s[pos:].strip() == "":
                break
            raise Unparsed("cannot read %r" % s[pos:])
        pos = m.end()
        if m.group("num"):
            out.append(("num", m.group("num")))
        elif m.group(0).strip() in ("inf", "∞"):
            out.append(("num", "inf"))
        elif m.group("op"):
            out.append(("op", m.group("op")))
        elif m.group("name"):
            out.append(("name", m.group("name")))
    return out


def vmap(f, a, b=None):
    if b is None:
        return [f(x) for x in a] if isinstance(a, list) else f(a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise Unparsed("vectors of %d and %d numbers" % (len(a), len(b)))
        return [f(x, y) for x, y in zip(a, b)]
    if isinstance(a, list):
        return [f(x, b) for x in a]
    if isinstance(b, list):
        return [f(a, y) for y in b]
    return f(a, b)


def safe(f):
    def g(*a):
        try:
            return f(*a)
        except (ValueError, ZeroDivisionError, OverflowError):
            return float("nan")
    return g


class Parser:
    def __init__(self, toks, resolve):
        self.t, self.k, self.resolve = toks, 0, resolve

    def peek(self):
        return self.t[self.k] if self.k < len(self.t) else (None, None)

    def take(self, op=None):
        tok = self.peek()
        if op is not None and tok != ("op", op):
            raise Unparsed("expected %r" % op)
        self.k += 1
        return tok

    def parse(self):
        v = self.expr()
        if self.k != len(self.t):
            raise Unparsed("left over %r" % (self.t[self.k:],))
        return v

    def expr(self):
        v = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            w = self.term()
            v = vmap((lambda a, b: a + b) if op == "+" else (lambda a, b: a - b), v, w)
        return v

    def starts_primary(self):
        kind, val = self.peek()
        return kind in ("num", "name") or (kind == "op" and val in ("(", "[", "√", "?"))

    def term(self):
        v = self.unary()
        while True:
            tok = self.peek()
            if tok in (("op", "*"), ("op", "/")):
                self.take()
                w = self.unary()
                v = vmap((lambda a, b: a * b) if tok[1] == "*" else safe(lambda a, b: a / b), v, w)
            elif self.starts_primary():   # (a)(b), (0.3)k₁, 2m
                w = self.unary()
                v = vmap(lambda a, b: a * b, v, w)
            else:
                return v

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return vmap(lambda a: -a, self.unary())
        if self.peek() == ("op", "+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self):
        v = self.primary()
        if self.peek() == ("op", "^"):
            self.take()
            w = self.unary()
            v = vmap(safe(lambda a, b: a ** b), v, w)
        return v

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            return float("inf") if val in ("inf", "∞") else float(val)
        if kind == "op" and val == "?":
            raise Hidden()
        if kind == "op" and val == "(":
            v = self.expr()
            self.take(")")
            return v
        if kind == "op" and val == "[":
            items = [self.expr()]
            while self.peek() == ("op", ","):
                self.take()
                items.append(self.expr())
            self.take("]")
            return items
        if kind == "op" and val == "√":
            return vmap(safe(math.sqrt), self.primary())
        if kind == "name":
            if val == "max" and self.peek() == ("op", "("):   # online softmax: m = max(m_old, z...)
                self.take("(")
                items = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    items.append(self.expr())
                self.take(")")
                if any(isinstance(x, list) for x in items):
                    raise Unparsed("max of a vector")
                return max(items)
            if val in FUNCS:
                if self.peek() == ("op", "("):
                    return vmap(safe(FUNCS[val]), self.primary())
                if val in ("exp",) and not self.starts_primary():
                    return self.resolve(val)
                return vmap(safe(FUNCS[val]), self.unary())
            return self.resolve(val)
        raise Unparsed("unexpected %r" % (val,))


def evaluate(seg, resolve):
    return Parser(tokenize(seg), resolve).parse()


# ---- arithmetic lines ----------------------------------------------------------------------

PAREN_WORDS = re.compile(r"[（(][^()（）]*(?:[A-Za-z]{3,}|[\u4e00-\u9fff])[^()（）]*[)）]")
FUNC_WORDS = {"exp", "max", "sum", "sin", "cos", "sqrt"}


def strip_notes(s):
    """Take out the parenthesised words of a line ("(masked: ...)", "(from row
    1)", "（学习率 0.5）"), keeping exp(...), sin(...) and the like."""
    def repl(m):
        words = re.findall(r"[A-Za-z]{3,}", m.group(0))
        if words and all(w in FUNC_WORDS for w in words) and not re.search(r"[\u4e00-\u9fff]", m.group(0)):
            return m.group(0)
        return " "
    prev = None
    while prev != s:
        prev = s
        s = PAREN_WORDS.sub(repl, s)
    return s


def split_top(s, seps):
    """Split s at the separators outside brackets; returns [(sep_before, part)]."""
    out, depth, cur, sep = [], 0, "", None
    i = 0
    while i < len(s):
        c = s[i]
        if c in "([（":
            depth += 1
        elif c in ")]）":
            depth -= 1
        if depth == 0 and c in seps:
            out.append((sep, cur))
            sep, cur = c, ""
        else:
            cur += c
        i += 1
    out.append((sep, cur))
    return out


def has_number(seg):
    seg = re.sub(r"\[[^\]]*:[^\]]*\]", "", seg)       # Wq[:,1]
    seg = re.sub(r"[A-Za-z]\w*\[\d+\](?:\[\d+\])?", "", seg)   # A[1], S[1][2]
    return NUM_RE.search(seg) is not None


def is_literal(seg):
    s = norm(seg.strip())
    return re.fullmatch(r"-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|inf|∞)", s) is not None or \
        re.fullmatch(r"\[\s*(?:(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\?|-?∞)\s*,\s*)*(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\?|-?∞)\s*\]", s) is not None


def literal_parts(seg):
    s = norm(seg.strip())
    if s.startswith("["):
        return [x.strip() for x in s[1:-1].split(",")]
    return [s]


def compare(value, seg):
    """value against the printed literal seg; returns (ok, detail) or None when
    nothing is comparable (hidden)."""
    parts = literal_parts(seg)
    if not isinstance(value, list):
        value = [value]
    zero = lambda p: p in ("?",) or re.fullmatch(r"0\.?0*", p)
    for k in range(len(parts) - len(value) + 1 if len(value) < len(parts) else 0):
        if all(zero(p) for p in parts[:k] + parts[k + len(value):]):
            parts = parts[k:k + len(value)]  # α's masked keys (after a causal mask, outside a window): exactly 0
            break
    if len(value) > len(parts):
        value = value[:len(parts)]       # a causal mask's keys (the last ones) left out of the printed vector
    if len(value) != len(parts):
        raise Unparsed("%d numbers against %d printed" % (len(value), len(parts)))
    bad = []
    for v, p in zip(value, parts):
        if p == "?" or "∞" in p:
            continue
        if not rounds_to(v, p):
            bad.append("%s (recomputed %s)" % (p, "%.6g" % v if isinstance(v, float) else v))
    return bad


class Context:
    """What the lines of one arithmetic block define for the lines after it,
    and how a name on a line is read (from the cells printed on the screen)."""

    def __init__(self, rec, head):
        self.rec, self.head, self.bound, self.srow = rec, head, {}, None
        self.candidates = []      # (row, key or None, value, how): α values one step away

    def cell_text(self, base, i, j):
        r = self.rec
        names = [base + str(self.head), base] if self.head > 1 else [base, base + "1"]
        if r.hdr.get("heads", "1") != "1":
            names = [base + str(self.head)] + names
        for n in names:
            if n in r.cells and (i, j) in r.cells[n]:
                return r.cells[n][(i, j)]
            if r.dump and n in r.tables and (i, j) in r.tables[n]:
                return r.tables[n][(i, j)]
        return None

    def row_len(self, base, i):
        r = self.rec
        names = [base + str(self.head), base] if self.head > 1 else [base, base + "1"]
        if r.hdr.get("heads", "1") != "1":
            names = [base + str(self.head)] + names
        for src in (r.cells, getattr(r, "tables", {}), r.vals):
            for n in names:
                if n in src:
                    return max((j for (ii, j) in src[n] if ii == i), default=0)
        return 0

    def cell(self, base, i, j):
        t = self.cell_text(base, i, j)
        if t is None and not self.rec.dump:
            # not on this screen: the state's value as the lesson's digits print it
            names = [base + str(self.head)] if self.rec.hdr.get("heads", "1") != "1" else [base, base + "1"]
            for n in names:
                if (i, j) in self.rec.vals.get(n, {}):
                    v = self.rec.vals[n][(i, j)]
                    return v if math.isinf(v) else round(v, self.rec.digits)
        if t is None:
            raise Unknown(base)
        t = re.sub(r"[▲▼✎\s]", "", norm(t))
        if "?" in t:
            raise Hidden()
        if t in ("-∞", "−∞"):
            return float("-inf")
        try:
            return float(t)
        except ValueError:
            raise Unknown(base)

    MATS = {"q": "Q", "k": "K", "v": "V", "x": "X", "h": "H", "p": "P", "α": "A", "s": "S", "o": "O", "y": "Y"}

    def resolve(self, name):
        if name == "总和":  # the Chinese screen's word for the sum of the exps
            name = "sum"
        if name in self.bound:
            v = self.bound[name]
            if v is None:
                raise Hidden()
            return v
        if name in ("sum", "总和") and "exp" in self.bound:
            return sum(self.bound["exp"])
        if name == "max" and "last" in self.bound:
            return max(self.bound["last"])
        if name == "T" and not self.rec.dump:
            return self.rec.scal["T"]
        m = re.fullmatch(r"([a-zα])([" + SUBCHARS + "]+)", name)
        if m and m.group(1) in self.MATS:
            base = self.MATS[m.group(1)]
            idx = m.group(2).translate(SUB)
            if len(idx) == 2:
                return self.cell(base, int(idx[0]), int(idx[1]))
            if len(idx) == 1:
                i = int(idx)
                n = self.row_len(base, i)
                if n == 0:
                    raise Unknown(name)
                return [self.cell(base, i, j) for j in range(1, n + 1)]
        if m and m.group(1) == "t":
            idx = int(m.group(2).translate(SUB))
            t = self.target()
            if t is None:
                raise Unknown(name)
            return t[idx - 1]
        if name == "t":
            t = self.target()
            if t is None:
                raise Unknown(name)
            return t
        stem = re.sub("[" + SUBCHARS + "ⱼᵀ]+$", "", name)
        if "layer" in self.rec.hdr and re.fullmatch(r"[A-Za-z_][\w.]*", name):
            raise Unknown(name)   # a model's E[爱][1], W1[:,2], μ, σ: read from no cell here
        if stem in KNOWN_STEMS or name in KNOWN_STEMS or re.fullmatch(r"∂L/∂\w+", stem):
            raise Unknown(name)
        raise Unparsed("unknown name %r" % name)

    def target(self):
        row = self.bound.get("row")
        for h, rr, t in self.rec.targets:
            if row is None or rr == row:
                return t
        return None


def logical_lines(texts, dump=False):
    """Join the screen rows of an arithmetic block into the lines they wrap."""
    out = []
    for t in texts:
        s = t.strip()
        if not s:
            continue
        if out:
            prev = out[-1]
            depth = sum(prev.count(c) for c in "([（") - sum(prev.count(c) for c in ")]）")
            if depth > 0 or re.match(r"^[=≈+÷×·]", s) or re.search(r"[=+·÷×−-]$", prev.rstrip()) or \
                    (s[0] in "(" and not re.match(r"^\(\S+\)\s*\(", s) is None and prev.rstrip().endswith("+")):
                out[-1] = prev.rstrip() + " " + s
                continue
        out.append(s)
    return out


def check_arith_line(line, ctx, report):
    """Check one logical arithmetic line; bind what it defines in ctx."""
    cut = line.rstrip().endswith("…")
    exempt = "≈" in line
    s = re.sub(r"[（(]\s*(?:lr|学习率)\s*[\d.]+\s*[)）]", " ", line.replace("…", " "))
    s = strip_notes(s)
    s = re.sub(r"^\s*(?:head|头)\s*(\d+)\s*[:：]", lambda m: setattr(ctx, "head", int(m.group(1))) or " ", s)
    s = re.sub(r"(?:head|头)\s*\d+\s*(?:贡献)?\s*(?=[−-]?\d)", " ", s)        # y = head 1 0.123 + head 2 0.456
    m = re.match(r"^\s*(?:target|目标)\s+A(\d*)\[(\d+)\]\s*=\s*\d+\s*", s)
    if m:                                                     # the training panel's first line
        ctx.bound["row"] = int(m.group(2))
        s = s[m.end():]
        s = re.sub(r"^[^·]*·\s*(?:loss|损失)\s*", "", s)
        s = re.sub(r"[▁▂▃▄▅▆▇█_.\-~=+*#]*\s*$", "", s) if False else re.sub(r"[▁▂▃▄▅▆▇█]+", " ", s)
    s = s.replace("W ← W − ", "Wstep ").replace("W ← W - ", "Wstep ")
    clauses = [c for _, c in split_top(s, ";；")]
    if cut and clauses:
        clauses[-1] = ""          # the last clause was cut by the screen edge
    for clause in clauses:
        if "=" not in clause and "≈" not in clause:
            continue
        segs = split_top(clause, "=≈")
        vals = []
        for k, (sep, seg) in enumerate(segs):
            seg = seg.strip()
            kind, v = "sym", None
            if seg == "":
                kind = "empty"
            elif not has_number(seg) and "?" not in seg and k == 0 and \
                    not re.search(r"[()÷/+*·√^]|−\s|exp|ln", seg):
                kind = "name"
            elif not has_number(seg) and "?" not in seg:
                if "shifted" in ctx.bound:  # exp(s − max) reads the s − max printed above it
                    seg = re.sub(r"\b([sz]) − max\b", "shifted", seg)
                try:
                    v = evaluate(seg, ctx.resolve)
                    kind = "expr"
                except (Hidden, Unknown, Unparsed):
                    kind = "sym"
            elif is_literal(seg):
                kind = "lit"
                try:
                    v = evaluate(seg, ctx.resolve)
                except Hidden:
                    v = None
                except Unparsed:
                    v = None
            elif k == 0 and not re.search(r"[()÷/+*·√^]|−\s|exp|ln", seg):
                kind = "name"     # the left-hand side: a name
                name = seg.strip()
                if name in ("sum", "总和", "max", "L"):
                    try:
                        v = ctx.resolve(name) if name != "L" else None
                        kind = "expr" if v is not None else "name"
                    except (Unknown, Hidden):
                        pass
            else:
                try:
                    v = evaluate(seg, ctx.resolve)
                    kind = "expr"
                except Hidden:
                    kind = "hidden"
                except Unknown:
                    kind = "unknown"
                except Unparsed as e:
                    if has_number(seg) or k > 0:
                        report("unparsed", "unparsed equation: %s (%s)" % (line.strip(), e))
                        return
                    kind = "name"
            vals.append((sep, seg, kind, v))
        # the chain: each printed literal against the evaluable segment before it
        for k in range(1, len(vals)):
            sep, seg, kind, v = vals[k]
            psep, pseg, pkind, pv = vals[k - 1]
            if kind == "lit" and pkind == "unknown":
                STATS["left unchecked (operands not on screen)"] += 1
            if kind == "lit" and pkind in ("expr", "lit") and pv is not None:
                if exempt:
                    continue
                STATS["equations checked"] += 1
                try:
                    bad = compare(pv, seg)
                except Unparsed as e:
                    report("unparsed", "unparsed equation: %s (%s)" % (line.strip(), e))
                    return
                if bad:
                    report("arith", "%s: %s gives %s" % (line.strip(), pseg.strip(), ", ".join(bad)))
            elif kind == "expr" and pkind in ("expr", "lit") and pv is not None and not exempt:
                m2 = re.match(r"^\s*([−-]?\d+(?:\.\d+)?)\s*[÷×/*·]", seg)
                if m2 and not isinstance(pv, list):      # "= −0.114 ÷ √3": the carried result
                    if not rounds_to(pv, m2.group(1)):
                        report("arith", "%s: %s gives %s, not %s" % (line.strip(), pseg.strip(), "%.6g" % pv,
                                                                     m2.group(1)))
        # the loss: −ln α printed with its value
        if vals and vals[-1][2] == "lit":
            res = vals[-1][1]
            if "unknown" in [x[2] for x in vals[1:-1]] and not any(x[2] in ("expr",) for x in vals[1:-1]):
                pass
            # bind what the clause defines, as printed
            lhs = vals[0][1].strip()
            try:
                printed = evaluate(res, lambda n: None)
            except (Hidden, Unparsed, Unknown):
                printed = None
            if isinstance(printed, list) and any(x is None for x in printed):
                printed = None
            if re.fullmatch(r"s[" + SUBCHARS + "]*", lhs) and isinstance(printed, list):
                ctx.bound["s"] = ctx.bound["last"] = printed
                ctx.bound.pop("exp", None)
                ctx.bound.pop("shifted", None)
                ctx.srow = int(lhs[1:].translate(SUB)) if len(lhs) == 2 else None
            elif lhs in ("s − max", "z − max") and isinstance(printed, list):
                ctx.bound["shifted"] = printed
            elif lhs == "z" and isinstance(printed, list):
                ctx.bound["z"] = ctx.bound["last"] = printed
            elif lhs.startswith("exp(") and isinstance(printed, list):
                ctx.bound["exp"] = printed
            elif lhs in ("sum", "总和") and printed is not None:
                ctx.bound["sum"] = printed
                if "exp" in ctx.bound:
                    ctx.candidates += [(ctx.srow, j + 1, e / printed, "exp ÷ sum") for j, e in
                                       enumerate(ctx.bound["exp"]) if printed]
            elif lhs == "max" and printed is not None:
                ctx.bound["max"] = printed
            elif lhs.startswith("∂L/∂s") and isinstance(printed, list):
                t = ctx.target()
                T = ctx.rec.scal.get("T", 1.0) if not ctx.rec.dump else 1.0
                if t is not None and len(t) >= len(printed):
                    ctx.candidates += [(ctx.bound.get("row"), j + 1, d * T + t[j], "∂L/∂s + t")
                                       for j, d in enumerate(printed)]
            elif lhs == "L" or "ln" in clause:
                if printed is not None and not isinstance(printed, list):
                    mm = re.search(r"α([" + SUBCHARS + "]{2})", clause)
                    key = int(mm.group(1).translate(SUB)[1]) if mm else None
                    ctx.candidates.append((ctx.bound.get("row"), key, math.exp(-printed), "exp(−L)"))


def check_loss_lines(rec, lines, report):
    """The panel's `L = −ln α₁₃ = 1.051`: α₁₃ is read from the screen."""
    pass


# ---- numbers that print like numbers -----------------------------------------------------

E_RE = re.compile(r"(?<![A-Za-z_\d.])[−-]?\d+(?:\.\d+)?e[+−-]?\d+")


def check_format(text, report):
    for m in E_RE.finditer(text):
        try:
            v = float(norm(m.group(0)))
        except ValueError:
            continue
        if abs(v) < 1e6:
            report("format", "%s printed as %s: %s" % ("%g" % v, m.group(0), text.strip()))


# ---- narration ------------------------------------------------------------------------------

def template_values(rec, lang_text):
    """Evaluate the step's {templates} on the state; fixed figures as written."""
    vals, fixed = [], []
    s = lang_text.replace("{{", "")
    for m in re.finditer(r"\{([^{}]*)\}", s):
        e = m.group(1).strip()
        if e.startswith("="):
            fixed.append(norm(e[1:].strip()))
            continue
        try:
            v = eval_template(rec, e)
        except Exception:
            continue
        vals += v if isinstance(v, list) else [v]
    return vals, fixed


def mat_values(rec, name):
    if name in rec.vals:
        return rec.vals[name]
    if name.endswith("1") and name[:-1] in rec.vals:
        return rec.vals[name[:-1]]
    raise KeyError(name)


def eval_template(rec, e):
    def ref(m):
        name, i, j = m.group(1), m.group(2), m.group(3)
        if name == "token":
            raise KeyError
        cells = mat_values(rec, name)
        if i == "*":
            col = int(j)
            return "[%s]" % ",".join(repr(v) for (a, b), v in sorted(cells.items()) if b == col)
        if j is None:
            return "[%s]" % ",".join(repr(v) for (a, b), v in sorted(cells.items()) if a == int(i))
        return repr(cells[(int(i), int(j))])
    py = re.sub(r"([A-Za-z_][\w.]*)\[(\d+|\*)\](?:\[(\d+)\])?", ref, e)  # a model's names have dots: L1.A
    def shown(x):  # as printed with the lesson's digits (a number, or a row or column for sum/max)
        if isinstance(x, list):
            return [shown(y) for y in x]
        return x if math.isinf(x) else float(fmt_to(x, rec.digits))
    names = {"exp": math.exp, "ln": math.log, "sqrt": math.sqrt, "sum": sum, "max": max, "inf": float("inf"),
             "shown": shown}
    for k, v in rec.scal.items():
        names[k] = v
    v = eval(py.replace("−", "-").replace("^", "**"), {"__builtins__": {}}, names)
    return v


def state_numbers(rec):
    vals = []
    for name, cells in rec.vals.items():
        vals += list(cells.values())
        base = re.sub(r"\d+$", "", name.split(".")[-1])
        if base in ("S", "A"):
            rows, cols = defaultdict(list), defaultdict(list)
            for (i, j), v in cells.items():
                rows[i].append(v)
                cols[j].append(v)
            for g in list(rows.values()) + list(cols.values()):
                fin = [x for x in g if not math.isinf(x)]
                vals.append(sum(fin))
                # a hand sum of the printed digits (a lesson's {sum(shown(A[*][1]))})
                vals.append(sum(float(fmt_to(x, rec.digits)) for x in fin))
                if fin:
                    vals.append(max(fin))
    vals += list(rec.scal.values())
    return vals


def check_narration(rec, report):
    text = " ".join(t for k, t in rec.lines if k == "SAY")
    asktext = " ".join(t for k, t in rec.lines if k == "ASK")
    tv, fixed = template_values(rec, rec.rawsay)
    allowed = state_numbers(rec) + tv
    for kind, body in (("SAY", text), ("ASK", asktext)):
        for m in NUM_RE.finditer(body):
            p = m.group(0)
            if "e" in p:
                continue
            pn = norm(p)
            if decimals(pn) == 0 and abs(float(pn)) <= 99:
                continue
            if pn in fixed or pn.lstrip("-") in fixed:
                continue
            if any(rounds_to(v, p) for v in allowed):
                continue
            ctx = body[max(0, m.start() - 30):m.end() + 10]
            report("narration", "%s %s is no value of this state: …%s…" % (kind, p, ctx.strip()))


# ---- equations in the narration -------------------------------------------------------------

SUBS = "[" + SUBCHARS + "]"
NNUM = r"[−-]?\d+(?:\.\d+)?"
EQ_NAME = (r"(?:score(?P<sc>" + SUBS + "{2})"
           r"|(?P<da>[qk])(?P<di>" + SUBS + ")·(?P<db>[qk])(?P<dj>" + SUBS + ")"
           r"|(?P<cm>[qkvxhpsαoy])(?P<ci>" + SUBS + "{1,2})(?![" + SUBCHARS + "·])"
           r"|(?P<bm>[A-Z][A-Za-z]?\d?)\[(?P<bi>\d+)\](?:\[(?P<bj>\d+)\])?)")
EQ_CHAIN = re.compile(r"(?P<names>(?:" + EQ_NAME + r"\s*=\s*)+)(?P<nums>" + NNUM + r"(?:\s*[,、]\s*" + NNUM + ")*)")
EQ_ONE = re.compile(EQ_NAME + r"\s*=")
CELL_MATS = {"q": "Q", "k": "K", "v": "V", "x": "X", "h": "H", "p": "P", "s": "S", "α": "A", "o": "O", "y": "Y"}


def eq_value(rec, m):
    """The state's value (or row) that a name in the narration stands for, or None when unknown."""
    def cell(name, i, j):
        try:
            vals = mat_values(rec, name)
        except KeyError:
            return None
        if j is None:
            row = [v for (a, b), v in sorted(vals.items()) if a == i]
            return row or None
        return vals.get((i, j))
    if m.group("sc"):
        idx = m.group("sc").translate(SUB)
        return cell("S", int(idx[0]), int(idx[1]))
    if m.group("da"):
        if (m.group("da"), m.group("db")) != ("q", "k"):
            return None
        return cell("QKt", int(m.group("di").translate(SUB)), int(m.group("dj").translate(SUB)))
    if m.group("cm"):
        idx = m.group("ci").translate(SUB)
        return cell(CELL_MATS[m.group("cm")], int(idx[0]), int(idx[1]) if len(idx) > 1 else None)
    return cell(m.group("bm"), int(m.group("bi")), int(m.group("bj")) if m.group("bj") else None)


ARITH_IN_SAY = re.compile(r"(?P<expr>[\d.−\-+×÷·*/()\[\]√ ]+?)=\s*(?P<num>" + NNUM + r")(?!\d|\.\d)")


def check_narration_arith(text, report):
    """Plain arithmetic written in the narration ("[(0.1)(0.2) + (0.3)(0.4)] ÷ √2 = 0.094") reproduces."""
    for m in ARITH_IN_SAY.finditer(text):
        expr = m.group("expr").strip()
        after = text[m.end():m.end() + 2].lstrip()
        if not re.search(r"\d", expr) or not re.search(r"[+×÷·*/√−-]\s*[\d(\[√]", expr) or \
                after[:1] in ("·", "×", "÷", "/", "*", "(", "[", "+", "^"):
            continue
        before = text[:m.start()].rstrip()
        if before and before[-1] not in "=:：，,;；。 " and not re.search(r"[A-Za-z₀-₉\u4e00-\u9fff]$", before):
            continue
        try:
            v = evaluate(expr.replace("[", "(").replace("]", ")"), lambda name: (_ for _ in ()).throw(Unknown(name)))
        except (Unparsed, Unknown, Hidden, IndexError):
            continue
        if isinstance(v, list) or not rounds_to(v, m.group("num")):
            report("narration", "SAY writes %s= %s, which gives %s: …%s…" %
                   (expr, m.group("num"), v if isinstance(v, list) else "%.6g" % v, m.group(0).strip()))


def check_narration_equations(rec, report):
    """A sentence that writes a quantity equal to a live number ("score₁₂ = q₁·k₂ = 0.006") must stay
    true in every state: each name of the chain is recomputed from the state (q₁·k₂ from QKᵀ, the raw
    dot product; score from S; α from A ...), and must round to the printed number (a row: every
    number). A name after an operator or a function ("−ln α₁₃ = …") or a number before one
    ("o₂ = 0.5·v₁ + …") is not such a chain."""
    text = " ".join(t for k, t in rec.lines if k == "SAY")
    check_narration_arith(text, report)
    if rec.hdr.get("heads", "1") != "1":
        return
    for m in EQ_CHAIN.finditer(text):
        before = text[:m.start()].rstrip()
        if before and (before[-1] in "−-+×÷·*/(^√=" or re.search(r"(?:ln|exp|sqrt|sin|cos)$", before)):
            continue
        after = text[m.end():m.end() + 2].lstrip()
        if after[:1] in ("·", "×", "÷", "/", "*", "(", "[", "+", "^") or text[m.end():m.end() + 1].isalpha():
            continue
        nums = [x.strip() for x in re.split(r"[,、]", m.group("nums"))]
        for n in EQ_ONE.finditer(m.group("names")):
            v = eq_value(rec, n)
            if v is None:
                continue
            vs = v if isinstance(v, list) else [v]
            printed = nums if isinstance(v, list) else nums[:1]
            if len(printed) < len(vs) and isinstance(v, list):
                continue          # a row quoted in part
            bad = [p for x, p in zip(vs, printed) if not math.isinf(x) and not rounds_to(x, p)]
            if bad:
                report("narration", "SAY says %s= %s, but %s is %s here: …%s…" %
                       (n.group(0)[:-1], ", ".join(printed), n.group(0)[:-1].strip(),
                        ", ".join(fmt_to(x, rec.digits) for x in vs), m.group(0)))


# ---- leaks ------------------------------------------------------------------------------------

def same_mat(a, b):
    a1 = a[:-1] if re.fullmatch(r"(?:Q|K|V|QKt|S|A|O)1", a) else a
    b1 = b[:-1] if re.fullmatch(r"(?:Q|K|V|QKt|S|A|O)1", b) else b
    return a1 == b1


def trivial(v, digits):
    """0, 1 and values with one significant digit (0.001 .. 0.009) are printed
    everywhere by chance; they are looked for in the asked cell only."""
    return abs(round(abs(v), digits)) < 10 ** -(digits - 1) or fmt_to(abs(v), digits) == fmt_to(1, digits)


NEIGHBOUR_KINDS = ("TRACE", "STATUS", "NOTICE", "BARS")


def neighbours(v, digits, kind):
    """The asked value as printed and, on the lines that print a cell's value as such (the trace,
    the status line, the notice, the bars), its rounding neighbours one unit of the last digit away
    (other lines print neighbouring numbers by chance: a score 0.682 beside a weight 0.683)."""
    unit = 10 ** -digits
    near = [x for x in (v - unit, v + unit) if not trivial(x, digits)] if kind in NEIGHBOUR_KINDS else []
    return [fmt_to(x, digits).replace("-", "−") for x in [v] + near]


CELL_NAME_RE = re.compile(r"(qk|Wq|Wk|Wv|Wo|[qkvxhpsαoy]|a_)([" + SUBCHARS + r"]+|\d+)"
                          r"(?: \((?:h\d+·\d+|h\d+\.\d+)\))?"
                          r"(?:\s*[（(](?:was|原) [^)）]*[)）])?"
                          r"\s+(=\s+)?(\?|[−-]?\d+(?:\.\d+)?(?:e[+−-]?\d+)?|[−-]?∞|NaN|inf)"
                          r"(?:\s*(?:→|->)\s*(\?|[−-]?\d+(?:\.\d+)?(?:e[+−-]?\d+)?|[−-]?∞|NaN|inf))?")
NAME_MAT = {"q": "Q", "k": "K", "v": "V", "x": "X", "h": "H", "p": "P", "s": "S", "α": "A", "a_": "A", "o": "O",
            "y": "Y", "qk": "QKt"}


def split_name(name):
    """A matrix name's base and head: "A2" -> ("A", 2); a model's "L1.A2" -> ("A", 2) (its layer dropped),
    "L1.h_mid" -> ("h_mid", 1), "p" -> ("p", 1)."""
    local = re.sub(r"^L\d+\.", "", name)
    m = re.fullmatch(r"([A-Za-z_]+?)(\d*)", local)
    if not m:
        return local, 1
    return m.group(1), int(m.group(2) or 1)


def local_name(rec, name):
    """How the screen's cells name a matrix: a model's "L2.A1" is "A1" when layer 2 is shown (its cells are
    the layer's attention's), None when another layer is; any other name as it is."""
    m = re.fullmatch(r"L(\d+)\.(.*)", name)
    if not m:
        return name
    return m.group(2) if m.group(1) == rec.hdr.get("layer") else None


def hidden_cells(rec):
    """The cells an open (or wrongly answered) ask hides, by base matrix and head:
    the asked ones, their rows of A, and where a swap moved their tokens."""
    out = set()
    for mat, i, j, state, digits, values in rec.asks:
        if state not in ("open", "wrong"):
            continue
        base, head = split_name(mat)
        js = [j] if j > 0 else list(range(1, len(values) + 1))
        for jj in js:
            out.add((base, head, i, jj))
        if base == "A":
            out.add((base, head, i, None))
        for wm, wi, wj, ni, nj, v in rec.was_asked:
            if wm == mat and wi == i and (j <= 0 or wj == j):
                out.add((base, head, ni, nj))
                if base == "A":
                    out.add((base, head, ni, None))
    return out


def check_named_cells(rec, report):
    """A TRACE or STATUS line names an asked cell with its numbers ("s₁₂ 0.006 → ?")."""
    hidden = hidden_cells(rec)
    if not hidden:
        return
    head = int(rec.hdr.get("head", 1))
    # with no change of the student's, the before is the step's own do:'s (shown a step earlier)
    scripted = rec.hdr.get("state") in ("scripted", "head2", "wrong", "variant7", "reopen")
    joined = {}                  # a line cut by the screen's width goes on in the next row
    for kind, t in rec.lines:
        if kind in ("TRACE", "STATUS"):
            joined[kind] = (joined.get(kind, "") + " " + t.strip()).strip()
    for kind, t in joined.items():
        for m in CELL_NAME_RE.finditer(t):
            base = NAME_MAT.get(m.group(1))
            idx = m.group(2).translate(SUB)
            if base is None or len(idx) != 2:
                continue
            i, j = int(idx[0]), int(idx[1])
            if (base, head, i, j) not in hidden and (base, head, i, None) not in hidden:
                continue
            shown = (m.group(4), m.group(5)) if m.group(5) is not None and not scripted else \
                (m.group(5) if m.group(5) is not None else m.group(4),)
            nums = [x for x in shown if x is not None and x != "?"]
            if nums:
                report("leak", "%s names the asked cell %s with %s: %s" % (kind, m.group(0).split()[0],
                                                                          ", ".join(nums), t.strip()))


def shown_values(rec, digits):
    """The printed values of every cell of this state that no ask hides: a number of the state
    before the departure that is also one of these is that cell's (a coincidence), not a leak."""
    hidden = hidden_cells(rec)
    out = set()
    for name, cells in rec.vals.items():
        base, head = split_name(name)
        for (i, j), v in cells.items():
            if (base, head, i, j) not in hidden and (base, head, i, None) not in hidden and not math.isinf(v):
                out.add(fmt_to(v, digits).replace("-", "−"))
    return out


def labelled_spans(t, hidden, head):
    """Where a TRACE or STATUS line gives a number as another cell's, named beside it ("s₁₃ 0.013 →
    0.051"): that number is the named cell's (an unhidden one), not an asked value near it."""
    spans = set()
    for m in CELL_NAME_RE.finditer(t):
        base = NAME_MAT.get(m.group(1))
        idx = m.group(2).translate(SUB)
        if base is None or len(idx) != 2:
            continue
        i, j = int(idx[0]), int(idx[1])
        if (base, head, i, j) in hidden or (base, head, i, None) in hidden:
            continue
        for g in (4, 5):
            if m.group(g) is not None:
                spans.add(m.span(g))
    return spans


def check_leaks(rec, candidates, report):
    check_named_cells(rec, report)
    explained = None
    hidden, head = hidden_cells(rec), int(rec.hdr.get("head", 1))
    for wm, wi, wj, ni, nj, v in rec.was_asked:
        ask = [a for a in rec.asks if a[0] == wm and a[1] == wi and (a[2] <= 0 or a[2] == wj)]
        if not ask or ask[0][3] not in ("open", "wrong"):
            continue
        digits = ask[0][4]
        name = "%s[%d][%d]" % (wm, wi, wj)
        for cname, cells in rec.cells.items():   # where a swap moved its tokens
            if same_mat(cname, wm) and (ni, nj) in cells and re.search(r"\d", cells[(ni, nj)]):
                report("leak", "%s = %s (before the departure) is shown in cell [%d][%d] (%s)" %
                       (name, fmt_to(v, digits), ni, nj, cells[(ni, nj)].strip()))
        if trivial(v, digits):
            continue
        if explained is None:
            explained = shown_values(rec, digits)
        for kind, t in rec.lines:
            if kind not in TEXT_KINDS:
                continue
            texts = [x for x in neighbours(v, digits, kind) if x not in explained]
            own = labelled_spans(t, hidden, head) if kind in ("TRACE", "STATUS") else set()
            found = [m.group(0) for m in NUM_RE.finditer(t) if m.group(0) in texts and m.span() not in own]
            if found:
                report("leak", "%s = %s (before the departure, u brings it back) is on the %s line as %s: %s" %
                       (name, texts[0], kind, found[0], t.strip()))
    for mat, i, j, state, digits, values in rec.asks:
        if state not in ("open", "wrong"):   # answered wrong: hidden until retried or revealed
            continue
        js = [j] if j > 0 else list(range(1, len(values) + 1))
        for jj, v in zip(js, values):
            shown = fmt_to(v, digits).replace("-", "−")
            name = "%s[%d][%d]" % (mat, i, jj)
            # the asked cell itself
            local = local_name(rec, mat)
            for cname, cells in rec.cells.items():
                if local is not None and same_mat(cname, local) and (i, jj) in cells and \
                        re.search(r"\d", cells[(i, jj)]):
                    report("leak", "%s = %s is shown in its cell (%s)" % (name, shown, cells[(i, jj)].strip()))
            # the text lines: the value as printed, or a rounding neighbour (in a model lesson, not a
            # number that is also another, unhidden cell's: h_mid = h_in + 0 once the head is ablated)
            if "layer" in rec.hdr and explained is None:
                explained = shown_values(rec, digits)
            if not trivial(v, digits) and not ("layer" in rec.hdr and shown in explained):
                for kind, t in rec.lines:
                    # a model lesson's own matrices and the next token's bars are text lines (no CELLs)
                    if kind not in TEXT_KINDS and not (kind == "MATRICES" and "layer" in rec.hdr):
                        continue
                    texts = neighbours(v, digits, kind)
                    own = labelled_spans(t, hidden, head) if kind in ("TRACE", "STATUS") else set()
                    for m in NUM_RE.finditer(t):
                        if m.span() in own and m.group(0) != shown:
                            continue  # a neighbour given as another cell's value, named beside it
                        # an operand of the asked cell's own sum ("o₁₁ = (1.000)(−0.244) = ?")
                        # is an input of the exercise (here v₁₁ under a weight of 1), not its answer
                        operand = re.search(r"= \?( …)?$", t.rstrip()) and t[m.start() - 1:m.start()] == "(" and \
                            t[m.end():m.end() + 1] == ")"
                        if m.group(0) in texts and not operand:
                            report("leak", "%s = %s is on the %s line%s: %s" %
                                   (name, shown, kind, "" if m.group(0) == shown else " as " + m.group(0), t.strip()))
                            break
            # one step away
            if re.sub(r"\d+$", "", mat) == "A":
                for row, key, cv, how in candidates:
                    if (row is None or row == i) and (key is None or key == jj) and \
                            fmt_to(cv, digits) == fmt_to(v, digits) and not trivial(v, digits):
                        report("leak", "%s = %s is one step away (%s)" % (name, shown, how))
                        break


# ---- one record ----------------------------------------------------------------------------------

def check_record(rec, fails):
    def report(kind, detail):
        fails.append((kind, "%s: %s: %s" % (rec.where, kind, detail)))

    departed = rec.hdr.get("departed") == "1"
    notices = [t for k, t in rec.lines if k == "NOTICE" and t.strip()]
    state = rec.hdr.get("state")
    if departed and not notices:
        report("notice", "departed (%s) but no notice" % (rec.applied or state))
    if not departed and notices:
        about_head = state.startswith("head2") and all(re.search(r"head|头", t) for t in notices)
        if not about_head:
            report("notice", "not departed, yet a notice: %s" % notices[0].strip())
    head = int(rec.hdr.get("head", 1))
    candidates = []
    for kind in ("ARITH", "TRAIN"):
        ctx = Context(rec, head)
        for line in logical_lines([t for k, t in rec.lines if k == kind]):
            check_arith_line(line, ctx, report)
        candidates += ctx.candidates
    for k, t in rec.lines:
        if k in TEXT_KINDS:
            check_format(t, report)
    check_narration(rec, report)
    check_narration_equations(rec, report)
    check_leaks(rec, candidates, report)


# ---- --dump ---------------------------------------------------------------------------------------

TABLE_HEAD = re.compile(r"^  (\S+)\s+\d+×\d+")


def check_dumps(path, fails):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^@@ DUMP (.*)$", text, flags=re.M)
    for k in range(1, len(parts), 2):
        hdr = dict(kv.split("=", 1) for kv in parts[k].split())
        body = parts[k + 1]
        where = "%s - %s dump%s" % (hdr["lesson"], hdr["lang"], "" if hdr["variant"] == "none" else
                                    " --variant " + hdr["variant"])

        def report(kind, detail, step="-"):
            fails.append((kind, "%s: %s: %s" % (where.replace(" - ", " %s " % step, 1), kind, detail)))
        if "@@ DUMPFAIL" in body:
            report("render", "qkvtutor --dump failed")
            continue
        steps = re.split(r"^── (\d+)/\d+ .*$", body, flags=re.M)
        top = steps[0]
        has_notice = "✎" in top
        if hdr["variant"] != "none" and not has_notice:
            report("notice", "--dump --variant %s has no ✎ notice at the top" % hdr["variant"])
        if hdr["variant"] == "none" and has_notice:
            report("notice", "a plain --dump shows a notice at the top")
        for s in range(1, len(steps), 2):
            num, body_s = steps[s], steps[s + 1]
            rec = Rec("@@ REC lesson=%s step=%s/0 lang=%s size=dump state=dump" % (hdr["lesson"], num, hdr["lang"]))
            rec.dump = True
            rec.tables = defaultdict(dict)
            arith = []
            paras = re.split(r"\n\s*\n", body_s.strip("\n"))
            name = None
            for para in paras[1:]:
                for line in para.split("\n"):
                    m = TABLE_HEAD.match(line)
                    if m:
                        name, row = m.group(1), 0
                        continue
                    if line.startswith("    ") and name and not line.startswith("            "):
                        cells = line.split()
                        if row == 0 and not re.search(r"\d\.\d", line):
                            row = 1
                            continue
                        vals = [c for c in cells if re.fullmatch(r"[−-]?\d+\.\d+|[−-]?∞|\?", c)]
                        for j, c in enumerate(vals):
                            rec.tables[name][(row, j + 1)] = c
                        row += 1
                        continue
                    name = None
                    st = line.strip()
                    if re.match(r"^(?:expect|do|options|effect|ask|question|预期|效果|选项|提问|问题)\s*[:：]", st):
                        continue
                    if line.startswith("            ") and arith:
                        arith.append(st)            # the training panel's lines
                    elif line.startswith("  "):
                        arith.append(re.sub(r"^(?:training|训练)[:：]\s*", "", st))
            ctx = Context(rec, 1)
            for line in arith:
                check_arith_line(line, ctx, lambda kind, detail: report(kind, detail, num))
                check_format(line, lambda kind, detail: report(kind, detail, num))


# ---- main ---------------------------------------------------------------------------------------------

def run(plans, dumps):
    fails = []
    for rec in parse_plans(plans, fails):
        check_record(rec, fails)
    if dumps:
        check_dumps(dumps, fails)
    return fails


def summary(fails, out):
    counts = OrderedDict()
    for kind, _ in fails:
        counts[kind] = counts.get(kind, 0) + 1
    out.write("truth: %d failure%s" % (len(fails), "" if len(fails) == 1 else "s"))
    if counts:
        out.write(" (%s)" % ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    out.write("; %s\n" % ", ".join("%s %d" % kv for kv in STATS.items()))


def self_test(folder):
    import glob
    import os
    import tempfile
    bad = 0
    files = sorted(glob.glob(os.path.join(folder, "*.txt")))
    if not files:
        print("truth self-test: no records in %s" % folder)
        return 1
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        want = re.findall(r"^# expect: (\S+)(?: (.*))?$", text, flags=re.M)
        none = re.search(r"^# expect-none$", text, flags=re.M) is not None
        body = "\n".join(l for l in text.split("\n") if not l.startswith("# "))
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as tmp:
            tmp.write(body)
        try:
            if "@@ DUMP" in body:
                fails = []
                check_dumps(tmp.name, fails)
            else:
                fails = run(tmp.name, None)
        finally:
            os.unlink(tmp.name)
        kinds = [k for k, _ in fails]
        for kind, sub in want:
            if not any(k == kind and (not sub or sub in d) for k, d in fails):
                print("truth self-test: %s: expected a %s failure%s, got: %s" %
                      (os.path.basename(path), kind, " with %r" % sub if sub else "",
                       "; ".join(d for _, d in fails) or "none"))
                bad += 1
        if none and fails:
            print("truth self-test: %s: expected no failure, got: %s" % (os.path.basename(path),
                                                                          "; ".join(d for _, d in fails)))
            bad += 1
        extra = [d for k, d in fails if k not in [w for w, _ in want]]
        if want and extra:
            print("truth self-test: %s: unexpected: %s" % (os.path.basename(path), "; ".join(extra)))
            bad += 1
        del kinds
    print("truth self-test: %d records, %s" % (len(files), "ok" if not bad else "%d FAILED" % bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--self-test":
        return self_test(argv[2] if len(argv) > 2 else "tests/truth")
    list_kinds = len(argv) >= 2 and argv[1] == "--list-kinds"
    args = argv[2:] if list_kinds else argv[1:]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    fails = run(args[0], args[1] if len(args) > 1 else None)
    if list_kinds:
        by = defaultdict(list)
        for kind, d in fails:
            by[kind].append(d)
        for kind in sorted(by):
            print("%s: %d" % (kind, len(by[kind])))
            for d in by[kind][:3]:
                print("    " + d)
    else:
        for _, d in fails:
            print(d)
    summary(fails, sys.stdout)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
