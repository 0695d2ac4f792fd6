/* worksheet.h - --worksheet: a lesson as a Markdown worksheet, with an
 * answer key on request (--answers).
 *
 * The sheet gives the title, the givens (tokens, X, the weights, any rows
 * of Q/K/V the lesson sets, the sizes and the options) as tables, then one
 * numbered question per `ask:` in script order: the stage, the actions the
 * script takes before it, the step's narration with every asked value
 * written "?", and a blank table row of the asked shape to write in. A
 * lesson without asks gets one question per stage from 2 to 5 (X is given):
 * the first step at that stage focused on a result, its focus; else the
 * stage's matrix, cell [1][1]. Such questions carry no narration: a
 * walkthrough's narration tells the answer.
 *
 * The key lists every answer (from the state at its step: the script's
 * actions applied) in one table, then each answer's arithmetic as --dump
 * writes it (fmt_explain_in). The lesson's expect: values are not printed:
 * after --variant they are not this sheet's numbers. No curses. */
#ifndef QKV_WORKSHEET_H
#define QKV_WORKSHEET_H

#include <stdbool.h>
#include <stdio.h>
#include "lesson/lesson.h"

typedef struct {
    Lang lang;
    bool ascii;         /* no UTF-8 on this terminal */
    bool answers;       /* add the key */
    int student;        /* --class: the student's number on the sheet (0: none) */
    bool key_only;      /* --class's key.md: the key alone, no sheet */
} WorksheetOpt;

/* Print the worksheet (and the key). Returns 0, or 2 when out of memory. */
int render_worksheet(FILE *out, const Lesson *l, const WorksheetOpt *o);

/* The YAML front matter: pagetitle "TITLE · worksheet" (· answer key with
 * answers), a double-quoted YAML string with " and \ escaped, and lang. */
void worksheet_front_matter(FILE *out, const Lesson *l, const WorksheetOpt *o);

/* --class's marking table (key.md): the header (student, variant, each
 * question), then one row per student with every answer. 0, or 2. */
int worksheet_key_header(FILE *out, const Lesson *l, const WorksheetOpt *o);
int worksheet_key_row(FILE *out, const Lesson *l, const WorksheetOpt *o);

#endif
