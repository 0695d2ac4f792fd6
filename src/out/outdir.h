/* outdir.h - the files --class and --slides write into their --out folder.
 *
 * One place opens and closes them, so every failure is one line naming the
 * path and the reason ("qkvtutor: cannot write DIR/NAME: reason"). Never
 * creates the folder (the callers do) and never overwrites silently beyond
 * what the caller asked for. */
#ifndef QKV_OUTDIR_H
#define QKV_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Open dir/name for writing; its path goes to path (len bytes). NULL, with
 * the message printed, when it cannot be opened. */
FILE *out_open(const char *dir, const char *name, char *path, size_t len);
/* Close f, written at path; false, with the message printed, when any write
 * or the close failed. */
bool out_close(FILE *f, const char *path);

#endif
