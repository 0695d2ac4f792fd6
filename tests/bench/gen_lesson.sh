#!/bin/sh
# tests/bench/gen_lesson.sh N D [H] - write a lesson with N tokens and D
# dimensions (d_model = d_k = D) to stdout: X written out from a fixed
# formula, the weights drawn with random: {seed: 1, scale: 0.3, d_k: D},
# and one step per stage with a focus and some narration. With H heads
# (H >= 2), heads: H, d_k = D / H per head, W_O drawn, the focus on head
# 2's matrices and a sixth step at stage project. Used by the benchmark
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
    printf "weights:\n  random: {seed: 1, scale: 0.3, d_k: %d}\n", d / h
    printf "options: {scale: sqrt_dk, softmax: stable, digits: 3}\n"
    printf "steps:\n"
    split("input qkv scores softmax output project", st, " ")
    if (h > 1) split("X[1] Q[2][3] S2[2][3] A2[2] O2[2][3] Y[2][3]", fo, " ")
    else split("X[1] Q[2][3] S[2][3] A[2] O[2][3]", fo, " ")
    for (k = 1; k <= (h > 1 ? 6 : 5); k++) {
        printf "  - stage: %s\n    focus: \"%s\"\n", st[k], fo[k]
        printf "    say: {en: \"Stage %d of a %d-token lesson: every row is a token, every column a feature; the focused cell is worked out below.\", zh: \"第 %d 阶段：每行是一个词，每列是一个特征，下面写出焦点格的算式。\"}\n", k, n, k
    }
}'
