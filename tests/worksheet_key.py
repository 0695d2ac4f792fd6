#!/usr/bin/python3
"""tests/worksheet_key.py BINARY LESSON DIGITS [K]: a worksheet's key against --json.

Runs `BINARY --worksheet --answers [--variant K] LESSON`, parses the Markdown
and checks that:
  - every table is well formed: a header, a |---| line with one cell per
    column, rows with the header's number of cells;
  - the sheet asks the same cells, in the same order, as the key lists;
  - each answer in the key's table is the value `BINARY --json [--variant K]
    --at STEP LESSON` has at that cell (a head's S1, A2: from per_head; a
    model lesson's L2.A1, L1.h_mid, p: from its layers, per_head and top),
    written with DIGITS decimals (as
    Python rounds the double: U+2212 for minus, -0.000 written 0.000);
  - each answer's heading repeats the table's answer, and its arithmetic
    block ends every cell's line with that cell's answer.
Only the standard library: `make worksheet` runs it without numpy.
Prints "ok: ..." or "FAIL: ..." lines; exit 1 on any failure."""
import json, re, subprocess, sys

MINUS = "\u2212"


def cells(line):
    """The cells of a Markdown table row ("| a | b\\|c |" -> ["a", "b\\|c"])."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def tables(lines):
    """(start line, header, rows) for every table; raises on a malformed one."""
    out, k = [], 0
    while k < len(lines):
        if not lines[k].startswith("|"):
            k += 1
            continue
        head, sep = cells(lines[k]), cells(lines[k + 1]) if k + 1 < len(lines) else []
        if len(sep) != len(head) or not all(re.fullmatch(r"-{3,}:?", c) for c in sep):
            raise ValueError(f"line {k + 1}: a table's second line is not |---|: {lines[k + 1]!r}")
        rows, start, k = [], k, k + 2
        while k < len(lines) and lines[k].startswith("|"):
            row = cells(lines[k])
            if len(row) != len(head):
                raise ValueError(f"line {k + 1}: {len(row)} cells, the header has {len(head)}: {lines[k]!r}")
            rows.append(row)
            k += 1
        out.append((start, head, rows))
    return out


def shown(v, digits):
    s = f"{v:.{digits}f}"
    if float(s) == 0:
        s = s.lstrip("-")
    return s.replace("-", MINUS)


# A matrix, or one head's (S1, A2: the head's number after the name), a row, maybe a column.
REF = re.compile(r"^(?:L(\d+)\.)?([A-Za-z_]+?)(\d*)\[(\d+)\](?:\[(\d+)\])?$")


def main():
    binary, lesson, digits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    variant = ["--variant", sys.argv[4]] if len(sys.argv) > 4 else []
    name = f"{lesson}{' variant ' + sys.argv[4] if variant else ''}"
    run = subprocess.run([binary, "--worksheet", "--answers", *variant, lesson], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL: {name}: --worksheet exits {run.returncode}: {run.stderr.strip()}")
        return 1
    lines = run.stdout.split("\n")
    fails = []
    try:
        tabs = tables(lines)
    except ValueError as e:
        print(f"FAIL: {name}: {e}")
        return 1
    # The key: the last level-2 heading, then its table.
    key_at = max(k for k, l in enumerate(lines) if l.startswith("## "))
    key = [t for t in tabs if t[0] > key_at]
    if not key or len(key[0][1]) != 4:
        print(f"FAIL: {name}: no key table after line {key_at + 1}")
        return 1
    asked = [m.group(1) for l in lines[:key_at] for m in [re.fullmatch(r"\*\*(\S+) = \?\*\*", l)] if m]
    listed = [row[2] for row in key[0][2]]
    if asked != listed or not asked:
        fails.append(f"the sheet asks {asked}, the key lists {listed}")
    states = {}
    for num, step, ref, answer in key[0][2]:
        m = REF.match(ref)
        if not m:
            fails.append(f"question {num}: {ref!r} is not a reference")
            continue
        if step not in states:
            out = subprocess.run([binary, "--json", *variant, "--at", step, lesson], capture_output=True, text=True)
            states[step] = json.loads(out.stdout) if out.returncode == 0 else None
        state = states[step]
        if state is None:
            fails.append(f"question {num}: --json --at {step} failed")
            continue
        mname, head = m.group(2), m.group(3)
        if "layers" in state:   # a model lesson: "L2.A1", "L1.h_mid", "logits", "p"
            layer = int(m.group(1)) if m.group(1) else 0
            ly = state["layers"][layer - 1] if layer else state
            per = ly.get("per_head", []) if layer else []
            mats = per[int(head) - 1] if head else per[0] if len(per) == 1 and mname in per[0] else ly
        else:
            mats = state["per_head"][int(head) - 1] if head else state["matrices"]
        if mname not in mats:
            fails.append(f"question {num}: --json has no {mname}{' of head ' + head if head else ''}")
            continue
        row = mats[mname][int(m.group(4)) - 1]
        js = [int(m.group(5)) - 1] if m.group(5) else range(len(row))
        want = ", ".join(shown(row[j], digits) for j in js)
        if answer != want:
            fails.append(f"question {num} ({ref} at step {step}): the key says {answer}, --json gives {want}")
        # The answer's heading and its arithmetic.
        head = f"### {num} · {ref} = {answer}"
        if head not in lines:
            fails.append(f"question {num}: no heading {head!r}")
            continue
        k = lines.index(head) + 2
        if lines[k - 1] != "" or lines[k] != "```text":
            fails.append(f"question {num}: no arithmetic block after its heading")
            continue
        block = lines[k + 1:lines.index("```", k + 1)]
        results = set()  # each line's last value; a softmax walk's last is a row "[a, b, c]"
        for l in block:
            while re.search(r"\s{2,}\([^()]*\)$", l):  # notes after the value: "(≈: …)", "(block 1, …)"
                l = re.sub(r"\s{2,}\([^()]*\)$", "", l)
            if " = " in l:
                results.update(re.split(r" [=≈] ", l)[-1].strip("[]").split(", "))
        for v in answer.split(", "):
            if v not in results:
                fails.append(f"question {num}: the arithmetic never arrives at {v}: {block}")
    for f in fails:
        print(f"FAIL: {name}: {f}")
    if not fails:
        print(f"ok: {name}: {len(listed)} answers equal --json{' --variant ' + sys.argv[4] if variant else ''}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
