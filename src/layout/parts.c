/* parts.c - the text parts a frame stacks below its matrices: the
 * arithmetic, the training panel, the effect trace, the edited-state
 * notice, the narration, the question, the status lines and the key bar,
 * each with its lines, its rank and how far it may give way (layout.c's
 * budget then decides). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

static Part *add_part(Budget *g, Part p)
{
    if (g->n >= MAX_PARTS)
        return NULL;
    g->part[g->n] = p;
    return &g->part[g->n++];
}

/* The exercise line: the open question (in the step's question: words,
 * their templates filled in, when it has them) and how to answer it; on
 * the lesson's last step the tally, except on a slide (newcomer review
 * 28). "" when neither. */
static void ask_text(const Frame *c, char *buf, size_t len)
{
    const Session *s = c->s;
    char name[64], tally[256];
    buf[0] = '\0';
    int k = session_ask_open(s);
    if (k < 0)
        k = session_ask_retry(s); /* answered wrong: still asked until retried or revealed */
    if (k >= 0) {
        ask_name(session_ask_at(s, k), name, sizeof name);
        const char *q = text_get(&session_step(s)->question, c->in->lang);
        TplOpt o = {c->l->digits, c->in->ascii, session_ask_hidden_cb, s, c->in->lang, c->l->model ? s->mcur : NULL,
                    session_ask_mhidden_cb};
        char *words = *q ? template_expand_dup(q, &s->cur, c->l, &o) : NULL;
        char *safe = words ? fmt_prose(words, c->in->ascii) : NULL;
        if (c->in->slide && safe && *safe) /* a class sees the question; how to answer is the terminal's */
            snprintf(buf, len, "? %s %s", safe, name);
        else if (c->in->slide)
            snprintf(buf, len, "? %s", name);
        else if (safe && *safe)
            snprintf(buf, len, _("? %s %s: type your answer, Enter grades it; Space reveals it."), safe, name);
        else
            snprintf(buf, len, _("? %s: type your answer, Enter grades it; Space reveals it."), name);
        free(safe);
        free(words);
    }
    if (s->step == session_steps(s) - 1 && !c->in->picture && !c->in->present) { /* a picture, a projected room: no student's tally */
        session_ask_tally(s, tally, sizeof tally);
        if (tally[0])
            snprintf(buf + strlen(buf), len - strlen(buf), _("%sYour answers: %s."), buf[0] ? "  " : "", tally);
    }
}

/* One short part (the trace, the notice, the exercise line): `text`
 * wrapped whole, kept until the narration is down to its floor (rank 1),
 * or after the arithmetic (rank 3). */
static void short_part(Frame *c, Budget *g, BlockKind k, Role r, int rank, const char *text, bool terms,
                       char (*lines)[FMT_LINE])
{
    bool more;
    int n = block_lines(c, text, c->cols - 2, lines, 4, terms, &more);
    if (n == 0)
        return;
    add_part(g, (Part){k, r, .lines = lines, .n = n, .want = n + more, .cut = more, .soft = n, .min = 0,
                       .rank = rank});
}

/* The training panel: the target, the loss and the chain rule, after the
 * arithmetic (one blank between them when there is arithmetic). */
static void train_part(Frame *c, Budget *g, char (*train)[FMT_LINE], bool arith)
{
    const LayoutIn *in = c->in;
    int w = c->cols - 2;
    bool more;
    Part *p;
    FmtOpt tf = {c->l->digits, in->ascii, false};
    char raw[6][FMT_LINE];
    int ti = train_focus_target(c->a, c->s->head > 0 ? c->s->head - 1 : 0, in->fi);
    /* an open ask on the target's row: the loss and α − t would give it away */
    tf.hiding = ti >= 0 && session_ask_hides_training(c->s, c->a->target[ti].head, c->a->target[ti].row);
    int nraw = train_lines(c->l, c->a, ti, in->fj, &tf, raw, 6);
    for (int k = 0; k < nraw && c->noted; k++) { /* the note once per screen: the arithmetic has it */
        char *note = strstr(raw[k], arith_approx_note(c));
        if (note && note - raw[k] >= 3)
            note[-3] = '\0';
    }
    /* at the softmax stage, whose α the panel carries on, rank 2 with the
     * arithmetic: the narration (to two lines), the key bar and the trace
     * give way first (newcomer review 14); later, rank 0: its later lines
     * go before the narration */
    int trank = session_stage(c->s) == STAGE_SOFTMAX ? 2 : 0;
    p = add_part(g, (Part){BLOCK_TRAIN, ROLE_ARITH, .lines = train, .rank = trank});
    int head = 0; /* the lines of the first: the target and the loss, kept whole */
    for (int k = 0; k < nraw && p->n < 8; k++) {
        p->n += lines_wrap(raw[k], w, train + p->n, 8 - p->n, true, &more);
        p->cut = p->cut || more;
        if (k == 0)
            head = p->n;
    }
    p->want = p->n + p->cut;
    p->soft = head < p->n ? head + 1 : head; /* the loss, and ∂L/∂s = α − t */
    p->min = head;
    p->gap = arith ? 1 : 0;
}

/* Above the narration: the head it is about, when another is shown; a
 * departed state's one line saying what is true and what departed. Returns
 * whether the state departed from the script (the narration is dimmed). */
static bool notice_part(Frame *c, Budget *g, char (*notice)[FMT_LINE])
{
    const LayoutIn *in = c->in;
    char text[FMT_LINE];
    int w = c->cols - 2;
    int nn = 0, about = session_say_head(c->s);
    bool cut;
    if (about && about != c->s->head) {
        snprintf(text, sizeof text, _("this step is about head %d — %s shows it"), about,
                 about < c->s->head ? "[" : "]");
        nn += block_lines(c, text, w, notice, 2, false, &cut);
    }
    int keep = nn; /* a departed state keeps the ✎ notice's first line (ending in "…" when cut) */
    bool diverged = session_notice(c->s, in->ascii, w, text, sizeof text);
    if (diverged)
        nn += block_lines(c, text, w, notice + nn, 4 - nn, false, &cut);
    keep = diverged && nn > keep ? keep + 1 : 0;
    if (nn)
        add_part(g, (Part){BLOCK_NOTICE, ROLE_HINT, .lines = notice, .n = nn, .want = nn, .soft = nn, .min = keep,
                           .rank = 1}); /* its kept line never gives way: the matrices scroll first */
    return diverged;
}

/* The parts below the matrices: the arithmetic, the effect trace, the
 * edited-state notice, the narration (dimmed when the numbers are the
 * student's), the exercise line, the status lines and the key bar. */
void parts_lay(Frame *c, Budget *g, char (*ari)[FMT_LINE], char (*say)[FMT_LINE], char (*st)[FMT_LINE],
                 char (*kb)[FMT_LINE], char (*more_lines)[FMT_LINE], char (*train)[FMT_LINE])
{
    const LayoutIn *in = c->in;
    char status[FMT_LINE], text[FMT_LINE];
    int w = c->cols - 2, first = 1;
    bool more;
    Part *p = add_part(g, (Part){BLOCK_ARITH, ROLE_ARITH, .lines = ari, .rank = 2});
    int one;
    p->n = arith_lines(c, w, ari, in->frow ? MAX_LINES / 2 : 6, &more, &one);
    p->want = p->n + more;
    p->cut = more;
    p->soft = p->n;
    if (one < p->n) { /* a row's other cells give way first, before the narration */
        p->rank = 0;
        p->soft = one;
    }
    p->min = p->n ? 1 : 0;
    bool card_room = in->title_card && c->model; /* a model lesson's card: before the arithmetic and the rows */
    if (card_room) /* the card stands in the narration's place: the arithmetic goes first */
        p->rank = p->soft = p->min = 0;
    bool arith = p->n > 0;
    if (stage_training(c))
        train_part(c, g, train, arith);
    FmtOpt fo = {c->l->digits, in->ascii, false};
    if (session_trace_line(c->s, in->fi, in->fj, &fo, text, sizeof text))
        short_part(c, g, BLOCK_TRACE, ROLE_ARITH, 1, text, true, more_lines);
    bool diverged = notice_part(c, g, more_lines + 4);
    p = add_part(g, (Part){BLOCK_SAY, diverged ? ROLE_DIM : ROLE_SAY, .bold = in->present, .lines = say, .rank = 0});
    p->n = narration_lines(c, w, say, MAX_LINES, &more);
    p->want = p->n + more;
    p->cut = more;
    p->soft = p->n < 2 || card_room ? p->n : 2; /* the title card whole: the matrices scroll first */
    p->min = p->n < 1 ? p->n : 1;
    /* one blank between the arithmetic and what follows it */
    if (arith && g->n > first)
        g->part[first].gap = in->present ? 2 : 1;
    ask_text(c, text, sizeof text);
    short_part(c, g, BLOCK_ASK, ROLE_PROMPT, 3, text, false, more_lines + 8);
    Role srole = status_line_text(c, status, sizeof status);
    p = add_part(g, (Part){BLOCK_STATUS, srole, .bottom = true, .lines = st, .rank = MAX_RANK});
    p->n = p->want = p->soft = p->min = status[0] ? lines_wrap(status, w, st, MAX_LINES, false, NULL) : 0;
    if (in->keybar && (!in->present || in->field)) { /* presentation: only an open field */
        snprintf(kb[0], FMT_LINE, "%s", in->keybar);
        int keep = in->field ? 1 : 0; /* an open field never gives way */
        add_part(g, (Part){BLOCK_KEYBAR, ROLE_KEYBAR, .bottom = true, .bar = true, .n = 1, .want = 1, .soft = keep,
                           .min = keep, .rank = 1, .lines = kb});
    }
}
