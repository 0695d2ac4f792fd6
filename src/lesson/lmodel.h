/* lmodel.h - what a model lesson adds to a Lesson (DESIGN.md "From a head
 * to a model" and "Trained here"): the vocab, the model's settings, where
 * its weights come from, the sampling and the train: section.
 *
 * A lesson with a top-level model: key has Lesson.model != NULL; every
 * other lesson has NULL and is unchanged bit for bit. In a model lesson
 * tokens: are entries of vocab: (the loader turns them into indices in
 * tok[]), X: is not written (E and P make the stream) and weights: is
 * {random: {seed, scale}} or {file: PATH} (relative to the lesson, a
 * weights file: format: qkvtutor-weights/1, model:, params: by name).
 * Steps name a layer: beside stage: (Step.layer; stage keys embed, qkv,
 * scores, softmax, output, project, ffn, next; Step.stage 1..8).
 *
 * Where it lives: modelload.c reads vocab:, model:, weights: and
 * sampling:; weightsfile.c reads and writes weights files; trainload.c
 * reads train:; traindata.h makes the batches. */
#ifndef QKV_LMODEL_H
#define QKV_LMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "core/model.h"
#include "core/optim.h"

#define WEIGHTS_FORMAT_ID "qkvtutor-weights/1"
#define TRAIN_BATCH_MAX 256
#define TRAIN_STEPS_MAX 100000L
#define TRAIN_SEQ_MAX 4096          /* sequences: at most this many */
#define VOCAB_NAME_BYTES 32         /* one vocab entry, UTF-8 */

typedef enum { WSRC_RANDOM, WSRC_FILE } WeightsSource;
typedef enum { TDATA_COPY, TDATA_SEQUENCES, TDATA_TEXT } TrainDataKind;

/* The train: section (given = false: the lesson has none). */
typedef struct {
    bool given;
    TrainDataKind data;
    int lmin, lmax;                 /* copy: the segment's length range (3, 6) */
    unsigned long data_seed;        /* copy: RandomState(seed) of the sequences (1) */
    int nseq;                       /* sequences / text: how many sequences */
    int *seq_len;                   /* nseq lengths (each 2 .. ctx) */
    int *seq_tok;                   /* their tokens, one after another (vocab indices) */
    char *text_file;                /* text: the file as written (resolved against the lesson) */
    OptKind opt;                    /* OPT_ADAM */
    double lr;                      /* > 0, finite (adam 0.003, sgd 0.1) */
    int batch;                      /* 1 .. TRAIN_BATCH_MAX (64) */
    long steps;                     /* 1 .. TRAIN_STEPS_MAX (3000) */
    bool from_given;                /* from: {random: {seed, scale, embed_scale}} */
    unsigned long from_seed;
    double from_scale, from_embed_scale; /* embed_scale: E and P's scale (= scale unless given) */
    int line;                       /* where train: is, for messages (1-based) */
} TrainSpec;

typedef struct LessonModel {
    ModelCfg cfg;                   /* checked (model_cfg_check == MODEL_OK) */
    int nvocab;
    char **vocab;                   /* nvocab names, UTF-8, as written */
    int ntok;
    int tok[MODEL_CTX_MAX];         /* the lesson's tokens as vocab indices */
    WeightsSource wsrc;
    unsigned long wseed;            /* WSRC_RANDOM */
    double wscale;
    double wembed_scale;            /* E and P's scale (= wscale unless embed_scale: is given) */
    char *wfile;                    /* WSRC_FILE: as written; wpath: resolved against the lesson */
    char *wpath;
    Model *base;                    /* the weights (drawn or read) on tok[0..ntok), nothing reached */
    TrainSpec train;
} LessonModel;

/* The vocab index of name[0..len) (len < 0: NUL-terminated), -1 if none. */
int lmodel_vocab_index(const LessonModel *lm, const char *name, int len);
/* The nearest vocab entries to an unknown name, for "did you mean": those
 * at the smallest distance (one differing only in case is at 0, else the
 * edit distance), up to max of them in vocab order, into out; returns how
 * many. */
int lmodel_vocab_near(const LessonModel *lm, const char *name, int len, const char **out, int max);
void lmodel_free(LessonModel *lm);

#endif
