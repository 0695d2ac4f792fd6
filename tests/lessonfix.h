/* lessonfix.h - a lesson loaded from text and a session on it: the cmocka
 * fixture the lesson-layer tests share (test_ask, test_live, test_train).
 * lessonfix_open() returns NULL, after printing the loader's message, when
 * the text does not load; lessonfix_close() takes NULL too. */
#ifndef QKV_LESSONFIX_H
#define QKV_LESSONFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#undef expect_check /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/session.h"

typedef struct {
    Lesson l;
    Session s;
} LessonFix;

static inline void lessonfix_close(LessonFix *f)
{
    if (!f)
        return;
    session_free(&f->s);
    lesson_free(&f->l);
    free(f);
}

static inline LessonFix *lessonfix_open(const char *name, const char *yaml)
{
    char err[LESSON_ERR_MAX];
    LessonFix *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    if (!lesson_load_buffer(name, yaml, strlen(yaml), &f->l, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        free(f);
        return NULL;
    }
    if (!session_init(&f->s, &f->l)) {
        lesson_free(&f->l);
        free(f);
        return NULL;
    }
    return f;
}

/* cmocka's teardown for a LessonFix in *state. */
static inline int lessonfix_teardown(void **state)
{
    lessonfix_close(*state);
    return 0;
}

#endif
