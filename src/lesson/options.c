/* options.c - the one option table and its value helpers (see options.h). */
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "text/num.h"

#define W3(a, b, c) {a, b, c}
#define OPTION_DEF(id_, key_, type_, words_, lo_, hi_, def_, flags_, act_, lf_, af_, stale_, msg_, what_)             \
    [id_] = {.id = id_, .key = key_, .type = type_, .words = words_, .lo = lo_, .hi = hi_, .def = def_,                 \
             .flags = flags_, .in_attn = OPTION_IN_ATTN_##af_,         \
             .stale = stale_, .load_msg = msg_, .what = what_},
/* A field of the state, or none ("0"): digits lives in the lesson only. */
#define OPTION_IN_ATTN_0 0
#define OPTION_IN_ATTN_scale offsetof(Attn, scale)
#define OPTION_IN_ATTN_softmax offsetof(Attn, softmax)
#define OPTION_IN_ATTN_mask offsetof(Attn, mask)
#define OPTION_IN_ATTN_temp offsetof(Attn, temp)
#define OPTION_IN_ATTN_positions offsetof(Attn, positions)
#define OPTION_IN_ATTN_kv_heads offsetof(Attn, kv_heads)
#define OPTION_IN_ATTN_lr offsetof(Attn, lr)
#define OPTION_IN_ATTN_rope_base offsetof(Attn, rope_base)
#define OPTION_IN_ATTN_offset offsetof(Attn, offset)
#define OPTION_IN_ATTN_block offsetof(Attn, block)
#define OPTION_IN_ATTN_attention offsetof(Attn, attention)

const OptRow option_table[OPT_COUNT] = {OPTION_ROWS(OPTION_DEF)};

/* Words are enums and whole numbers ints, in both structs. */
_Static_assert(sizeof(Scale) == sizeof(int) && sizeof(Softmax) == sizeof(int) && sizeof(Mask) == sizeof(int) &&
                   sizeof(Positions) == sizeof(int) && sizeof(Attention) == sizeof(int),
               "an option's word is stored as an int");


const OptRow *option_by_word(const char *w, int n)
{
    if (n == 1 && *w == 'T') /* as the header shows it */
        return option_row(OPT_TEMP);
    for (int k = 0; k < OPT_COUNT; k++)
        if (n == (int)strlen(option_table[k].key) && strncmp(w, option_table[k].key, (size_t)n) == 0)
            return &option_table[k];
    return NULL;
}

bool option_in_range(const OptRow *r, double v)
{
    if (r->flags & OF_ABOVE)
        return v > r->lo;
    return v >= r->lo && v <= r->hi;
}

void option_bounds(const OptRow *r, char *lo, char *hi, size_t len)
{
    fmt_exact(r->lo, lo, len);
    if (hi)
        fmt_exact(r->hi, hi, len);
}

int option_keys(const char **names)
{
    int n = 0;
    for (int k = 0; k < OPT_COUNT; k++)
        if (option_table[k].flags & OF_OPTIONS)
            names[n++] = option_table[k].key;
    return n;
}

double option_value_at(const void *base, const OptRow *r, size_t at)
{
    const char *p = (const char *)base + at;
    if (r->type == OT_NUMBER) {
        double d;
        memcpy(&d, p, sizeof d);
        return d;
    }
    int i;
    memcpy(&i, p, sizeof i);
    return i;
}

double option_get(const Attn *a, const OptRow *r)
{
    if (r->id == OPT_KV_HEADS)
        return attn_kv_heads(a);
    return r->in_attn ? option_value_at(a, r, r->in_attn) : r->def;
}


const char *option_text(const OptRow *r, double v, int width, char *buf, size_t len)
{
    int k = (int)v;
    if (r->type == OT_NUMBER)
        return fmt_exact(v, buf, len);
    if (r->type == OT_WHOLE)
        snprintf(buf, len, "%d", k);
    else if ((r->flags & OF_WIDTH) && k == 2)
        snprintf(buf, len, "%s %d", r->words[2], width);
    else
        snprintf(buf, len, "%s", k >= 0 && k < 3 && r->words[k] ? r->words[k] : "?");
    return buf;
}

const char *option_state_text(const Attn *a, const OptRow *r, char *buf, size_t len)
{
    return option_text(r, option_get(a, r), a->window, buf, len);
}

