/* Internals of the sweep (rod/sweep.h): the definition's parts, the
 * index file, the directory's locks and the run of one case. */
#ifndef ROD_SWEEP_INTERNAL_H
#define ROD_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "rod/sweep.h"

/* One --vary: a list of texts, a range with a count, or a range without
 * one (an axis of the Latin hypercube). */
enum { SWEEP_LIST = 0, SWEEP_RANGE };

typedef struct {
  char key[96];
  int kind;
  int n;        /* list: values */
  char **texts; /* list: the values as given */
  double start, stop;
  int count; /* range: values; 0: sampled */
  bool log;
} sweep_axis;

struct rod_sweep_def {
  sweep_axis *axes;
  int naxes;
  /* a cases CSV */
  char csv_path[1024];
  char **csv_keys;
  int csv_nkeys;
  char **csv_texts; /* csv_rows x csv_nkeys */
  int csv_rows;
  /* --samples */
  int samples;
  uint64_t seed;
  /* the table (rod_sweep_def_build) */
  char **keys;
  int nkeys;
  char **texts; /* ncases x nkeys */
  int ncases;
};

/* s[0..n) without surrounding blanks, a new string; NULL: out of memory. */
char *sweep_trimmed(const char *s, size_t n);
/* Free n strings and their array (texts may be NULL). */
void sweep_texts_free(char **texts, size_t n);

/* ---- the index (sweep_index.c) ------------------------------------------ */

typedef struct sweep_index sweep_index;

/* What defines a sweep, compared when it is opened again. */
typedef struct {
  const rod_sweep_def *def;
  const char *scenario; /* the base scenario's INI text */
  bool static_only;
} sweep_identity;

/* Create path (written as path.part, renamed once whole) for id, every
 * case pending. */
int sweep_index_create(const char *path, const sweep_identity *id,
                       sweep_index **out, rod_error *err);
/* Open an existing index for writing; its statuses are read. */
int sweep_index_open(const char *path, sweep_index **out, rod_error *err);
/* "" when ix holds the sweep id, else what differs (one line). */
void sweep_index_differs(sweep_index *ix, const sweep_identity *id, char *why,
                         size_t size);
int sweep_index_cases(const sweep_index *ix);
int sweep_index_status(const sweep_index *ix, int c);
/* Write case c's status alone, flushed. */
int sweep_index_set_status(sweep_index *ix, int c, int status);
/* Write case c's record: figures and text flushed first, the status
 * after them in a flush of its own, so a status counts only whole
 * records. */
int sweep_index_record(sweep_index *ix, int c, const rod_case_record *rec);
/* Case c's record as the index holds it (its status as last written). */
int sweep_index_read(sweep_index *ix, int c, rod_case_record *rec);
/* Close (the file stays whole at any moment before). */
int sweep_index_close(sweep_index *ix);

/* ---- the directory's locks (sweep_lock.c) ------------------------------- */

/* A lock file dir/name held with flock: exclusive or shared, never
 * waiting (false when another holds it) or waiting. -1 on failure with
 * errno. */
int sweep_lock(const char *dir, const char *name, bool exclusive, bool wait);
void sweep_unlock(int fd);

/* ---- running a case (sweep_case.c) --------------------------------------- */

/* "DIR/case-NNNNN.h5" of case c. */
void sweep_case_path(const char *dir, int c, char *out, size_t size);

/* snprintf that may cut the text (messages into the index's fields). */
void sweep_format(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Append text to buf ("; " between), cut to size. */
void sweep_append(char *buf, size_t size, const char *text);

#endif
