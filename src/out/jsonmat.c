/* jsonmat.c - a matrix and the options as --json writes them (jsonmat.h). */
#include "jsonmat.h"

#include <string.h>

#include "lesson/options.h"
#include "text/shortest.h"

void json_matrix(Json *j, const char *name, const Mat *m, const Attn *masked)
{
    json_array(j, name);
    for (int i = 0; i < m->rows; i++) {
        if (!masked) { /* a row at once */
            json_numbers(j, NULL, &MAT_AT(m, i, 0), m->cols);
            continue;
        }
        json_array(j, NULL);
        for (int c = 0; c < m->cols; c++) {
            if (attn_masked(masked, i, c))
                json_null(j, NULL);
            else
                json_number(j, NULL, MAT_AT(m, i, c));
        }
        json_end(j);
    }
    json_end(j);
}

void json_options(Json *j, const Attn *a, const char *positions)
{
    char buf[SHORTEST_MAX + 16];
    json_object(j, "options");
    for (int k = 0; k < OPT_COUNT; k++) {
        const OptRow *r = &option_table[k];
        if (!(r->flags & OF_JSON))
            continue;
        if (positions && k == OPT_POS)
            json_string(j, r->key, positions);
        else if (r->type == OT_WORDS)
            json_string(j, r->key, option_state_text(a, r, buf, sizeof buf));
        else
            json_number(j, r->key, option_get(a, r));
    }
    json_end(j);
}
