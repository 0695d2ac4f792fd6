/* caps.h - the terminal's escape strings, read once from terminfo and
 * expanded once per argument (for grid.c's writer).
 *
 * After ncurses (or setupterm) has set up a terminal, caps_terminfo()
 * copies the strings the writer uses, with terminfo's padding ($<5>)
 * taken out. A parametrised string whose form is the standard ANSI one
 * (\E[%p1%dC, \E[%i%p1%d;%p2%dH) is formatted directly; any other is
 * expanded by tiparm once per distinct argument and kept. */
#ifndef QKV_CAPS_H
#define QKV_CAPS_H

#include <stdbool.h>

/* A string with a number in it: prefix, the number, suffix (the ANSI
 * form), or a terminfo template expanded by tiparm and memoized. */
typedef struct {
    char *tmpl;              /* NULL: the terminal has no such string */
    char *pre, *suf;         /* the ANSI form: pre N suf (NULL: use the template) */
    int npre, nsuf, add;     /* add: %i (1-based) */
    char (*memo)[16];        /* expansions by argument (memo[n][15]: length, 0: not yet) */
    int nmemo;
} CapParm;

typedef struct {
    char *sgr0, *bold, *dim, *smul, *rev, *op, *el, *clear, *cr, *cub1, *cuf1, *cud1;
    int nsgr0_pre;           /* sgr0 is bytes [0, nsgr0_pre) then \E[m or \E[0m (-1: it is not) */
    CapParm cuf, cub, ech, setaf, setab, hpa, indn, rin;
    char *csr, *ind, *ri;    /* the scroll region, and scrolling it one row up, down */
    char *cup;               /* the template */
    bool cup_ansi;
    char (*cup_memo)[24];    /* per cell, when cup is not the ANSI form */
    int cup_rows, cup_cols;
    bool bce, am, xenl;
    int colors;
} Caps;

/* The current terminal's strings (cur_term), or NULL when out of memory. */
Caps *caps_terminfo(void);
void caps_free(Caps *c);
/* s with n in it into out (at least 32 bytes); its length, 0 when the
 * terminal has no such string. */
int caps_parm(CapParm *p, int n, char *out);
/* The cursor to row y, column x (0-based) into out (32 bytes); its length. */
int caps_cup(Caps *c, int y, int x, int rows, int cols, char *out);
/* The scroll region to rows top..bot into out (32 bytes); its length,
 * 0 when the terminal has none. */
int caps_csr(const Caps *c, int top, int bot, char *out);
/* A string's bytes, 0 for none. */
int caps_len(const char *s);

#endif
