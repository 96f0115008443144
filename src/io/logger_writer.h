/* The logger's writer (src/io/logger.c): samples go from the solver's
 * thread into blocks of a bounded ring; a writer thread takes each block,
 * rounds, shuffles and deflates its chunks (io/deflate_chunk.h), writes
 * them, and flushes the file at most every flush_interval seconds of wall
 * time, raising /samples only in a flush after the one that wrote those
 * samples. The solver waits only when every block of the ring is full;
 * with a ring of one block everything is done on the caller's thread, in
 * the same order, and the file is the same. */
#ifndef ROD_IO_LOGGER_WRITER_H
#define ROD_IO_LOGGER_WRITER_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>

/* One dataset along T, chunked as (block, the rest) with the last
 * dimension split into `parts` chunks of one component each. */
typedef struct {
  hid_t ds;
  int rank;        /* 1 .. 3 */
  hsize_t dims[3]; /* the extent; dims[0] (T) is set by the writer */
  size_t esize;    /* B of one value */
  size_t width;    /* values of one sample */
  int parts;       /* chunks across a sample: dims[rank - 1] or 1 */
  int keep_bits;   /* doubles rounded to this many mantissa bits (52: as
                      they are) */
} rod_column;

/* Most blocks of a ring that fills its huge pages (rod_writer_config.fill). */
enum { ROD_WRITER_MAX_BLOCKS = 8 };

typedef struct rod_writer_config rod_writer_config;

struct rod_writer_config {
  hid_t file;
  hid_t count; /* /samples */
  int block;   /* samples of a chunk along T */
  int level;   /* output.compression */
  int blocks;  /* of the ring; 1: on the caller's thread */
  /* More blocks (up to ROD_WRITER_MAX_BLOCKS) while the huge pages the
   * ring's mapping takes anyway have room for them (io/bulk.h; none
   * where the kernel has no transparent huge pages): slack for the solver
   * while the writer makes the file at its start. */
  bool fill;
  double flush_interval; /* s of wall time between flushes */
  /* After the first flush that counted samples: the file is whole and may
   * go under its name. Called on the writer's thread. */
  int (*commit)(void *user);
  /* When given, the writer's first work, before any sample: it makes the
   * file and its datasets and sets file, count and every column's ds
   * (the solver goes on meanwhile). Its failure (errno) fails the writer
   * as a failed write does. Called on the writer's thread, or within
   * rod_writer_start with a ring of one block. */
  int (*prepare)(void *user, rod_writer_config *cfg, rod_column *cols);
  /* When given, the writer's last work, after the last block
   * (rod_writer_finish_begin) is written and counted or the writing
   * failed: it ends the file (its status, its close) while the caller's
   * thread does other work. failed: errno of the first failed write (0:
   * none); clean_stop: that failure was foreseen; pending: samples handed
   * over and not counted. Called on the writer's thread, or within
   * rod_writer_finish_begin with a ring of one block. */
  void (*end)(void *user, int failed, bool clean_stop, long pending);
  void *user;
};

typedef struct rod_writer rod_writer;

/* A writer of cols (copied) into cfg->file (or the file cfg->prepare
 * makes); its thread starts now.
 * ROD_ENOMEM, or ROD_EIO when no thread can be made. */
int rod_writer_start(rod_writer **w, const rod_writer_config *cfg,
                     const rod_column *cols, int ncols);

/* Where the next sample goes: rows[i] receives the width values of column
 * i. Waits while every block of the ring is full. */
void rod_writer_rows(rod_writer *w, void **rows);

/* The sample in rows is complete; it is written when its block fills
 * (or the flush interval passes, rod_writer_tick). Returns ROD_EIO once a
 * write has failed (the sample is dropped). */
int rod_writer_push(rod_writer *w);

/* Hand over the block being filled, to be written and flushed, when the
 * last hand-over is older than max_age s and samples wait to be counted;
 * ROD_EIO after a failed write. */
int rod_writer_tick(rod_writer *w, double max_age);

/* Hand over the block being filled and wait until it is written; flush:
 * and flushed and counted. ROD_EIO after a failed write. */
int rod_writer_sync(rod_writer *w, bool flush);

/* The end of the writing, in two: the last block handed over, to write
 * and count every sample handed over as the file's last, then to end the
 * file (rod_writer_config.end; its number returned); and the wait until
 * it is done (ROD_EIO after a failed write), with other work between. */
long rod_writer_finish_begin(rod_writer *w);
int rod_writer_wait(rod_writer *w, long handed);

/* Close fd on the writer's thread (at once with a ring of one block):
 * the last hold on a file that was replaced or removed, whose blocks
 * are freed as it closes (io/outfile.h). */
void rod_writer_close_later(rod_writer *w, int fd);

/* Blocks in w's ring. */
int rod_writer_blocks(const rod_writer *w);

/* Tell the thread to end once it has done what it was given, and go on
 * (its exit, about 0.2 ms here, beside the caller's work). */
void rod_writer_stop_begin(rod_writer *w);

/* End the thread and free w (NULL: nothing); the file stays open. */
void rod_writer_stop(rod_writer *w);

/* Samples counted in the file so far, and those handed over beyond. */
long rod_writer_written(rod_writer *w);
long rod_writer_pending(rod_writer *w);

/* errno of the first failed write (0: none), and whether it was foreseen
 * (no room: nothing was written half-way, so the file can still take its
 * status). */
int rod_writer_errno(rod_writer *w, bool *clean_stop);

#endif
