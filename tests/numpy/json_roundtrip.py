#!/usr/bin/env python3
"""--json's numbers read back as the doubles qkvtutor holds, bit for bit,
each in the fewest digits.

For every built-in lesson (as written, and after its last step) every
number in --json is read as text: it must be the shortest decimal that
reads back as its double (Python's repr is), and non-finite values must be
the strings "inf", "-inf", "nan" (masked scores are null). X and weights
written in the lesson must come back bit for bit as Python reads them from
the YAML, and drawn weights (random: {seed, scale}) bit for bit as numpy's
RandomState(seed).randn(...) * scale - for the built-in lessons and for the
64-token, 8-head lesson of tests/bench/gen_lesson.sh, whose --json time is
printed. Usage: json_roundtrip.py QKVTUTOR"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import yaml

Q = sys.argv[1]
checked = failed = 0


def fail(msg):
    global failed
    failed += 1
    if failed <= 20:
        print("FAIL:", msg)


def digits(s):
    m = s.lstrip("-").split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(m) or 1


def raw(args):
    out = subprocess.run([Q, "--json"] + args, capture_output=True, text=True, check=True).stdout
    return json.loads(out, parse_float=lambda s: ("num", s), parse_int=lambda s: ("num", s))


def walk(x, where, name):
    """Every number of x: shortest and finite-or-named."""
    global checked
    if isinstance(x, dict):
        for k, v in x.items():
            walk(v, where, f"{name}.{k}")
    elif isinstance(x, list):
        for v in x:
            walk(v, where, name)
    elif isinstance(x, tuple):
        s = x[1]
        checked += 1
        v = float(s)
        if not np.isfinite(v):
            fail(f"{where} {name}: {s} is a number that is not finite")
        elif digits(s) != digits(repr(v)):
            fail(f"{where} {name}: {s} has {digits(s)} digits, the shortest ({repr(v)}) has {digits(repr(v))}")
    elif isinstance(x, str) and name.count(".") >= 2 and x not in ("inf", "-inf", "nan"):
        if name.split(".")[1] in ("matrices", "per_head"):
            fail(f"{where} {name}: the string {x!r} among numbers")


def mat(x):
    return np.array([[float(c[1]) for c in row] for row in x])


def same_bits(where, name, got, want):
    want = np.asarray(want, dtype=float)
    if got.shape != want.shape:
        fail(f"{where} {name}: shape {got.shape}, want {want.shape}")
    elif not np.array_equal(got.view(np.uint64), want.view(np.uint64)):
        bad = int((got.view(np.uint64) != want.view(np.uint64)).sum())
        fail(f"{where} {name}: {bad} of {got.size} cells differ in their bits")


def check_lesson(arg, text, steps):
    d = raw([arg])
    walk(d, arg, "")
    y = yaml.safe_load(text)
    m = d["matrices"]
    same_bits(arg, "X", mat(m["X"]), y["X"])
    w = y["weights"]
    if "random" in w:
        r = w["random"]
        dm, h = len(y["X"][0]), int(y.get("heads", 1))
        dk, sc = int(r.get("d_k", dm)), float(r.get("scale", 1.0))
        dv = int(r.get("d_v", dk))
        rs = np.random.RandomState(int(r["seed"]))
        g = int(y.get("kv_heads", h))     # shared K/V heads: Wk and Wv are g heads wide
        draws = [("Wq", (dm, h * dk)), ("Wk", (dm, g * dk)), ("Wv", (dm, g * dv))]
        if "Wo" in m:
            draws.append(("Wo", (h * dv, len(m["Wo"][0]))))
        for name, shape in draws:
            same_bits(arg, name, mat(m[name]), rs.randn(*shape) * sc)
    else:
        for name in ("Wq", "Wk", "Wv", "Wo"):
            if name in w and "variants" not in y:
                same_bits(arg, name, mat(m[name]), w[name])
    if steps:
        walk(raw(["--at", str(steps), arg]), f"{arg} --at {steps}", "")


listing = subprocess.run([Q, "--list"], capture_output=True, text=True, check=True).stdout
for line in listing.splitlines():
    k, name = line.split()[:2]
    path = "lessons/" + name
    text = open(path, encoding="utf-8").read()
    y = yaml.safe_load(text)
    if "model" in y:
        continue  # a model lesson's --json has "layers", not "matrices": the torch suite checks it
    check_lesson(k, text, len(y.get("steps", [])))

big = subprocess.run(["sh", "tests/bench/gen_lesson.sh", "64", "64", "8"], capture_output=True, text=True,
                     check=True).stdout
tmp = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
tmp.write(big)
tmp.close()
bigpath = tmp.name
check_lesson(bigpath, big, 0)
t = []
for _ in range(5):
    t0 = time.perf_counter()
    subprocess.run([Q, "--json", bigpath], stdout=subprocess.DEVNULL, check=True)
    t.append(time.perf_counter() - t0)
print(f"json round trip: {checked} numbers of {len(listing.splitlines())} lessons and the 64-token 8-head "
      f"lesson, {failed} wrong; that lesson's --json takes {sorted(t)[2] * 1000:.1f} ms (median of 5)")
os.unlink(bigpath)
sys.exit(1 if failed else 0)
