/* asking.c - the exercises' records: which asks of the step are open,
 * answered, wrong, retried or revealed, what they hide, and the tally (see
 * asking.h). */
#include "asking.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
/* ---- exercises ---------------------------------------------------------------------- */

/* The index of step k's first ask among all the lesson's asks. */
static int ask_base(const Lesson *l, int step)
{
    int n = 0;
    for (int k = 0; k < step && k < l->nsteps; k++)
        n += l->steps[k].nask;
    return n;
}

static int ask_total(const Lesson *l)
{
    return ask_base(l, l->nsteps);
}

int session_ask_count(const Session *s)
{
    return session_step(s)->nask;
}

const Ask *session_ask_at(const Session *s, int k)
{
    return &session_step(s)->ask[k];
}

AskState session_ask_state(const Session *s, int k)
{
    return s->asked ? s->asked[ask_base(s->lesson, s->step) + k] : ASK_OPEN;
}

int session_ask_open(const Session *s)
{
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_OPEN)
            return k;
    return -1;
}

int session_ask_cells(const Session *s, const Ask *a)
{
    return s->lesson->model && s->mcur ? ask_cells_model(a, s->mcur) : ask_cells(a, &s->cur);
}

void session_ask_values(const Session *s, const Ask *a, const FmtOpt *fo, char *buf, size_t len)
{
    if (s->lesson->model && s->mcur)
        ask_values_model(a, s->mcur, fo, buf, len);
    else
        ask_values(a, &s->cur, fo, buf, len);
}

/* Make sure the records exist (all open). */
static bool records(Session *s)
{
    int n = ask_total(s->lesson);
    if (!s->asked && n > 0)
        s->asked = calloc((size_t)n, sizeof *s->asked); /* ASK_OPEN is 0 */
    return s->asked != NULL;
}

int session_ask_retry(const Session *s)
{
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_WRONG)
            return k;
    return -1;
}

Grade session_ask_answer(Session *s, const char *answer, bool ascii, char *msg, size_t len)
{
    int k = session_ask_open(s);
    if (k < 0)
        k = session_ask_retry(s);
    if (len)
        msg[0] = '\0';
    if (k < 0)
        return GRADE_BAD;
    const Ask *a = session_ask_at(s, k);
    bool off[MAT_MAX] = {false};
    Grade g = s->lesson->model && s->mcur ? ask_grade_model_off(a, s->mcur, s->lesson->digits, answer, off, msg, len)
                                          : ask_grade_off(a, &s->cur, s->lesson->digits, answer, off, msg, len);
    if (g == GRADE_BAD)
        return g;
    if (!records(s)) {
        snprintf(msg, len, "%s", _("out of memory"));
        return GRADE_BAD;
    }
    AskState *rec = &s->asked[ask_base(s->lesson, s->step) + k];
    if (*rec == ASK_WRONG) /* a retry: right now counts as right after a retry */
        *rec = g == GRADE_RIGHT ? ASK_RETRIED : ASK_WRONG;
    else
        *rec = g == GRADE_RIGHT ? ASK_RIGHT : ASK_WRONG;
    char name[32], vals[1024], safe[256], cut[80];
    FmtOpt fo = {s->lesson->digits, ascii, false};
    ask_name(a, name, sizeof name);
    if (g == GRADE_RIGHT) {
        session_ask_values(s, a, &fo, vals, sizeof vals);
        snprintf(msg, len, _("%sright: %s = %s"), ascii ? "" : "✓ ", name, vals);
    } else { /* no true value: the student may try again, or reveal it */
        snprintf(cut, sizeof cut, "%s", answer);
        text_sanitize(cut, safe, sizeof safe, ascii);
        snprintf(msg, len, _("%snot quite: %s (your answer: %s)"), ascii ? "" : "✗ ", name, safe);
        int cells = session_ask_cells(s, a), nbad = 0;
        char which[128] = "";
        for (int c = 0; c < cells; c++)
            if (off[c])
                snprintf(which + strlen(which), sizeof which - strlen(which), "%s%d", nbad++ ? _(", ") : "", c + 1);
        size_t n = strlen(msg);
        if (cells > 1 && n < len) /* a row: which numbers were off */
            snprintf(msg + n, len - n, nbad == 1 ? _("; number %s is off") : _("; numbers %s are off"), which);
        n = strlen(msg);
        if (n < len)
            snprintf(msg + n, len - n, "%s", _(". Type again, or Space to reveal."));
    }
    return g;
}

int session_ask_reveal(Session *s)
{
    int n = 0, base = ask_base(s->lesson, s->step);
    for (int k = 0; k < session_ask_count(s); k++) {
        AskState st = session_ask_state(s, k);
        if ((st == ASK_OPEN || st == ASK_WRONG) && records(s)) {
            s->asked[base + k] = st == ASK_OPEN ? ASK_REVEALED : ASK_WRONG_REVEALED;
            n++;
        }
    }
    return n;
}

/* Does an open (or wrongly answered) ask at this step cover cell (m, i, j)
 * of the script's rows? */
static bool covered(const Session *s, MatId m, int i, int j)
{
    const Step *st = session_step(s);
    for (int k = 0; k < st->nask; k++) {
        const Ask *a = &st->ask[k];
        AskState as = session_ask_state(s, k);
        if (as != ASK_OPEN && as != ASK_WRONG) /* a wrong answer keeps it hidden: retry or reveal */
            continue;
        if (ask_covers(a, m, i, j))
            return true;
        /* a score and its dot product are one ÷√d_k (or nothing) apart */
        MatId ab = attn_mat_base(a->mat), mb = attn_mat_base(m);
        if (((ab == M_S && mb == M_QKT) || (ab == M_QKT && mb == M_S)) && attn_mat_head(a->mat) == attn_mat_head(m) &&
            a->i == i && (a->j < 0 || a->j == j))
            return true;
        /* a row of A adds up to 1: one weight asked hides its row, else the
         * answer is 1 minus the others */
        if (attn_mat_base(a->mat) == M_A && a->mat == m && a->i == i)
            return true;
    }
    return false;
}

/* Where the student's swaps (since their last reset) moved the rows of
 * the script's state: row k of the script's is row now[k] of the current. */
static void rows_now(const Session *s, int *now)
{
    for (int r = 0; r < MAT_MAX; r++)
        now[r] = r;
    for (int n = 0; n < s->nedits && s->edits; n++) {
        const Action *act = &s->edits[n];
        if (act->kind == ACT_RESET)
            for (int r = 0; r < MAT_MAX; r++)
                now[r] = r;
        else if (act->kind == ACT_SWAP)
            for (int r = 0; r < MAT_MAX; r++)
                now[r] = now[r] == act->i ? act->src_i : now[r] == act->src_i ? act->i : now[r];
    }
}

/* The script's row now at row r (r when none). */
static int script_row(const int *now, int r)
{
    for (int k = 0; k < MAT_MAX; k++)
        if (now[k] == r)
            return k;
    return r;
}

bool session_ask_hidden(const Session *s, MatId m, int i, int j)
{
    if (session_step(s)->nask == 0)
        return false;
    if (s->lesson->model) /* a model lesson: the layer shown's attention, by its model name */
        return session_ask_mhidden(s, (ModelRef){MM_ATTN, session_layer(s), m}, i, j);
    if (covered(s, m, i, j))
        return true;
    /* After a swap the asked cells stay hidden where their tokens went
     * too: the old answer sits there, and u brings it back. */
    int now[MAT_MAX];
    rows_now(s, now);
    MatId base = attn_mat_base(m);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    int si = rows ? script_row(now, i) : i, sj = cols ? script_row(now, j) : j;
    return (si != i || sj != j) && covered(s, m, si, sj);
}

/* Is any cell of row i of m hidden? */
bool session_ask_row_hidden(const Session *s, MatId m, int i)
{
    for (int k = 0; k < s->cur.m[m].cols; k++)
        if (session_ask_hidden(s, m, i, k))
            return true;
    return false;
}

bool session_ask_hides_training(const Session *s, int head, int row)
{
    int h = head + (attn_heads(&s->cur) > 1); /* explain's heads are 1-based, 0 with one head */
    return session_ask_row_hidden(s, attn_shown(&s->cur, M_A, h), row) || session_ask_row_hidden(s, attn_shown(&s->cur, M_S, h), row) ||
           session_ask_row_hidden(s, attn_shown(&s->cur, M_QKT, h), row);
}

bool session_ask_hidden_cb(const void *ctx, MatId m, int i, int j)
{
    return session_ask_hidden((const Session *)ctx, m, i, j);
}

void session_ask_counts(const Session *s, int *total, int *right, int *wrong, int *revealed)
{
    int retried, open;
    session_ask_counts2(s, total, right, wrong, revealed, &retried, &open);
}

void session_ask_counts2(const Session *s, int *total, int *right, int *wrong, int *revealed, int *retried, int *open)
{
    int n = ask_total(s->lesson);
    *total = n;
    *right = *wrong = *revealed = *retried = 0;
    *open = n;
    for (int k = 0; s->asked && k < n; k++) {
        *right += s->asked[k] == ASK_RIGHT || s->asked[k] == ASK_RETRIED;
        *retried += s->asked[k] == ASK_RETRIED;
        *wrong += s->asked[k] == ASK_WRONG || s->asked[k] == ASK_WRONG_REVEALED;
        *revealed += s->asked[k] == ASK_REVEALED;
        *open -= s->asked[k] != ASK_OPEN;
    }
}

void session_ask_tally(const Session *s, char *buf, size_t len)
{
    int total, right, wrong, revealed, retried, open;
    session_ask_counts2(s, &total, &right, &wrong, &revealed, &retried, &open);
    if (len)
        buf[0] = '\0';
    if (total == 0)
        return;
    size_t n = (size_t)snprintf(buf, len, _("right %d of %d"), right, total);
    if (retried && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(" (%d after a retry)"), retried);
    if (wrong && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", %d wrong"), wrong);
    if (revealed && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", %d revealed"), revealed);
    if (open && n < len)
        snprintf(buf + n, len - n, _(", %d not answered"), open);
}

/* ---- a model lesson's asks ---------------------------------------------------------- */

/* Does an open (or wrongly answered) ask at this step cover cell (i, j) of
 * the model's matrix r: the cell itself, a score and its dot product (one
 * ÷√d_k apart), any weight of an asked row of A (the row adds up to 1), any
 * p of an asked row of p (the same over the vocab)? */
bool session_ask_mhidden(const Session *s, ModelRef r, int i, int j)
{
    const Step *st = session_step(s);
    for (int k = 0; k < st->nask; k++) {
        const Ask *a = &st->ask[k];
        AskState as = session_ask_state(s, k);
        if (a->mref.kind == MM_NONE || (as != ASK_OPEN && as != ASK_WRONG))
            continue;
        if (ask_covers_model(a, r, i, j))
            return true;
        if (a->mref.kind != r.kind || a->mref.layer != r.layer || a->i != i)
            continue;
        if (r.kind == MM_PROBS)
            return true;
        if (r.kind != MM_ATTN || attn_mat_head(a->mref.attn) != attn_mat_head(r.attn))
            continue;
        MatId ab = attn_mat_base(a->mref.attn), mb = attn_mat_base(r.attn);
        if (ab == M_A && mb == M_A)
            return true;
        if (((ab == M_S && mb == M_QKT) || (ab == M_QKT && mb == M_S)) && (a->j < 0 || a->j == j))
            return true;
    }
    return false;
}

bool session_ask_mhidden_cb(const void *ctx, ModelRef r, int i, int j)
{
    return session_ask_mhidden((const Session *)ctx, r, i, j);
}
