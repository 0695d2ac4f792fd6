/* actionlex.h - the action language's lexer, shared by its parser
 * (action.c): a cursor over the text, words, numbers (num.h), matrix
 * references (ref.h), and errors that record their column. Only
 * lesson/action*.c include it; it parses, it applies nothing. */
#ifndef QKV_ACTIONLEX_H
#define QKV_ACTIONLEX_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"
#include "ref.h"

/* A cursor over the action text; errors record the column they happened at. */
typedef struct {
    const char *s, *p;
    char *err;
    size_t errlen;
    int *errcol;
    const Attn *shape;       /* NULL, or the lesson's shapes, for the names in messages */
} Lex;

/* What may follow the parsed part of an action, for "unexpected ..." messages. */
typedef enum { END_PLAIN, END_ROW_COPY, END_FACTOR } EndAfter;

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
/* Record an error at `at` (fmt untranslated, N_; translated here). Always false. */
bool lex_fail(Lex *lx, const char *at, const char *fmt, ...);
/* The word at s, quoted for a message ("the end" at the end). */
const char *lex_quote_word(const char *s, char *buf, size_t len);
/* Past spaces and tabs. */
void lex_skip_ws(Lex *lx);
/* Take c when it comes next (after spaces). */
bool lex_accept(Lex *lx, char c);
/* Take a word (letters, digits, '_'): its length, 0 if none; *start where it begins. */
int lex_word(Lex *lx, const char **start);
/* The bytes of a minus sign at s ("-" or U+2212), 0 if none. */
int lex_sign_len(const char *s);
/* A number, locale-proof (num.h), into *out. */
bool lex_parse_number(Lex *lx, double *out);
/* May m be the target of an assignment (Q, K, V, X and the weights)? */
bool lex_is_target(MatId m);
/* An index too large to be any lesson's: says so. */
bool lex_huge_index(Lex *lx, const Ref *r);
/* A matrix reference "M[i]" or "M[i][j]" (ref.h); *j = -1 for a row; *at where it began. */
bool lex_ref(Lex *lx, bool target, MatId *m, int *i, int *j, const char **at);
/* The end of the text, or say what was found and what could come there. */
bool lex_expect_end(Lex *lx, EndAfter ctx);
/* A whole number (num_whole, saturated) into *out; msg (one %s) when there is none. */
bool lex_count(Lex *lx, long long *out, const char *msg);
/* A token number from 1 (swap), *out 0-based. */
bool lex_token_number(Lex *lx, int *out);

#endif
