#!/usr/bin/env python3
"""tests/worksheet_spread.py BINARY LESSON... - a class set's answers differ
between students.

For each LESSON, `BINARY --class 30 --format md` into a scratch folder; from
key.md's marking table (one row per student, one column per question, the
answers as printed), for every question:
  - at least 24 of the 30 students have an answer of their own (distinct as
    printed);
  - a copied neighbour's answer is marked wrong in most pairs: of the 870
    ordered pairs (i hands in j's answer), at most 15 % fall within i's
    tolerance (the grading rule: max(1 % of the value, one unit of the last
    decimal shown), each number of a row).
Prints one line per question, "worksheet-spread: N passed, M failed" last.
"""
import os
import re
import subprocess
import sys
import tempfile

STUDENTS = 30


def numbers(cell):
    return [float(x.replace("\u2212", "-")) for x in re.findall(r"[\u2212-]?\d+(?:\.\d+)?", cell)]


def decimals(cell):
    m = re.search(r"\.(\d+)", cell)
    return len(m.group(1)) if m else 0


def marked_right(mine, copied, digits):
    if len(mine) != len(copied):
        return False
    unit = 10.0 ** -digits
    return all(abs(c - v) <= max(0.01 * abs(v), unit) + 1e-12 for v, c in zip(mine, copied))


def table(key):
    """(question names, [row cells]) of the marking table."""
    lines = [l for l in key.splitlines() if l.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:2 + STUDENTS]]
    return head[2:], [r[2:] for r in rows]


def main():
    binary = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for lesson in sys.argv[2:]:
            out = os.path.join(tmp, os.path.basename(lesson))
            run = subprocess.run([binary, "--class", str(STUDENTS), "--out", out, lesson], capture_output=True,
                                 text=True)
            if run.returncode != 0:
                failed += 1
                print("FAIL: %s: --class exits %d: %s" % (lesson, run.returncode, run.stderr.strip()))
                continue
            with open(os.path.join(out, "key.md"), encoding="utf-8") as f:
                names, rows = table(f.read())
            for q, name in enumerate(names):
                cells = [r[q] for r in rows]
                vals = [numbers(c) for c in cells]
                distinct = len(set(cells))
                copies = sum(1 for i in range(STUDENTS) for j in range(STUDENTS)
                             if i != j and marked_right(vals[i], vals[j], decimals(cells[i])))
                what = "%s question %s: %d distinct answers of %d, %d of %d copied answers marked right" % (
                    os.path.basename(lesson), name, distinct, STUDENTS, copies, STUDENTS * (STUDENTS - 1))
                if distinct >= 24 and copies <= 0.15 * STUDENTS * (STUDENTS - 1):
                    passed += 1
                    print("ok: " + what)
                else:
                    failed += 1
                    print("FAIL: " + what)
    print("worksheet-spread: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
