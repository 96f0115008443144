/* The logger's writer thread and its ring of sample blocks
 * (logger_writer.h): the hand-over between the solver's thread and the
 * writer, chunks compressed and written directly, flushes paced by wall
 * time, /samples raised only after the data it counts is flushed. */
#include "io/logger_writer.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "integrators/workspace.h"
#include "io/bulk.h"
#include "io/deflate_chunk.h"
#include "rod/status.h"

/* A block of the ring: the rows of one chunk from its start, rows at ..
 * at + n - 1 (samples start ..) being this block's own, the rows before
 * copied from the block before it (a block handed over before its chunk
 * was whole, to be flushed). Each column's rows lie one after the other. */
/* Descriptors the writer holds to close (rod_writer_close_later). */
enum { WRITER_CLOSES = 4 };

typedef struct {
  unsigned char **col;
  long start; /* the sample at row at */
  int at, n;
  bool flush; /* flush the file after writing it */
  bool last;  /* the file's last samples: chunk 0 is written as it ends */
  long seq;   /* its hand-over */
} block_t;

struct rod_writer {
  rod_writer_config cfg;
  rod_column *cols;
  int ncols;
  size_t row_bytes;   /* B of one sample, every column */
  size_t chunk_bytes; /* B of the largest chunk of one part */
  /* the ring, under lock */
  block_t *ring;
  int head;          /* the block the writer takes next */
  int queued;        /* handed over, not yet done */
  bool filling;      /* the solver's thread holds block (head + queued) */
  block_t *in_hand;  /* that block, read and written by that thread alone */
  block_t *prev;     /* the block handed over last */
  long next;         /* the index of the next sample */
  long handed, done; /* hand-overs made and done */
  long counted;      /* samples /samples counts */
  double last_handover;
  bool stop, threaded;
  int to_close[WRITER_CLOSES]; /* for the writer to close, -1: none */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t work, finished;
  atomic_int failed; /* errno of the first failed write, 0: none */
  bool clean_stop;   /* that failure was foreseen */
  /* the writer's own */
  long chunk_index;      /* along T of the chunk in hand; -1: none */
  int chunk_rows;        /* its rows received */
  int chunk_written;     /* its rows in the file */
  unsigned char *gather; /* one part of one chunk */
  rod_deflater deflater;
  rod_bulk bulk; /* the ring's columns, gather and the deflater's buffers */
  long total;    /* samples written into the file */
  long extent;   /* the datasets' extent along T */
  double last_flush;
  bool committed;   /* flushed with samples: under its name */
  bool first_as_is; /* chunk 0 stored as it is, at its full length, to be
                       written again in place */
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static size_t column_bytes(const rod_column *c) { return c->width * c->esize; }

/* ---- writing (the writer's thread, or the caller's with one block) ---- */

/* Round x to its keep leading mantissa bits (of 52), to nearest: the bits
 * below hold the solver's noise, not the solution, and noise does not
 * compress. Infinities and NaN are left as they are. */
static void round_bits(double *x, size_t n, int keep) {
  if (keep >= 52)
    return;
  const int drop = 52 - keep;
  const uint64_t half = (uint64_t)1 << (drop - 1);
  const uint64_t mask = ~(((uint64_t)1 << drop) - 1);
  const uint64_t exponent = (uint64_t)0x7ff << 52;
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[i], sizeof u);
    if ((u & exponent) == exponent)
      continue;
    u = (u + half) & mask; /* a carry into the exponent rounds up rightly */
    memcpy(&x[i], &u, sizeof u);
  }
}

/* The first failure stops the writing; later blocks are dropped. */
static int failure(rod_writer *w, int err, bool foreseen) {
  int none = 0;
  if (atomic_compare_exchange_strong(&w->failed, &none, err ? err : EIO))
    w->clean_stop = foreseen;
  return ROD_EIO;
}

/* Room for the next write (B): HDF5 has no way back from a write that
 * fails half-way (its metadata cache keeps entries it cannot write, and a
 * file closed then may not open), so a chunk is written only when the
 * disk and the file size limit (RLIMIT_FSIZE) have room for it
 * uncompressed, plus a margin for the metadata and the status attribute
 * written at close. 0 when there is room, else ENOSPC or EFBIG. */
static const double write_margin = 1 << 20;

static int room_for(rod_writer *w, double bytes) {
  void *handle = NULL;
  if (H5Fget_vfd_handle(w->cfg.file, H5P_DEFAULT, &handle) < 0 || !handle)
    return 0;
  const int fd = *(int *)handle;
  const double need = 1.01 * bytes + write_margin;
  struct statvfs fs;
  if (fstatvfs(fd, &fs) == 0 &&
      (double)fs.f_bavail * (double)fs.f_frsize < need)
    return ENOSPC;
  struct rlimit lim;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      fstat(fd, &st) == 0) {
    hsize_t size = 0;
    H5Fget_filesize(w->cfg.file, &size);
    double used = fmax((double)st.st_size, (double)size);
    if ((double)lim.rlim_cur - used < need)
      return EFBIG;
  }
  return 0;
}

/* Part p of a column's chunk (its rows in col), contiguous in w->gather:
 * its values of the rows received (value j of a row is value j parts + p
 * of the sample), rounded, then zeros to the chunk's end (the rows to
 * come). */
static const unsigned char *part_of(rod_writer *w, const rod_column *c,
                                    const unsigned char *col, int p,
                                    size_t *bytes) {
  const size_t per_row = c->width / (size_t)c->parts;
  const size_t got = (size_t)w->chunk_rows * per_row;
  *bytes = (size_t)w->cfg.block * per_row * c->esize;
  if (c->parts == 1)
    memcpy(w->gather, col, got * c->esize);
  else if (c->esize == sizeof(double)) /* a copy of 8 bytes inlined */
    for (size_t v = 0; v < got; v++)
      memcpy(w->gather + 8 * v, col + 8 * (v * (size_t)c->parts + (size_t)p),
             8);
  else
    for (size_t v = 0; v < got; v++)
      memcpy(w->gather + v * c->esize,
             col + (v * (size_t)c->parts + (size_t)p) * c->esize, c->esize);
  memset(w->gather + got * c->esize, 0, *bytes - got * c->esize);
  if (c->keep_bits < 52 && c->esize == sizeof(double))
    round_bits((double *)w->gather, got, c->keep_bits);
  return w->gather;
}

/* Extend every dataset to n samples. */
static int extend(rod_writer *w, long n) {
  if (w->extent == n)
    return ROD_OK;
  for (int i = 0; i < w->ncols; i++) {
    hsize_t size[3] = {(hsize_t)n, w->cols[i].dims[1], w->cols[i].dims[2]};
    if (H5Dset_extent(w->cols[i].ds, size) < 0)
      return ROD_EIO;
  }
  w->extent = n;
  return ROD_OK;
}

/* /samples = n, on the disk before anything written after: a flush. */
static int set_count(rod_writer *w, long n) {
  errno = 0;
  const int64_t v = (int64_t)n;
  if (H5Dwrite(w->cfg.count, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
               &v) < 0 ||
      H5Fflush(w->cfg.file, H5F_SCOPE_GLOBAL) < 0)
    return failure(w, errno, false);
  pthread_mutex_lock(&w->lock);
  w->counted = n;
  pthread_mutex_unlock(&w->lock);
  return ROD_OK;
}

/* The samples written so far onto the disk, then counted in a flush of
 * their own, so that /samples never counts a sample whose data is not on
 * disk (a run killed during a flush may leave some datasets extended past
 * their data: HDF5 writes the datasets' headers, chunk indices and the
 * superblock in no order a reader can rely on); the file under its name
 * after the first. */
static int count_written(rod_writer *w) {
  if (w->total == w->counted)
    return ROD_OK;
  errno = 0;
  if (H5Fflush(w->cfg.file, H5F_SCOPE_GLOBAL) < 0)
    return failure(w, errno, false);
  if (set_count(w, w->total) != ROD_OK)
    return ROD_EIO;
  if (!w->committed) {
    errno = 0;
    if (w->cfg.commit && w->cfg.commit(w->cfg.user) != ROD_OK)
      return failure(w, errno, false);
    w->committed = true;
  }
  return ROD_OK;
}

/* One part of a chunk written before holds the same now: its rows since
 * are zeros, as its rows beyond were then (a planar run's third
 * component). Left as it is, not written again. */
static bool unchanged(const rod_writer *w, const rod_column *c,
                      const unsigned char *values) {
  if (w->chunk_written == 0)
    return false;
  const size_t row = c->width / (size_t)c->parts * c->esize;
  for (size_t k = (size_t)w->chunk_written * row;
       k < (size_t)w->chunk_rows * row; k++)
    if (values[k])
      return false;
  return true;
}

/* Write the chunk in hand (whole or in part, its rows in b) into every
 * dataset. A chunk written before moves in the file (its deflated length
 * changes; HDF5 reuses no space), and a flush writes its new place into
 * the chunk index before the file's end address in the superblock: a run
 * killed in between leaves an index pointing past the end, which no
 * reader follows. So the samples of such a chunk are uncounted first
 * (/samples lowered to its start, flushed) and counted again by the flush
 * after. Chunk 0 is the exception, as it holds the first sample, which a
 * file under its name always counts: when it is written before it is
 * whole, it is stored as it is, at its full length, and written again in
 * place. */
static int write_chunk(rod_writer *w, const block_t *b) {
  const int room = room_for(w, (double)w->cfg.block * (double)w->row_bytes);
  if (room) { /* what is written is kept: counted in the room left */
    failure(w, room, true);
    count_written(w);
    return ROD_EIO;
  }
  const long start = w->chunk_index * w->cfg.block,
             rows = start + w->chunk_rows;
  if (w->chunk_written > 0 && w->chunk_index > 0 && w->counted > start &&
      set_count(w, start) != ROD_OK)
    return ROD_EIO;
  errno = 0;
  if (extend(w, rows) != ROD_OK)
    return failure(w, errno, false);
  const bool as_is = w->chunk_index == 0 && w->first_as_is;
  for (int i = 0; i < w->ncols; i++) {
    const rod_column *c = &w->cols[i];
    for (int p = 0; p < c->parts; p++) {
      size_t bytes, len;
      uint32_t mask;
      const unsigned char *values = part_of(w, c, b->col[i], p, &bytes);
      if (unchanged(w, c, values))
        continue;
      const void *data = rod_deflate_chunk(&w->deflater, values, bytes,
                                           c->esize, as_is, &len, &mask);
      hsize_t offset[3] = {(hsize_t)start, 0, 0};
      if (c->parts > 1)
        offset[c->rank - 1] = (hsize_t)p;
      errno = 0;
      if (H5Dwrite_chunk(c->ds, H5P_DEFAULT, mask, offset, len, data) < 0)
        return failure(w, errno, false);
    }
  }
  w->chunk_written = w->chunk_rows;
  w->total = rows;
  return ROD_OK;
}

/* Every sample received onto the disk and counted: the chunk in hand
 * (chunk 0 as it is unless the file ends now), a flush, /samples. */
static int flush_file(rod_writer *w, const block_t *b) {
  w->last_flush = now();
  if (w->chunk_rows > w->chunk_written) {
    if (w->chunk_index == 0 && !b->last)
      w->first_as_is = true;
    if (write_chunk(w, b) != ROD_OK)
      return ROD_EIO;
  }
  return count_written(w);
}

/* A block from the ring: the chunk written when whole; the file flushed
 * when asked, when due, after a chunk that moved (to count its samples
 * again) and after the first whole chunk (to put the file under its
 * name). */
static void write_block(rod_writer *w, const block_t *b) {
  if (atomic_load(&w->failed))
    return;
  bool moved = false;
  if (b->at + b->n > 0) {
    const long index = b->start / w->cfg.block;
    if (index != w->chunk_index) {
      w->chunk_index = index;
      w->chunk_written = 0;
    }
    w->chunk_rows = b->at + b->n;
    if (w->chunk_rows == w->cfg.block && w->chunk_written < w->chunk_rows) {
      moved = w->chunk_written > 0;
      if (write_chunk(w, b) != ROD_OK)
        return;
    }
  }
  const bool first = !w->committed && w->total > 0; /* chunk 0 whole */
  if (b->flush || moved || first ||
      now() - w->last_flush >= w->cfg.flush_interval)
    flush_file(w, b);
}

/* After the file's last block: the file ended (rod_writer_config.end). */
static void end_file(rod_writer *w) {
  if (!w->cfg.end)
    return;
  pthread_mutex_lock(&w->lock);
  const long pending = w->next - w->counted;
  pthread_mutex_unlock(&w->lock);
  bool clean_stop;
  const int failed = rod_writer_errno(w, &clean_stop);
  w->cfg.end(w->cfg.user, failed, clean_stop, pending);
}

/* A block written; the file ended after its last. */
static void write_and_end(rod_writer *w, const block_t *b) {
  write_block(w, b);
  if (b->last)
    end_file(w);
}

/* The block done: its room back to the solver's thread. */
static void release(rod_writer *w, const block_t *b) {
  pthread_mutex_lock(&w->lock);
  w->head = (w->head + 1) % w->cfg.blocks;
  w->queued--;
  w->done = b->seq;
  pthread_cond_broadcast(&w->finished);
  pthread_mutex_unlock(&w->lock);
}

/* The file and its datasets made (rod_writer_config.prepare). */
static void prepare(rod_writer *w) {
  errno = 0;
  if (w->cfg.prepare && w->cfg.prepare(w->cfg.user, &w->cfg, w->cols) != ROD_OK)
    failure(w, errno, false);
}

static void *writer_main(void *arg) {
  rod_writer *w = arg;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5's error stack is the
                                            thread's: it prints nothing */
#ifdef __linux__
  prctl(PR_SET_NAME, "rodsim-writer"); /* as top and perf show it */
#endif
  prepare(w);
  pthread_mutex_lock(&w->lock);
  for (;;) {
    int fd = -1;
    for (int k = 0; k < WRITER_CLOSES && fd < 0; k++)
      if (w->to_close[k] >= 0) {
        fd = w->to_close[k];
        w->to_close[k] = -1;
      }
    if (fd >= 0) {
      pthread_mutex_unlock(&w->lock);
      close(fd);
      pthread_mutex_lock(&w->lock);
    } else if (w->queued > 0) {
      block_t *b = &w->ring[w->head];
      pthread_mutex_unlock(&w->lock);
      write_and_end(w, b);
      release(w, b);
      pthread_mutex_lock(&w->lock);
    } else if (w->stop) {
      break;
    } else {
      pthread_cond_wait(&w->work, &w->lock);
    }
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* ---- the solver's side ------------------------------------------------- */

/* The block being filled, taken from the ring when none is (waiting while
 * every block is handed over); a block that starts inside a chunk gets
 * the chunk's rows before from the block handed over last. */
static block_t *filling(rod_writer *w) {
  if (w->in_hand) /* this thread's own: no lock */
    return w->in_hand;
  pthread_mutex_lock(&w->lock);
  while (!w->filling && w->queued == w->cfg.blocks)
    pthread_cond_wait(&w->finished, &w->lock);
  block_t *b = &w->ring[(w->head + w->queued) % w->cfg.blocks];
  const bool fresh = !w->filling;
  w->filling = true;
  pthread_mutex_unlock(&w->lock);
  w->in_hand = b;
  if (fresh) {
    b->start = w->next;
    b->at = (int)(w->next % w->cfg.block);
    b->n = 0;
    if (b->at > 0 && w->prev != b) /* the writer only reads prev */
      for (int i = 0; i < w->ncols; i++)
        memcpy(b->col[i], w->prev->col[i],
               (size_t)b->at * column_bytes(&w->cols[i]));
  }
  return b;
}

/* Hand b to the writer (written here with one block), to be flushed
 * after or (last) to end the file; returns its hand-over number. */
static long hand_over(rod_writer *w, block_t *b, bool flush, bool last) {
  pthread_mutex_lock(&w->lock);
  b->flush = flush || last;
  b->last = last;
  b->seq = ++w->handed;
  w->queued++;
  w->filling = false;
  w->in_hand = NULL;
  w->prev = b;
  w->last_handover = now();
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->lock);
  if (!w->threaded) {
    write_and_end(w, b);
    release(w, b);
  }
  return b->seq;
}

/* Wait until hand-over seq is done. */
static int wait_done(rod_writer *w, long seq) {
  pthread_mutex_lock(&w->lock);
  while (w->done < seq)
    pthread_cond_wait(&w->finished, &w->lock);
  pthread_mutex_unlock(&w->lock);
  return atomic_load(&w->failed) ? ROD_EIO : ROD_OK;
}

void rod_writer_rows(rod_writer *w, void **rows) {
  block_t *b = filling(w);
  for (int i = 0; i < w->ncols; i++)
    rows[i] = b->col[i] + (size_t)(b->at + b->n) * column_bytes(&w->cols[i]);
}

int rod_writer_push(rod_writer *w) {
  if (atomic_load(&w->failed))
    return ROD_EIO;
  block_t *b = filling(w);
  b->n++;
  w->next++;
  if (b->at + b->n == w->cfg.block)
    hand_over(w, b, false, false);
  return ROD_OK;
}

int rod_writer_tick(rod_writer *w, double max_age) {
  if (atomic_load(&w->failed))
    return ROD_EIO;
  if (now() - w->last_handover < max_age)
    return ROD_OK;
  pthread_mutex_lock(&w->lock);
  const bool pending = w->next > w->counted;
  pthread_mutex_unlock(&w->lock);
  if (pending)
    hand_over(w, filling(w), true, false);
  return ROD_OK;
}

int rod_writer_sync(rod_writer *w, bool flush) {
  return wait_done(w, hand_over(w, filling(w), flush, false));
}

long rod_writer_finish_begin(rod_writer *w) {
  return hand_over(w, filling(w), true, true);
}

int rod_writer_wait(rod_writer *w, long handed) { return wait_done(w, handed); }

void rod_writer_close_later(rod_writer *w, int fd) {
  if (fd < 0)
    return;
  if (w && w->threaded) {
    pthread_mutex_lock(&w->lock);
    for (int k = 0; k < WRITER_CLOSES; k++)
      if (w->to_close[k] < 0) {
        w->to_close[k] = fd;
        fd = -1;
        break;
      }
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
  }
  if (fd >= 0) /* one block, or no room: here */
    close(fd);
}

long rod_writer_pending(rod_writer *w) {
  pthread_mutex_lock(&w->lock);
  const long n = w->next - w->counted;
  pthread_mutex_unlock(&w->lock);
  return n;
}

long rod_writer_written(rod_writer *w) {
  pthread_mutex_lock(&w->lock);
  const long n = w->counted;
  pthread_mutex_unlock(&w->lock);
  return n;
}

int rod_writer_errno(rod_writer *w, bool *clean_stop) {
  const int e = atomic_load(&w->failed);
  if (clean_stop)
    *clean_stop = e && w->clean_stop;
  return e;
}

/* ---- start and stop ---------------------------------------------------- */

static void free_writer(rod_writer *w) {
  for (int k = 0; k < WRITER_CLOSES; k++)
    if (w->to_close[k] >= 0)
      close(w->to_close[k]);
  for (int k = 0; w->ring && k < w->cfg.blocks; k++)
    free(w->ring[k].col);
  free(w->ring);
  free(w->cols);
  rod_deflater_free(&w->deflater);
  rod_bulk_free(&w->bulk);
  pthread_mutex_destroy(&w->lock);
  pthread_cond_destroy(&w->work);
  pthread_cond_destroy(&w->finished);
  free(w);
}

/* B of a block's column i. */
static size_t block_bytes(const rod_writer *w, int i) {
  return (size_t)w->cfg.block * column_bytes(&w->cols[i]);
}

/* The ring's blocks, one part of a chunk and the deflater's buffers, in
 * one mapping (io/bulk.h), the ring first. Its pages are made present
 * (the ring's on the solver's thread, which writes the first samples into
 * them), so that the threads take no page fault as they fill them; the
 * first rod's loop took 689 faults on the solver's thread before, 520
 * after, as many as `rodsim bench` takes. */
static int allocate(rod_writer *w) {
  size_t per_block = 0;
  for (int i = 0; i < w->ncols; i++)
    per_block += rod_bulk_room(block_bytes(w, i));
  const size_t rest = rod_bulk_room(w->chunk_bytes) +
                      rod_deflater_room(w->cfg.level, w->chunk_bytes);
  if (w->cfg.fill && w->cfg.blocks > 1 && rod_huge_pages()) {
    const size_t mapped = rod_bulk_size(w->cfg.blocks * per_block + rest);
    while (w->cfg.blocks < ROD_WRITER_MAX_BLOCKS &&
           (w->cfg.blocks + 1) * per_block + rest <= mapped)
      w->cfg.blocks++;
  }
  const size_t ring = (size_t)w->cfg.blocks * per_block;
  const size_t bytes = ring + rest;
  w->ring = calloc((size_t)w->cfg.blocks, sizeof *w->ring);
  if (!w->ring || rod_bulk_init(&w->bulk, bytes) != ROD_OK)
    return ROD_ENOMEM;
  for (int k = 0; k < w->cfg.blocks; k++) {
    w->ring[k].col = calloc((size_t)w->ncols, sizeof *w->ring[k].col);
    if (!w->ring[k].col)
      return ROD_ENOMEM;
    for (int i = 0; i < w->ncols; i++)
      w->ring[k].col[i] = rod_bulk_take(&w->bulk, block_bytes(w, i));
  }
  w->gather = rod_bulk_take(&w->bulk, w->chunk_bytes);
  rod_bulk_populate(&w->bulk, ring);
  return rod_deflater_init(&w->deflater, w->cfg.level, w->chunk_bytes,
                           &w->bulk);
}

int rod_writer_start(rod_writer **out, const rod_writer_config *cfg,
                     const rod_column *cols, int ncols) {
  *out = NULL;
  rod_writer *w = calloc(1, sizeof *w);
  if (!w)
    return ROD_ENOMEM;
  w->cfg = *cfg;
  hbool_t threadsafe = false; /* HDF5 called from two threads at once */
  H5is_library_threadsafe(&threadsafe);
  if (w->cfg.blocks < 1 || !threadsafe)
    w->cfg.blocks = 1;
  w->ncols = ncols;
  w->chunk_index = -1;
  for (int k = 0; k < WRITER_CLOSES; k++)
    w->to_close[k] = -1;
  w->last_flush = w->last_handover = now();
  atomic_init(&w->failed, 0);
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->work, NULL);
  pthread_cond_init(&w->finished, NULL);
  w->cols = malloc((size_t)ncols * sizeof *cols);
  if (!w->cols) {
    free_writer(w);
    return ROD_ENOMEM;
  }
  memcpy(w->cols, cols, (size_t)ncols * sizeof *cols);
  for (int i = 0; i < ncols; i++) {
    const size_t part =
        (size_t)cfg->block * column_bytes(&cols[i]) / (size_t)cols[i].parts;
    w->row_bytes += column_bytes(&cols[i]);
    if (part > w->chunk_bytes)
      w->chunk_bytes = part;
  }
  int st = allocate(w);
  if (st != ROD_OK) {
    free_writer(w);
    return st;
  }
  if (w->cfg.blocks == 1) {
    prepare(w);
  } else { /* no signal handled on the writer's thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    w->threaded = pthread_create(&w->thread, NULL, writer_main, w) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!w->threaded) {
      free_writer(w);
      return ROD_EIO;
    }
  }
  *out = w;
  return ROD_OK;
}

int rod_writer_blocks(const rod_writer *w) { return w->cfg.blocks; }

void rod_writer_stop_begin(rod_writer *w) {
  if (!w || !w->threaded)
    return;
  pthread_mutex_lock(&w->lock);
  w->stop = true;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->lock);
}

void rod_writer_stop(rod_writer *w) {
  if (!w)
    return;
  if (w->threaded) {
    rod_writer_stop_begin(w);
    pthread_join(w->thread, NULL);
  }
  free_writer(w);
}
