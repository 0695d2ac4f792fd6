/* outdir.h - the files --class and --slides write into their --out folder,
 * as one set: all of them or none.
 *
 * out_begin() makes the folder if it is missing; each file is written to a
 * temporary beside its name (text/afile.h) and finished (fsynced) by
 * out_close(); out_end() puts them all in place only when every one was
 * written, after checking that no name is taken by something that is not
 * a file, and otherwise removes every temporary, every file this run put
 * in place and the folder if this run made it. Every failure is one line
 * on stderr naming the path and the reason ("qkvtutor: cannot write
 * DIR/NAME: reason"). Files already in the folder that the set does not
 * name are left as they are. */
#ifndef QKV_OUTDIR_H
#define QKV_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "text/afile.h"

typedef struct {
    char dir[AFILE_PATH];
    bool made;     /* this run made the folder */
    AFile *file;   /* the set's files, in the order they were opened */
    int n, cap;
} OutSet;

/* Start a set in dir, made when missing. False, with the message printed,
 * when it cannot be made. */
bool out_begin(OutSet *o, const char *dir);
/* Open dir/name of the set for writing; its final path goes to path (len
 * bytes). NULL, with the message printed, when it cannot be opened. */
FILE *out_open(OutSet *o, const char *name, char *path, size_t len);
/* Finish the file f of the set (written, flushed, fsynced, closed, not yet
 * in place). False, with the message printed, when a write failed. */
bool out_close(OutSet *o, FILE *f);
/* Where the file of the set at final path is being written (its
 * temporary), for a program that writes it or reads it before out_end();
 * NULL when the set has no such file. */
const char *out_temp(const OutSet *o, const char *path);
/* End the set: when ok, every file in place (false, with the message
 * printed, when one cannot be); when not ok, or on that failure, nothing of
 * this run is left. Frees the set. */
bool out_end(OutSet *o, bool ok);

#endif
