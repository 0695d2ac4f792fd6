/* asking.h - the exercises' records: the asks of the current step, which
 * are open, answered right or wrong, retried or revealed, and which cells
 * they hide.
 *
 * Answer records belong to the session (allocated at the first answer,
 * freed by session_free); they survive moving between steps, edits, undo
 * and reset. A cell is hidden while an ask covering it at the current step
 * is open. No I/O, no curses. */
#ifndef QKV_ASKING_H
#define QKV_ASKING_H

#include <stdbool.h>
#include <stddef.h>
#include "ask.h"
#include "session.h"

int session_ask_count(const Session *s);                 /* asks at this step */
const Ask *session_ask_at(const Session *s, int k);      /* k < session_ask_count */
AskState session_ask_state(const Session *s, int k);
/* The first ask at this step still open, or -1: while there is one, typed
 * digits go to the answer, not to the stage keys. */
int session_ask_open(const Session *s);
/* Grade an answer to the first open ask at this step (else the first
 * answered wrong: a retry) and record it. msg gets the result line:
 * "✓ right: S[1][2] = 0.006", or "✗ not quite: S[1][2] (your answer: 0.01).
 * Type again, or Space to reveal." without the true value (a row also says
 * which numbers are off), or why the answer cannot be read (GRADE_BAD,
 * nothing recorded). With no open ask, GRADE_BAD and "". */
Grade session_ask_answer(Session *s, const char *answer, bool ascii, char *msg, size_t len);
/* The first ask at this step answered wrong, which the student may answer
 * again (session_ask_answer grades it when none is open), or -1. */
int session_ask_retry(const Session *s);
/* Reveal every open ask at this step, and every one answered wrong (the
 * view calls it when next is pressed there, before moving on; a wrong one
 * still counts as wrong). Returns how many were revealed. */
int session_ask_reveal(Session *s);
/* Is cell (m, i, j) hidden as "?" now: asked at this step, not yet
 * answered right or revealed (a wrong answer keeps it hidden)? One asked weight of A hides its whole row (the
 * row adds up to 1). */
bool session_ask_hidden(const Session *s, MatId m, int i, int j);
/* Is any cell of row i of m hidden? */
bool session_ask_row_hidden(const Session *s, MatId m, int i);
/* Does an open ask hide the training panel's numbers for the target of
 * head (0-based) at row: its row of A, S or QKᵀ is asked (the loss and
 * ∂L/∂s = α − t give α back in one step)? */
bool session_ask_hides_training(const Session *s, int head, int row);
/* The same with the signature TplOpt.hidden wants; ctx is the Session. */
bool session_ask_hidden_cb(const void *ctx, MatId m, int i, int j);

/* The cells a asks (1, or its row's width) and their values as the screen
 * writes them, from the state shown: the Attn, or a model lesson's Model. */
int session_ask_cells(const Session *s, const Ask *a);
void session_ask_values(const Session *s, const Ask *a, const FmtOpt *fo, char *buf, size_t len);
/* A model lesson's: is cell (i, j) of the model's matrix r hidden as "?"
 * now (asked at this step and open or answered wrong; an asked weight of A
 * hides its row, an asked p its row, an asked score its dot product)? And
 * the same with the signature TplOpt.mhidden wants; ctx is the Session. */
bool session_ask_mhidden(const Session *s, ModelRef r, int i, int j);
bool session_ask_mhidden_cb(const void *ctx, ModelRef r, int i, int j);

/* Counts over the whole lesson (right: first time or after a retry). */
void session_ask_counts(const Session *s, int *total, int *right, int *wrong, int *revealed);
/* The same, with how many were right after a retry and how many are not
 * answered yet. */
void session_ask_counts2(const Session *s, int *total, int *right, int *wrong, int *revealed, int *retried, int *open);
/* "right 2 of 4 (1 after a retry), 1 wrong, 1 not answered": each part
 * only when it is not 0 ("revealed" too); "" when the lesson asks nothing. */
void session_ask_tally(const Session *s, char *buf, size_t len);

#endif
