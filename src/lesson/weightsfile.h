/* weightsfile.h - a model's weights as a file (DESIGN.md "From a head to a
 * model"): YAML with format: qkvtutor-weights/1, the model: it was made
 * for (the lesson's model: keys, every one written), then params: mapping
 * each parameter's name (model_params() order, model_ref_name() spelling:
 * E, P, L1.Wq, ..., gf, betaf, WU) to its matrix as a list of rows (a
 * vector is one row), numbers in shortest round-trip form.
 *
 * Reading checks the file against the lesson: a model: key that differs,
 * a parameter missing, unknown, given twice or of the wrong shape is
 * refused at FILE:LINE:COL of the weights file, naming the key or the
 * parameter, what the lesson expects and what the file has. Writing goes
 * through the one atomic writer (text/afile.h): a reader never sees half a
 * file. Reading a file back gives the parameters bit for bit. */
#ifndef QKV_WEIGHTSFILE_H
#define QKV_WEIGHTSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "lmodel.h"
#include "schema.h"

#define WEIGHTS_MAX_BYTES (32 * 1024 * 1024) /* the largest model's file is about 10 MB */

/* Read lm->wpath into the parameters of m (shaped by model_init on
 * lm->cfg). `at` is the lesson's file: node (a file that cannot be read is
 * refused there); every other message is at its place in the weights file.
 * On failure m's parameters may be partly written. */
bool weights_read_into(Loader *c, const yaml_node_t *at, const LessonModel *lm, Model *m);

/* The weights file of m (its cfg and parameters) as text: malloc'd,
 * NUL-terminated, its length in *len (may be NULL); NULL when out of
 * memory. lm may be NULL (it is not read today: the model carries its
 * settings). */
char *weights_format(const LessonModel *lm, const Model *m, size_t *len);
/* Write it to path atomically. False with one line in err ("cannot write
 * PATH: REASON", or out of memory). */
bool weights_write(const char *path, const LessonModel *lm, const Model *m, char *err, size_t errlen);

#endif
