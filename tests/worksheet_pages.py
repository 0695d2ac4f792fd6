#!/usr/bin/env python3
"""tests/worksheet_pages.py BINARY PAPER LANG LESSON... - a printed sheet is one
sheet of paper.

For each LESSON: `BINARY --class 2 --format pdf --paper PAPER --lang LANG`
into a scratch folder, then from sheets.pdf (pdftotext -layout, one page per
form feed):
  - each student's sheet takes at most 2 pages (one sheet, two sides): a
    student's pages run from the page that names the student to the page
    before the next student's;
  - no question is split across a page break: each question's heading
    ("k · stage ..."), its answer line ("S[1][2] = ?", from the student's
    sheet-0s.md, the first after the heading) and the answer row (______)
    after it are on one page.
Prints one line per lesson, "worksheet-pages: N passed, M failed" last;
exits 1 when one failed.
"""
import os
import re
import subprocess
import sys
import tempfile


def md_questions(md):
    """[(k, answer line as the PDF prints it)] of a sheet's Markdown."""
    out, k = [], None
    for line in md.splitlines():
        m = re.match(r"^### (\d+) · ", line)
        if m:
            k = int(m.group(1))
        m = re.match(r"^\*\*(.* = \?)\*\*$", line)
        if m and k is not None:
            out.append((k, re.sub(r"\\(.)", r"\1", m.group(1))))
            k = None
    return out


def student_pages(pages, word, n):
    """First page (0-based) of each student 1..n, or None when not found."""
    first = []
    for s in range(1, n + 1):
        tag = "%s %02d" % (word, s)
        hit = [p for p, text in enumerate(pages) if tag in text]
        first.append(hit[0] if hit else None)
    return first


def check_lesson(binary, paper, lang, lesson, tmp, n=2):
    out = os.path.join(tmp, "%s-%s-%s" % (os.path.basename(lesson), paper, lang))
    run = subprocess.run([binary, "--class", str(n), "--out", out, "--format", "pdf", "--paper", paper,
                          "--lang", lang, lesson], capture_output=True, text=True)
    if run.returncode != 0:
        return ["--class exits %d: %s" % (run.returncode, run.stderr.strip())]
    text = subprocess.run(["pdftotext", "-layout", os.path.join(out, "sheets.pdf"), "-"],
                          capture_output=True, text=True).stdout
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    word = "学生" if lang == "zh" else "student"
    first = student_pages(pages, word, n)
    if None in first:
        return ["a student's number is on no page: %s" % first]
    bad = []
    for s in range(1, n + 1):
        lo, hi = first[s - 1], (first[s] if s < n else len(pages))
        if hi - lo > 2:
            bad.append("student %02d takes %d pages" % (s, hi - lo))
        with open(os.path.join(out, "sheet-%02d.md" % s), encoding="utf-8") as f:
            qs = md_questions(f.read())
        # the student's pages as one text, with the page of each offset
        text = "".join(pages[lo:hi])
        starts = [sum(len(pages[p]) for p in range(lo, q)) for q in range(lo, hi)]
        page_of = lambda at: lo + max(i for i, st in enumerate(starts) if st <= at) + 1
        for k, label in qs:
            m = re.search(r"^\s*%d · " % k, text, re.M)
            at = text.find(label, m.end()) if m else -1
            row = text.find("______", at) if at >= 0 else -1
            if row < 0:
                bad.append("student %02d question %d: heading at %s, %r at %d, no answer row" % (s, k, m, label, at))
            elif not page_of(m.start()) == page_of(at) == page_of(row):
                bad.append("student %02d question %d is split: heading on page %d, %r on page %d, its answer "
                           "row on page %d" % (s, k, page_of(m.start()), label, page_of(at), page_of(row)))
    return bad


def main():
    binary, paper, lang = sys.argv[1:4]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for lesson in sys.argv[4:]:
            bad = check_lesson(binary, paper, lang, lesson, tmp)
            name = "%s %s %s" % (os.path.basename(lesson), paper, lang)
            if bad:
                failed += 1
                print("FAIL: %s: %s" % (name, "; ".join(bad)))
            else:
                passed += 1
                print("ok: %s: at most 2 pages a student, every question on one page" % name)
    print("worksheet-pages: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
