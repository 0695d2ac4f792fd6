#!/bin/sh
# tests/bench/gen_lesson.sh N D [H] - write a lesson with N tokens and D
# dimensions (d_model = d_k = D) to stdout: X written out from a fixed
# formula, the weights drawn with random: {seed: 1, scale: 0.3, d_k: D},
# and one step per stage with a focus and some narration. With H heads
# (H >= 2), heads: H, d_k = D / H per head, W_O drawn, the focus on head
# 2's matrices and a sixth step at stage project. Any N >= 1, D >= 1 and
# H >= 1 (d_k = D / H rounded down, at least 1). Used by the benchmark
# (64 x 64, and 64 x 64 with 8 heads) and the interrupted-save test.
set -eu
n=${1:?usage: gen_lesson.sh N D [H]}
d=${2:?usage: gen_lesson.sh N D [H]}
h=${3:-1}
awk -v n="$n" -v d="$d" -v h="$h" 'BEGIN {
    printf "format: qkvtutor/1\n"
    printf "title: {en: \"%d tokens, %d dimensions\", zh: \"%d 个词，%d 维\"}\n", n, d, n, d
    printf "tokens: ["
    for (i = 1; i <= n; i++) printf "%st%d", (i > 1 ? ", " : ""), i
    printf "]\nX:\n"
    for (i = 0; i < n; i++) {
        printf "  - ["
        for (j = 0; j < d; j++) printf "%s%.1f", (j ? ", " : ""), ((i * 37 + j * 11) % 19 - 9) / 10
        printf "]\n"
    }
    if (h > 1) printf "heads: %d\n", h
    printf "weights:\n  random: {seed: 1, scale: 0.3, d_k: %d}\n", (int(d / h) < 1 ? 1 : int(d / h))
    printf "options: {scale: sqrt_dk, softmax: stable, digits: 3}\n"
    printf "steps:\n"
    split("input qkv scores softmax output project", st, " ")
    # any sizes: a focus stays inside its matrix (row 2 and column 3 when
    # there are that many, else the last)
    dk = int(d / h); if (dk < 1) dk = 1
    r = n < 2 ? n : 2; ct = n < 3 ? n : 3; ck = dk < 3 ? dk : 3; cd = d < 3 ? d : 3
    hd = h > 1 ? "2" : ""
    fo[1] = "X[1]"; fo[2] = sprintf("Q[%d][%d]", r, ck)
    fo[3] = sprintf("S%s[%d][%d]", hd, r, ct); fo[4] = sprintf("A%s[%d]", hd, r)
    fo[5] = sprintf("O%s[%d][%d]", hd, r, ck); fo[6] = sprintf("Y[%d][%d]", r, cd)
    for (k = 1; k <= (h > 1 ? 6 : 5); k++) {
        printf "  - stage: %s\n    focus: \"%s\"\n", st[k], fo[k]
        printf "    say: {en: \"Stage %d of a %d-token lesson: every row is a token, every column a feature; the focused cell is worked out below.\", zh: \"第 %d 阶段：每行是一个词，每列是一个特征，下面写出焦点格的算式。\"}\n", k, n, k
    }
}'
