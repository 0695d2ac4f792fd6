#!/usr/bin/python3
"""tests/arch.py BUILD CC CFLAGS... - the shape of the code stays as DESIGN.md
"Architecture" draws it (README.md "How the code is laid out").

It reads what the compiler reads, not what a grep guesses:
  * includes: every #include of every file under src/ resolved the way the
    compiler resolves it (the quote and angle search lists `CC -E -v` prints
    for these flags: "x.h" from the including file's folder first, <x.h> and
    "curses.h" through -Isrc and the system folders), checked against the
    compiler's own dependency list (`CC -M -MG` of every file);
  * calls: the object files of the build (`nm -u`, `nm --defined-only`): an
    object depends on another when it uses a symbol the other defines;
  * code: each file as C tokens (comments, strings and preprocessor lines
    told apart), so brace style, spacing and spelling do not matter.

The rules (one name each; a breach prints "FAIL: [rule] ..."):
  include-direction  includes point one way: core <- text <- lesson <- words
                     <- layout <- ui <- term / web / out <- main; core/
                     includes nothing of ours, text/ only core/ and itself;
                     term/, web/, out/ do not include each other
  curses             a header that resolves to curses or terminfo (ncurses.h,
                     curses.h, term.h, ...) only in src/term/ and src/main.c,
                     however spelled and through however many headers
  int-header         no file includes another folder's *_int.h
  include-cycle      no circle of includes between modules (x.c with x.h) of
                     any length, in any folder
  call-cycle         no circle of object files using each other's symbols, of
                     any length (strongly connected components)
  call-direction     an object uses only its own layer's symbols or lower ones
  file-size          no source file under src/ over 700 lines
  function-size      no function over 60 lines, from its "{" to its "}",
                     whatever the brace style, in .c and .h alike
  utf8               one UTF-8 decoder: no UTF-8 byte test outside
                     src/text/text.[ch] (a 0x80/0xC0/0xE0/0xF0/0xF8 mask in
                     any base, ">> 6 == 2" and kin, a byte compared with or
                     written as 0x80..0xFF, a non-ASCII byte spelled as an
                     escape, memcmp of a non-ASCII literal, mbstowcs/mbrtowc/
                     wcwidth and kin)
  number             one number printer and parser: float conversions (%g, %f,
                     %e, %a in any form) and strtod/strtol/atof/atoi/sscanf
                     and kin only in src/text/num.[ch] and shortest*.[ch]
  core-pure          core/ is pure computation: its objects call no I/O (stdio,
                     open/read/write, getenv, time, rand ...) and define no
                     writable data (.data, .bss: objdump -t)
  browser            nothing outside src/web/ knows the browser: no
                     emscripten header, no __EMSCRIPTEN__ / EM_ASM / EM_JS
  names              files are named for what they hold, not when they were
                     written: no *_modern, *_new, *_old, *_legacy, *_v2
  contract           every header under src/ opens with its contract comment
                     ("/* name.h - what it is for ...", at least 5 words)
  objects            every src/ .c but web/'s has an object in BUILD

`--self-test` (what `make arch` runs after the check) copies src/ and the
objects into a scratch folder, plants each kind of breach there (every one of
code-review §1.3's 18 and more), recompiles what it touched and sees the check
fail on exactly the rule planted, and pass as the unplanted copy does.

One line per rule or breach, then "arch: N passed, M failed"; exit 1 on any
failure.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

RANK = {'core': 0, 'text': 1, 'lesson': 2, 'words': 3, 'layout': 4, 'ui': 5,
        'term': 6, 'web': 6, 'out': 6, 'main': 7}
ORDER = 'core <- text <- lesson <- words <- layout <- ui <- term / web / out <- main'
MAX_FILE = 700
MAX_FN = 60
CURSES_ALLOWED = ('term',)            # and main
UTF8_OWN = ('src/text/text.c', 'src/text/text.h')
NUMBER_OWN = re.compile(r'^src/text/(num|shortest\w*)\.[ch]$')
CURSES_HDR = re.compile(r'(^|/)(n?curses\w*|term|term_entry|termcap|terminfo|unctrl|panel|menu|form|eti|tic|'
                        r'curses\.priv)\.h$|/ncurses\w*/')
MB_FUNCS = {'mbstowcs', 'mbsrtowcs', 'mbsnrtowcs', 'mbrtowc', 'mbtowc', 'mblen', 'mbrlen', 'mbsinit',
            'wcwidth', 'wcswidth', 'wcstombs', 'wcsrtombs', 'wcsnrtombs', 'wcrtomb', 'wctomb', 'btowc',
            'wctob', 'mbrtoc16', 'mbrtoc32', 'c16rtomb', 'c32rtomb', 'mbrtoc8', 'c8rtomb'}
UTF8_MASKS = {0xC0, 0xE0, 0xF0, 0xF8}
# a byte compared with one of these is a UTF-8 range test (c >= 0xC2 && c <= 0xDF)
UTF8_BOUNDS = {0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xEF, 0xF0, 0xF4, 0xF5, 0xF7, 0xF8}
UTF8_LEAD = (0xC2, 0xF4)  # lead bytes: matched (== 0xE2) or written (0xe2) by hand
UTF8_SHIFTS = {(6, 2), (5, 6), (4, 14), (3, 30)}
PARSERS = {'strtod', 'strtof', 'strtold', 'atof', 'strtol', 'strtoll', 'strtoul', 'strtoull', 'atoi',
           'atol', 'atoll', 'sscanf', 'vsscanf', 'scanf', 'vscanf', 'fscanf', 'vfscanf', 'strtoimax',
           'strtoumax', 'wcstod', 'wcstof', 'wcstol', 'strfromd', 'strfromf'}
CMP_OPS = {'==', '!=', '<', '<=', '>', '>='}
RULES = ['include-direction', 'curses', 'int-header', 'include-cycle', 'call-cycle', 'call-direction',
         'file-size', 'function-size', 'utf8', 'number', 'core-pure', 'browser', 'names', 'contract', 'objects']
CORE_IO = {'printf', 'fprintf', 'vprintf', 'vfprintf', 'dprintf', 'vdprintf', 'puts', 'fputs', 'fputc', 'putc',
           'putchar', 'fwrite', 'fread', 'fopen', 'fdopen', 'freopen', 'fclose', 'fflush', 'fgets', 'fgetc', 'getc',
           'getchar', 'getline', 'perror', 'stdin', 'stdout', 'stderr', 'open', 'openat', 'close', 'read', 'write',
           'pread', 'pwrite', 'stat', 'fstat', 'lstat', 'unlink', 'rename', 'mkdir', 'opendir', 'readdir', 'getenv',
           'time', 'clock', 'clock_gettime', 'gettimeofday', 'rand', 'srand', 'random', 'system', 'popen', 'fork',
           'exit', '_exit', 'abort', 'signal', 'sigaction', 'setlocale', 'gettext', 'dgettext'}
BROWSER = {'__EMSCRIPTEN__', 'EM_ASM', 'EM_ASM_INT', 'EM_ASM_DOUBLE', 'EM_JS', 'EMSCRIPTEN_KEEPALIVE'}
WHEN_NAMED = re.compile(r'(^|_)(modern|new|old|legacy|tmp|temp|v\d+)(_|\.)')


# --- C tokens ---------------------------------------------------------------

TOKEN = re.compile(r'''
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) | (?P<cont>\\\n)
  | (?P<lc>//[^\n]*) | (?P<bc>/\*.*?\*/)
  | (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*)
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|[^\s])
''', re.X | re.S)


class Tok:
    __slots__ = ('kind', 'text', 'line', 'pp')

    def __init__(self, kind, text, line, pp):
        self.kind, self.text, self.line, self.pp = kind, text, line, pp

    def __repr__(self):
        return '%s:%r@%d' % (self.kind, self.text, self.line)


def tokenize(text):
    """C tokens without comments and white space; .pp marks a preprocessor
    line's tokens. Comments are returned apart: [(line, text)]."""
    toks, comments = [], []
    line, pos, pp, bol = 1, 0, False, True
    n = len(text)
    while pos < n:
        m = TOKEN.match(text, pos)
        if not m:  # an unterminated comment or quote: the rest is one token
            toks.append(Tok('op', text[pos], line, pp))
            pos += 1
            continue
        kind, s = m.lastgroup, m.group()
        pos = m.end()
        if kind == 'nl':
            line += 1
            pp, bol = False, True
            continue
        if kind == 'cont':
            line += 1
            continue
        if kind == 'ws':
            continue
        if kind in ('lc', 'bc'):
            comments.append((line, s))
            line += s.count('\n')
            continue
        if kind == 'op' and s == '#' and bol:
            pp = True
        bol = False
        toks.append(Tok(kind, s, line, pp))
    return toks, comments


def c_int(s):
    """The value of an integer constant in any base (suffixes, ' digit
    separators), or None."""
    t = s.replace("'", '').rstrip('uUlLzZ')
    try:
        if re.fullmatch(r'0[xX][0-9A-Fa-f]+', t):
            return int(t, 16)
        if re.fullmatch(r'0[bB][01]+', t):
            return int(t[2:], 2)
        if re.fullmatch(r'0[0-7]*', t):
            return int(t, 8)
        if re.fullmatch(r'[1-9][0-9]*', t):
            return int(t)
    except ValueError:
        pass
    return None


ESC = re.compile(r'\\(x[0-9A-Fa-f]+|[0-7]{1,3}|.)', re.S)


def literal_bytes(tok):
    """A string or character literal's bytes (escapes decoded) and whether a
    byte >= 0x80 was written as an escape."""
    s = tok.text
    q = s.index(s[-1])
    body = s[q + 1:-1]
    out, escaped_high, i = bytearray(), False, 0
    while i < len(body):
        if body[i] == '\\':
            m = ESC.match(body, i)
            e = m.group(1)
            if e[0] == 'x':
                v = int(e[1:], 16) & 0xFF
            elif e[0] in '01234567':
                v = int(e, 8) & 0xFF
            else:
                v = ord({'n': '\n', 't': '\t', 'r': '\r', '0': '\0', 'a': '\a', 'b': '\b', 'f': '\f',
                         'v': '\v', 'e': '\x1b'}.get(e, e)[0]) & 0xFF
            if v >= 0x80:
                escaped_high = True
            out.append(v)
            i = m.end()
        else:
            out += body[i].encode('utf-8')
            i += 1
    return bytes(out), escaped_high


FLOAT_CONV = re.compile(r"%[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:hh|h|ll|l|L|q|j|z|t)?([aAeEfFgG])")


def float_conversions(b):
    """The float conversions (%g, %.3f, %-8.2e ...) in a format's bytes."""
    s, found, i = b.decode('utf-8', 'replace'), [], 0
    while True:
        i = s.find('%', i)
        if i < 0:
            return found
        if s.startswith('%%', i):
            i += 2
            continue
        m = FLOAT_CONV.match(s, i)
        if m:
            found.append(m.group())
        i += 1


# --- the tree -----------------------------------------------------------------

def layer(rel):
    """src/main.c -> main, src/ui/x.c -> ui, anything else -> None."""
    p = rel.split('/')
    if p[0] != 'src':
        return None
    if len(p) == 2:
        return 'main' if p[1].endswith('.c') or p[1].endswith('.h') else None
    return p[1]


TOKENS = {}


class Tree:
    def __init__(self, root, build, cc, cflags, mcache=None):
        self.root, self.build, self.cc, self.cflags = root, build, cc, cflags
        self.mcache = {} if mcache is None else mcache
        self.files = sorted(os.path.relpath(os.path.join(d, f), root)
                            for d, _, fs in os.walk(os.path.join(root, 'src'))
                            for f in fs if f.endswith(('.c', '.h')))
        self.text = {f: open(os.path.join(root, f), encoding='utf-8', errors='surrogateescape').read()
                     for f in self.files}
        self.toks = {}
        self.search = None

    def tokens(self, f):
        """f's tokens, memoized on its contents (for the self-test's trees)."""
        s = self.text[f]
        if s not in TOKENS:
            TOKENS[s] = tokenize(s)
        return TOKENS[s]

    def rel(self, path):
        """A path as the report shows it: relative to the tree when inside."""
        a = os.path.normpath(os.path.join(self.root, path))
        r = os.path.relpath(a, self.root)
        return a if r.startswith('..') else r

    def search_lists(self):
        """The compiler's own search lists for "..." and <...> with these flags."""
        if self.search is None:
            p = subprocess.run([self.cc, '-E', '-v', '-xc', '/dev/null'] + self.cflags, cwd=self.root,
                               capture_output=True, text=True)
            quote, angle, cur = [], [], None
            for ln in p.stderr.splitlines():
                if ln.startswith('#include "..." search starts here'):
                    cur = quote
                elif ln.startswith('#include <...> search starts here'):
                    cur = angle
                elif ln.startswith('End of search list'):
                    cur = None
                elif cur is not None and ln.startswith(' '):
                    cur.append(ln.strip().replace(' (framework directory)', ''))
            if not angle:
                raise SystemExit('arch: %s -E -v printed no search list' % self.cc)
            self.search = (quote, angle)
        return self.search

    def resolve(self, f, name, quoted):
        quote, angle = self.search_lists()
        dirs = ([os.path.dirname(f)] + quote + angle) if quoted else angle
        for d in dirs:
            p = os.path.join(d, name)
            if os.path.isfile(os.path.join(self.root, p)):
                return self.rel(p)
        return None

    def includes(self, f):
        """[(line, spelling, resolved path or None)] of f's #include lines."""
        out = []
        toks, _ = self.tokens(f)
        for k, t in enumerate(toks):
            if not (t.pp and t.text == '#' and k + 2 < len(toks) and toks[k + 1].text == 'include'
                    and toks[k + 1].line == t.line):
                continue
            a = toks[k + 2]
            if a.kind == 'str':
                name, quoted, spell = a.text[1:-1], True, a.text
            elif a.text == '<':
                line = self.text[f].split('\n')[t.line - 1]
                m = re.search(r'include\s*<([^>]*)>', line)
                name, quoted, spell = (m.group(1) if m else ''), False, '<%s>' % (m.group(1) if m else '')
            else:
                out.append((t.line, a.text, None))
                continue
            out.append((t.line, spell, self.resolve(f, name, quoted)))
        return out

    def deps(self, f):
        """The compiler's dependency list for f (`CC -M -MG`). Cached on f's
        contents, the contents of what it read last time and the names of
        the tree's headers (the self-test plants a file at a time)."""
        if not hasattr(self, '_hnames'):
            self._hnames = hashlib.sha1('\0'.join(g for g in self.files if g.endswith('.h')).encode()).hexdigest()
        key = (f, self.text[f], self._hnames, tuple(self.cflags))
        for deps, seen in self.mcache.get(key, ()):
            if all(self.content(d) == c for d, c in seen):
                return deps
        p = subprocess.run([self.cc, '-M', '-MG', '-xc', f] + self.cflags, cwd=self.root,
                           capture_output=True, text=True)
        words = p.stdout.replace('\\\n', ' ').split()
        deps = [self.rel(w) for w in words[1:] if not w.endswith(':')][1:]
        self.mcache.setdefault(key, []).append((deps, [(d, self.content(d)) for d in deps]))
        return deps

    def content(self, path):
        if path in self.text:
            return self.text[path]
        try:
            return os.stat(os.path.join(self.root, path)).st_mtime_ns
        except OSError:
            return None

    def objects(self):
        """{object: source} for every src/ .c outside web/ (web/ is built
        by emcc, not in BUILD)."""
        out = {}
        for f in self.files:
            if f.endswith('.c') and layer(f) not in (None, 'web'):
                out[os.path.join(self.build, f[4:-2] + '.o')] = f
        return out


# --- graphs ---------------------------------------------------------------------

def sccs(nodes, edges):
    """Tarjan's strongly connected components of size >= 2 (or a node with
    an edge to itself)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_cycle(comp, edges):
    """A shortest circle through the component's first node."""
    start, inside = comp[0], set(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, ())):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start, start]


# --- the check ---------------------------------------------------------------------

class Report:
    def __init__(self, quiet=False):
        self.fails, self.oks, self.quiet = [], [], quiet

    def bad(self, rule, msg):
        self.fails.append((rule, msg))
        if not self.quiet:
            print('FAIL: [%s] %s' % (rule, msg))

    def ok(self, rule, msg):
        self.oks.append(rule)
        if not self.quiet:
            print('ok: [%s] %s' % (rule, msg))

    def count(self, rule):
        return sum(1 for r, _ in self.fails if r == rule)


def module(f):
    return f[:-2] if f.endswith(('.c', '.h')) else f


def check_includes(t, rep):
    edges, where = {}, {}  # module edges, and (module, module) -> "file:line includes x"
    curses_seen, n_dir, n_int = [], 0, 0
    inc = {f: t.includes(f) for f in t.files}
    for f in t.files:
        lf = layer(f)
        for line, spell, g in inc[f]:
            if g is None:
                if 'emscripten' in spell.lower() and lf != 'web':
                    rep.bad('browser', '%s:%d includes %s: only src/web/ knows the browser' % (f, line, spell))
                if spell.startswith('"') or spell.startswith('<'):
                    # not found: a generated or absent header (-MG); a
                    # project-looking path is a breach of its own
                    if '/' in spell and spell[1:].split('/')[0] in RANK:
                        rep.bad('include-direction', '%s:%d includes %s, which is not in src/' % (f, line, spell))
                        n_dir += 1
                    continue
                rep.bad('include-direction', '%s:%d includes by a macro (%s): spell the header out' % (f, line, spell))
                n_dir += 1
                continue
            if CURSES_HDR.search(g) and not g.startswith('src/'):
                curses_seen.append((f, line, spell, g))
            if 'emscripten' in g.lower() and lf != 'web':
                rep.bad('browser', '%s:%d includes %s: only src/web/ knows the browser' % (f, line, spell))
            lg = layer(g)
            if lg is None:
                if not os.path.isabs(g):
                    rep.bad('include-direction', '%s:%d includes %s (%s), outside src/' % (f, line, spell, g))
                    n_dir += 1
                continue
            if lg != lf:
                why = None
                if lf == 'core':
                    why = 'core includes nothing of ours'
                elif lf == 'text' and lg != 'core':
                    why = 'text/ (the base) includes only core/ and itself'
                elif RANK.get(lg, 9) > RANK.get(lf, 9):
                    why = '%s/ is below %s/ (%s)' % (lf, lg, ORDER)
                elif RANK.get(lg, 9) == RANK.get(lf, 9):
                    why = '%s/ and %s/ do not include each other' % (lf, lg)
                if why:
                    rep.bad('include-direction', '%s:%d includes %s (%s): %s' % (f, line, spell, g, why))
                    n_dir += 1
                if g.endswith('_int.h'):
                    rep.bad('int-header', '%s:%d includes %s, the internal header of %s/: use its public header'
                            % (f, line, g, lg))
                    n_int += 1
            mf, mg = module(f), module(g)
            if mf != mg:
                edges.setdefault(mf, set()).add(mg)
                where.setdefault((mf, mg), '%s:%d includes %s' % (f, line, spell))
    # the compiler's own list: every header it reads for f must be one this
    # scan saw f reach (else an include went unseen), and curses however
    # it came
    reach = {}

    def reached(f):
        if f not in reach:
            reach[f] = set()
            todo = [f]
            while todo:
                x = todo.pop()
                for _, _, g in inc.get(x, ()):
                    if g and g not in reach[f]:
                        reach[f].add(g)
                        if g in inc:
                            todo.append(g)
        return reach[f]

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        deps = dict(zip(t.files, ex.map(t.deps, t.files)))
    for f in t.files:
        r = reached(f)
        for g in deps[f]:
            if g.startswith('src/') and g not in r and g != f:
                rep.bad('include-direction', '%s reads %s (the compiler says so), by an include this scan cannot see'
                        % (f, g))
                n_dir += 1
        lf = layer(f)
        if lf in CURSES_ALLOWED or f == 'src/main.c':
            continue
        cur = [g for g in deps[f] if CURSES_HDR.search(g) and not g.startswith('src/')]
        if cur:
            direct = [c for c in curses_seen if c[0] == f]
            if direct:
                how = 'line %d includes %s, which resolves to %s' % (direct[0][1], direct[0][2], direct[0][3])
            else:
                via = [g for _, _, g in inc[f] if g and g in deps and set(cur) & set(deps[g])]
                how = 'through %s it reads %s' % (via[0] if via else 'its includes', cur[0])
            rep.bad('curses', '%s: %s; curses only in src/term/ and src/main.c' % (f, how))
    if not rep.count('curses'):
        rep.ok('curses', 'no file outside src/term/ and src/main.c reads a curses header (%d files, %s -M)'
               % (len(t.files), t.cc))
    if not n_dir:
        rep.ok('include-direction', 'includes point one way (%s), as the compiler resolves them' % ORDER)
    if not n_int:
        rep.ok('int-header', "no file includes another folder's *_int.h")
    cyc = sccs(set(edges) | {m for s in edges.values() for m in s}, edges)
    for comp in cyc:
        path = one_cycle(comp, edges)
        steps = ' -> '.join('%s (%s)' % (a, where[(a, b)]) for a, b in zip(path, path[1:]))
        rep.bad('include-cycle', 'modules %s include each other in a circle: %s -> %s'
                % (', '.join(comp), steps, path[-1]))
    if not cyc:
        rep.ok('include-cycle', 'no circle of includes between modules (x.c with x.h), of any length (%d modules)'
               % len(set(edges) | {m for s in edges.values() for m in s}))


def nm(args, objs):
    out = []
    for k in range(0, len(objs), 200):
        p = subprocess.run(['nm', '-A'] + args + objs[k:k + 200], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit('arch: nm failed: ' + p.stderr.strip())
        out += p.stdout.splitlines()
    return out


def check_calls(t, rep):
    objs = t.objects()
    have = {o: s for o, s in objs.items() if os.path.isfile(os.path.join(t.root, o))}
    for o, s in sorted(objs.items()):
        if o not in have:
            rep.bad('objects', '%s has no object %s (build first: make all)' % (s, o))
    if not rep.count('objects'):
        rep.ok('objects', 'every src/ .c outside web/ has its object in %s (%d)' % (t.build, len(have)))
    if not have:
        return
    names = sorted(have)
    cwd = os.getcwd()
    os.chdir(t.root)
    try:
        defs, undef = {}, {}
        for ln in nm(['-g', '--defined-only'], names):
            o, rest = ln.split(':', 1)
            p = rest.split()
            if len(p) >= 3:
                defs.setdefault(p[2], o)
        for ln in nm(['-u'], names):
            o, rest = ln.split(':', 1)
            p = rest.split()
            if p:
                undef.setdefault(o, []).append(p[-1])
    finally:
        os.chdir(cwd)
    src = {o: have[o][4:-2] for o in have}  # ui/answer
    n = 0
    core = [o for o in names if src[o].startswith('core/')]
    for o in core:
        for u in sorted(set(undef.get(o, ())) & CORE_IO):
            rep.bad('core-pure', '%s.o uses %s: core/ is pure computation, no I/O' % (src[o], u))
            n += 1
    cwd = os.getcwd()
    os.chdir(t.root)
    try:
        dump = subprocess.run(['objdump', '-t'] + core, capture_output=True, text=True).stdout if core else ''
    finally:
        os.chdir(cwd)
    obj = None
    for ln in dump.splitlines():
        m = re.match(r'^(\S+\.o):\s+file format', ln)
        if m:
            obj = m.group(1)
            continue
        p = ln.split()
        if obj and len(p) >= 5 and ' O ' in ln:
            sec = p[-3]
            if sec in ('.data', '.bss', '.data.rel', '.data.rel.local', '.tdata', '.tbss', '*COM*') or \
                    sec.startswith(('.data.', '.bss.')) and not sec.startswith('.data.rel.ro'):
                rep.bad('core-pure', '%s.o keeps the writable %s (%s): core/ has no globals' % (src[obj], p[-1], sec))
                n += 1
    if not n:
        rep.ok('core-pure', 'core/ calls no I/O and keeps no writable data (%d objects)' % len(core))
    edges, sym = {}, {}
    for o, us in undef.items():
        for u in sorted(us):
            d = defs.get(u)
            if d and d != o:
                a, b = src[o], src[d]
                edges.setdefault(a, set()).add(b)
                sym.setdefault((a, b), u)
    n = 0
    for a in sorted(edges):
        la = layer('src/' + a + '.c')
        for b in sorted(edges[a]):
            lb = layer('src/' + b + '.c')
            if la == lb or la == 'main':
                continue
            ra, rb = RANK.get(la, 9), RANK.get(lb, 9)
            if rb > ra:
                rep.bad('call-direction', '%s.o uses %s (%s.o): %s/ is below %s/ (%s)' % (a, sym[(a, b)], b, la, lb, ORDER))
                n += 1
            elif rb == ra:
                rep.bad('call-direction', '%s.o uses %s (%s.o): %s/ and %s/ do not call each other'
                        % (a, sym[(a, b)], b, la, lb))
                n += 1
    if not n:
        rep.ok('call-direction', 'every object uses only its own layer and the ones below (%d objects)' % len(have))
    cyc = sccs(set(src.values()), edges)
    for comp in cyc:
        path = one_cycle(comp, edges)
        steps = ' -> '.join('%s.o [%s]' % (a, sym[(a, b)]) for a, b in zip(path, path[1:]))
        rep.bad('call-cycle', 'objects %s use each other in a circle: %s -> %s.o'
                % (', '.join(c + '.o' for c in comp), steps, path[-1]))
    if not cyc:
        rep.ok('call-cycle', 'no circle of object files using each other, of any length (%d objects)' % len(have))


def functions(toks):
    """[(name, first line, lines)] of every function definition: a "{" at
    file level right after a ")" (the declarator's), to its matching "}"."""
    out, depth, start, name = [], 0, None, None
    code = [t for t in toks if not t.pp]
    for k, t in enumerate(code):
        if t.text == '{':
            if depth == 0 and k > 0 and code[k - 1].text == ')':
                # the name: the identifier before the "(" matching that ")"
                j, par = k - 1, 0
                while j >= 0:
                    if code[j].text == ')':
                        par += 1
                    elif code[j].text == '(':
                        par -= 1
                        if par == 0:
                            break
                    j -= 1
                nm_ = code[j - 1].text if j > 0 and code[j - 1].kind == 'id' else '?'
                start, name = t.line, nm_
            depth += 1
        elif t.text == '}':
            depth = max(0, depth - 1)
            if depth == 0 and start is not None:
                out.append((name, start, t.line - start + 1))
                start = None
    return out


def check_sizes(t, rep):
    n = 0
    for f in t.files:
        lines = t.text[f].count('\n') + (0 if t.text[f].endswith('\n') or not t.text[f] else 1)
        if lines > MAX_FILE:
            rep.bad('file-size', '%s has %d lines (at most %d)' % (f, lines, MAX_FILE))
            n += 1
    if not n:
        rep.ok('file-size', 'no source file under src/ over %d lines (%d files)' % (MAX_FILE, len(t.files)))
    n = nf = 0
    for f in t.files:
        for name, line, size in functions(t.tokens(f)[0]):
            nf += 1
            if size > MAX_FN:
                rep.bad('function-size', '%s:%d: %s has %d lines (at most %d)' % (f, line, name, size, MAX_FN))
                n += 1
    if not n:
        rep.ok('function-size', 'no function over %d lines, any brace style, .c and .h (%d functions)' % (MAX_FN, nf))


def utf8_breaches(toks):
    """[(line, what)] of UTF-8 byte tests in a token list."""
    out = []
    for k, t in enumerate(toks):
        prev = toks[k - 1] if k else None
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if t.kind == 'id' and t.text in MB_FUNCS:
            out.append((t.line, 'calls %s' % t.text))
        elif t.kind == 'num':
            v = c_int(t.text)
            if v is None:
                continue
            cmp_ = (prev and prev.text in CMP_OPS) or (nxt and nxt.text in CMP_OPS)
            eq = (prev and prev.text in ('==', '!=')) or (nxt and nxt.text in ('==', '!='))
            if v in UTF8_MASKS and ((prev and prev.text in ('&', '&=')) or (nxt and nxt.text == '&')):
                out.append((t.line, 'masks a byte with %s' % t.text))
            elif v in UTF8_BOUNDS and cmp_:
                out.append((t.line, 'compares a byte with %s, a UTF-8 boundary' % t.text))
            elif UTF8_LEAD[0] <= v <= UTF8_LEAD[1] and eq:
                out.append((t.line, 'matches the lead byte %s' % t.text))
            elif UTF8_LEAD[0] <= v <= UTF8_LEAD[1] and re.fullmatch(r'0[xX][0-9A-Fa-f]{2}|0[0-7]{3}', t.text):
                out.append((t.line, 'writes the lead byte %s' % t.text))
            elif prev and prev.text == '>>':
                j = k + 1
                while j < len(toks) and toks[j].text == ')':
                    j += 1
                if j + 1 < len(toks) and toks[j].text in ('==', '!=') and toks[j + 1].kind == 'num' \
                        and (v, c_int(toks[j + 1].text)) in UTF8_SHIFTS:
                    out.append((t.line, 'tests a lead byte with ">> %s %s %s"' % (t.text, toks[j].text, toks[j + 1].text)))
        elif t.kind in ('chr', 'str'):
            b, esc = literal_bytes(t)
            if t.kind == 'chr' and any(c >= 0x80 for c in b):
                out.append((t.line, 'compares a byte with %s' % t.text))
            elif t.kind == 'str' and any(c >= 0x80 for c in b):
                try:
                    b.decode('utf-8')
                except UnicodeDecodeError:
                    out.append((t.line, 'spells part of a UTF-8 character by hand: %s' % t.text[:24]))
    return out


def check_code(t, rep):
    nu = nn = 0
    for f in t.files:
        toks, _ = t.tokens(f)
        if f not in UTF8_OWN:
            for line, what in utf8_breaches(toks):
                rep.bad('utf8', '%s:%d: %s; use text.h (text_utf8_next, text_char_next, text_width ...)' % (f, line, what))
                nu += 1
        if not NUMBER_OWN.match(f):
            for tok in toks:
                if tok.kind == 'str':
                    conv = float_conversions(literal_bytes(tok)[0])
                    if conv:
                        rep.bad('number', '%s:%d: formats a float (%s); use num.h (num_format, fmt_num, fmt_exact ...)'
                                % (f, tok.line, conv[0]))
                        nn += 1
                elif tok.kind == 'id' and tok.text in PARSERS:
                    rep.bad('number', '%s:%d: parses a number with %s; use num.h (num_parse, num_value, num_whole ...)'
                            % (f, tok.line, tok.text))
                    nn += 1
    nb = 0
    for f in t.files:
        if layer(f) == 'web':
            continue
        for tok in t.tokens(f)[0]:
            if tok.kind == 'id' and tok.text in BROWSER:
                rep.bad('browser', '%s:%d: %s: only src/web/ knows the browser' % (f, tok.line, tok.text))
                nb += 1
    if not nb and not rep.count('browser'):
        rep.ok('browser', 'nothing outside src/web/ knows the browser')
    nn2 = 0
    for f in t.files:
        if WHEN_NAMED.search(os.path.basename(f)):
            rep.bad('names', '%s is named for when it was written: name it for what it holds' % f)
            nn2 += 1
    if not nn2:
        rep.ok('names', 'every file under src/ is named for what it holds (no *_modern, *_new, *_old)')
    if not nu:
        rep.ok('utf8', 'one UTF-8 decoder: no UTF-8 byte test outside src/text/text.[ch]')
    if not nn:
        rep.ok('number', 'one number printer and parser: no float format or strto*/ato*/sscanf outside src/text/num.c, shortest*.c')
    n = 0
    for f in t.files:
        if not f.endswith('.h'):
            continue
        toks, comments = t.tokens(f)
        first = comments[0] if comments else None
        base = os.path.basename(f)
        if not first or (toks and toks[0].line < first[0]) or not first[1].startswith('/*'):
            rep.bad('contract', '%s does not open with its contract comment ("/* %s - what it is for ... */")' % (f, base))
            n += 1
            continue
        body = first[1][2:-2].strip()
        m = re.match(re.escape(base) + r'\s+-\s+(.*)', body, re.S)
        if not m or len(re.findall(r'\w+', m.group(1))) < 5:
            rep.bad('contract', '%s opens with "%s", not "/* %s - what it is for ..." (5 words or more)'
                    % (f, body[:40].replace('\n', ' '), base))
            n += 1
    if not n:
        rep.ok('contract', 'every header under src/ opens with its contract comment')


def check(t, quiet=False):
    rep = Report(quiet)
    check_includes(t, rep)
    check_calls(t, rep)
    check_sizes(t, rep)
    check_code(t, rep)
    return rep



# --- the self-test -------------------------------------------------------------

def fn_lines(sig_open, n, close='}'):
    """A function of n lines from its "{" to its "}" (sig_open holds the
    "{" and is the first of them)."""
    return sig_open + '\n' + ''.join('    x += %d;\n' % k for k in range(n - 2)) + close + '\n'


def append(text):
    return lambda s: s + '\n' + text


def after_includes(line):
    """Insert a line after a file's first #include (so it compiles as the
    file did)."""
    def f(s):
        k = s.index('#include')
        k = s.index('\n', k) + 1
        return s[:k] + line + '\n' + s[k:]
    return f


KR80 = fn_lines('int arch_kr(int x);\nint arch_kr(int x) {', 80).replace('}\n', '    return x;\n}\n', 1)
# each plant: (what, rule(s) it must fail on, {file: edit or new text}, compile?)
PLANTS = [
    # code-review §1.3, one by one
    ('core/mat.c includes "lesson/lesson.h"', {'include-direction', 'include-cycle'},
     {'src/core/mat.c': after_includes('#include "lesson/lesson.h"')}),
    ('core/mat.c includes <lesson/lesson.h> (angle brackets, found through -Isrc)', {'include-direction', 'include-cycle'},
     {'src/core/mat.c': after_includes('#include <lesson/lesson.h>')}),
    ('text/num.c (base) includes "ui/ui.h"', {'include-direction', 'include-cycle'},
     {'src/text/num.c': after_includes('#include "ui/ui.h"')}),
    ('layout/plan.c includes "term/grid.h"', {'include-direction'},
     {'src/layout/plan.c': after_includes('#include "term/grid.h"')}),
    ('ui/state.c includes <ncurses.h>', {'curses'},
     {'src/ui/state.c': after_includes('#include <ncurses.h>')}),
    ('ui/state.c includes "curses.h" (quotes fall back to the system folders)', {'curses'},
     {'src/ui/state.c': after_includes('#include "curses.h"')}),
    ("out/svg.c includes ui/ui_int.h (narrate.c's lesson/template_int.h of §1.3 is gone)", {'int-header'},
     {'src/out/svg.c': after_includes('#include "ui/ui_int.h"')}),
    ('a 701-line src/core/pad.c', {'file-size'},
     {'src/core/pad.c': '/* pad.c - a file too long. */\n' + '/* . */\n' * 699 + 'extern int arch_pad;\n'}),
    ('an 80-line function with "{" on the signature line (K&R)', {'function-size'},
     {'src/ui/state.c': append(KR80)}),
    ('an 80-line GNU-style function ("  {" indented)', {'function-size'},
     {'src/ui/state.c': append('int arch_gnu (int x);\nint\narch_gnu (int x)\n' +
                               fn_lines('  {', 80, '    return x;\n  }'))}),
    ('an 80-line static inline function in a header (core/mat.h)', {'function-size'},
     {'src/core/mat.h': lambda s: s[:s.rindex('#endif')] + 'static inline int arch_inline(int x)\n' +
                                  fn_lines('{', 80, '    return x;\n}') + s[s.rindex('#endif'):]}),
    ('(c & 0xC0) == 0x80 in ui/state.c', {'utf8'},
     {'src/ui/state.c': append('int arch_u1(unsigned c);\nint arch_u1(unsigned c) { return (c & 0xC0) == 0x80; }\n')}),
    ('(c >> 6) == 2 in ui/state.c', {'utf8'},
     {'src/ui/state.c': append('int arch_u2(unsigned c);\nint arch_u2(unsigned c) { return (c >> 6) == 2; }\n')}),
    ('c >= 0xC2 && c <= 0xDF in ui/state.c', {'utf8'},
     {'src/ui/state.c': append('int arch_u3(unsigned c);\nint arch_u3(unsigned c) { return c >= 0xC2 && c <= 0xDF; }\n')}),
    ('(c & 192) == 128 in ui/state.c', {'utf8'},
     {'src/ui/state.c': append('int arch_u4(unsigned c);\nint arch_u4(unsigned c) { return (c & 192) == 128; }\n')}),
    ('mbstowcs() in ui/state.c', {'utf8'},
     {'src/ui/state.c': append('int arch_u5(const char *s);\nint arch_u5(const char *s) { return (int)mbstowcs(0, s, 0); }\n')}),
    ('a 3-object call cycle (ui/arch_a -> arch_b -> arch_c -> arch_a)', {'call-cycle'},
     {'src/ui/arch_a.c': 'int arch_b(int);\nint arch_a(int);\nint arch_a(int n) { return n ? arch_b(n - 1) : 0; }\n',
      'src/ui/arch_b.c': 'int arch_c(int);\nint arch_b(int);\nint arch_b(int n) { return n ? arch_c(n - 1) : 1; }\n',
      'src/ui/arch_c.c': 'int arch_a(int);\nint arch_c(int);\nint arch_c(int n) { return n ? arch_a(n - 1) : 2; }\n'}),
    ('text/num.c (a base .c) includes "lesson/session.h"', {'include-direction', 'include-cycle'},
     {'src/text/num.c': after_includes('#include "lesson/session.h"')}),
    ('text/num.h (a base header) includes "lesson/session.h"', {'include-direction', 'include-cycle'},
     {'src/text/num.h': lambda s: s.replace('#include "shortest.h"', '#include "shortest.h"\n#include "lesson/session.h"')}),
    ('text/text.c includes "layout/layout.h"', {'include-direction', 'include-cycle'},
     {'src/text/text.c': after_includes('#include "layout/layout.h"')}),
    # and the rest of what the rules say
    ("ui/edit.c includes another folder's internal header layout/layout_int.h", {'int-header'},
     {'src/ui/edit.c': after_includes('#include "layout/layout_int.h"')}),
    ('a 3-file include cycle (core/arch_x.h -> arch_y.h -> arch_z.h -> arch_x.h)', {'include-cycle'},
     {'src/core/arch_x.h': '/* arch_x.h - one of three headers that include each other. */\n#include "arch_y.h"\n',
      'src/core/arch_y.h': '/* arch_y.h - one of three headers that include each other. */\n#include "arch_z.h"\n',
      'src/core/arch_z.h': '/* arch_z.h - one of three headers that include each other. */\n#include "arch_x.h"\n'}),
    ('an upward call: core/arch_up.c calls text_width (text/)', {'call-direction'},
     {'src/core/arch_up.c': '#include <stddef.h>\nint text_width(const char *);\nint arch_up(void);\n'
                            'int arch_up(void) { return text_width("x"); }\n'}),
    ('a sideways call: out/arch_side.c calls term/arch_t.c', {'call-direction'},
     {'src/out/arch_side.c': 'int arch_t(int);\nint arch_side(void);\nint arch_side(void) { return arch_t(1); }\n',
      'src/term/arch_t.c': 'int arch_t(int);\nint arch_t(int n) { return n; }\n'}),
    ('term/draw.c includes "out/svg.h" (term/ and out/ side by side)', {'include-direction'},
     {'src/term/draw.c': after_includes('#include "out/svg.h"')}),
    ('a header that includes curses for ui/ (ui/arch_c.h, included by ui/state.c)', {'curses'},
     {'src/ui/arch_cur.h': '/* arch_cur.h - a header that brings curses where it must not be. */\n#include <curses.h>\n',
      'src/ui/state.c': after_includes('#include "arch_cur.h"')}),
    ('wcwidth() in layout/plan.c', {'utf8'},
     {'src/layout/plan.c': append('int arch_w(int c);\nint arch_w(int c) { return wcwidth(c); }\n')}),
    ('"\\xe2\\x96" matched by hand in out/svg.c', {'utf8'},
     {'src/out/svg.c': append('int arch_s(const char *s);\nint arch_s(const char *s) { return s[0] && !memcmp(s, "\\xe2\\x96", 2); }\n')}),
    ('a lead byte written by hand (b[0] = 0xe2) in words/fmt.c', {'utf8'},
     {'src/words/fmt.c': append('void arch_b(char *b);\nvoid arch_b(char *b) { b[0] = (char)0xe2; }\n')}),
    ('snprintf "%.3g" in ui/state.c', {'number'},
     {'src/ui/state.c': append('int arch_n1(char *b, double x);\nint arch_n1(char *b, double x) { return snprintf(b, 9, "%.3g", x); }\n')}),
    ('strtod in layout/plan.c', {'number'},
     {'src/layout/plan.c': append('double arch_n2(const char *s);\ndouble arch_n2(const char *s) { return strtod(s, 0); }\n')}),
    ('atoi in out/json.c', {'number'},
     {'src/out/json.c': append('int arch_n3(const char *s);\nint arch_n3(const char *s) { return atoi(s); }\n')}),
    ('a header without its contract comment (words/arch_bare.h)', {'contract'},
     {'src/words/arch_bare.h': '#ifndef ARCH_BARE_H\n#define ARCH_BARE_H\nint arch_bare(void);\n#endif\n'}),
    ('core/arch_io.c prints (puts)', {'core-pure'},
     {'src/core/arch_io.c': '#include <stdio.h>\nint arch_io(void);\nint arch_io(void) { return puts("x"); }\n'}),
    ('core/arch_g.c keeps a writable global', {'core-pure'},
     {'src/core/arch_g.c': 'int arch_count;\nint arch_g(void);\nint arch_g(void) { return ++arch_count; }\n'}),
    ('ui/state.c tests __EMSCRIPTEN__', {'browser'},
     {'src/ui/state.c': append('#ifdef __EMSCRIPTEN__\nint arch_em;\n#endif\n')}),
    ('layout/arch_em.h includes <emscripten.h>', {'browser'},
     {'src/layout/arch_em.h': '/* arch_em.h - a header that knows the browser where it must not. */\n'
                              '#include <emscripten.h>\n'}),
    ('a file named for when it was written (words/fmt_old.h)', {'names'},
     {'src/words/fmt_old.h': '/* fmt_old.h - the arithmetic lines, as they were written once. */\n'}),
    ('an object without its object file (no build of src/ui/arch_unbuilt.c)', {'objects'},
     {'src/ui/arch_unbuilt.c': 'int arch_unbuilt(void);\nint arch_unbuilt(void) { return 1; }\n'}),
]
NO_COMPILE = {'src/ui/arch_unbuilt.c'}


def compile_one(root, build, cc, cflags, f):
    o = os.path.join(root, build, f[4:-2] + '.o')
    os.makedirs(os.path.dirname(o), exist_ok=True)
    p = subprocess.run([cc] + cflags + ['-O0', '-w', '-c', f, '-o', o], cwd=root, capture_output=True, text=True)
    return p.returncode == 0, p.stderr.strip().split('\n')[0] if p.stderr else ''


def failure_keys(rep):
    """The failures as the self-test compares them: rule and message without
    line numbers (a planted line moves the ones after it)."""
    return {(r, re.sub(r':\d+', '', m)) for r, m in rep.fails}


def run_self_test(t):
    passed = failed = 0

    def ok(msg):
        nonlocal passed
        passed += 1
        print('ok: [self-test] ' + msg)

    def bad(msg):
        nonlocal failed
        failed += 1
        print('FAIL: [self-test] ' + msg)

    tmp = tempfile.mkdtemp(prefix='qkv-arch.')
    try:
        shutil.copytree(os.path.join(t.root, 'src'), os.path.join(tmp, 'src'))
        build = 'build'
        for o, _ in t.objects().items():
            src_o = os.path.join(t.root, o)
            if os.path.isfile(src_o):
                dst = os.path.join(tmp, build, os.path.relpath(o, t.build))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src_o, dst)
        cache = t.mcache
        base_tree = Tree(tmp, build, t.cc, t.cflags, cache)
        base = check(base_tree, quiet=True)
        real = check(t, quiet=True)
        if failure_keys(base) == failure_keys(real) and len(base.oks) == len(real.oks):
            ok('the unplanted copy gives what the tree gives (%d rules pass, %d breaches)'
               % (len(base.oks), len(base.fails)))
        else:
            bad('the unplanted copy differs from the tree: %s' % sorted(failure_keys(base) ^ failure_keys(real))[:3])
        bkeys = failure_keys(base)
        for what, rules, edits in PLANTS:
            saved = {}
            try:
                for f, e in edits.items():
                    path = os.path.join(tmp, f)
                    old = open(path).read() if os.path.exists(path) else None
                    saved[f] = old
                    new = e(old) if callable(e) else e
                    with open(path, 'w') as fh:
                        fh.write(new)
                errs = []
                for f in edits:
                    if f.endswith('.c') and f not in NO_COMPILE and layer(f) != 'web':
                        good, err = compile_one(tmp, build, t.cc, t.cflags, f)
                        if not good:
                            errs.append('%s: %s' % (f, err))
                if errs:
                    bad('%s: the planted file does not compile: %s' % (what, errs[0]))
                    continue
                rep = check(Tree(tmp, build, t.cc, t.cflags, cache), quiet=True)
                new = failure_keys(rep) - bkeys
                got = {r for r, _ in new}
                if got == set(rules):
                    ok('%s: fails on %s only: %s' % (what, ' and '.join(sorted(rules)), sorted(new)[0][1][:110]))
                elif not got:
                    bad('%s: not caught (expected %s)' % (what, ', '.join(sorted(rules))))
                else:
                    bad('%s: failed on %s, expected %s: %s' % (what, ', '.join(sorted(got)), ', '.join(sorted(rules)),
                                                               sorted(new)[0][1][:110]))
            finally:
                for f, old in saved.items():
                    path = os.path.join(tmp, f)
                    if old is None:
                        os.remove(path)
                        o = os.path.join(tmp, build, f[4:-2] + '.o')
                        if f.endswith('.c') and os.path.exists(o):
                            os.remove(o)
                    else:
                        with open(path, 'w') as fh:
                            fh.write(old)
                for f in edits:
                    if f.endswith('.c') and saved.get(f) is not None:
                        o = os.path.relpath(os.path.join(t.build, f[4:-2] + '.o'))
                        shutil.copy2(os.path.join(t.root, o), os.path.join(tmp, build, f[4:-2] + '.o'))
        # and the function scan's edge: 60 lines pass, 61 fail, in each brace style
        for style, opener in (('Allman', 'int f(void)\n{'), ('K&R', 'int f(void) {'), ('GNU', 'int\nf (void)\n  {')):
            sizes = {n: [s for _, _, s in functions(tokenize(fn_lines(opener, n))[0])] for n in (60, 61)}
            if sizes == {60: [60], 61: [61]}:
                ok('the function scan counts a %s function of 60 lines as 60 and of 61 as 61' % style)
            else:
                bad('the function scan miscounts a %s function: %s' % (style, sizes))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return passed, failed

def main(argv):
    self_test = '--self-test' in argv
    argv = [a for a in argv if a != '--self-test']
    if len(argv) < 2:
        raise SystemExit('usage: tests/arch.py [--self-test] BUILD CC CFLAGS...')
    build, cc, cflags = argv[0], argv[1], argv[2:]
    t = Tree('.', build, cc, cflags)
    rep = check(t)
    passed, failed = len(rep.oks), len(rep.fails)
    if self_test:
        p, f = run_self_test(t)
        passed, failed = passed + p, failed + f
    print('arch: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
