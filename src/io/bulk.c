/* One mapping of huge pages for a writer's buffers (bulk.h). */
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#include "io/bulk.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "integrators/workspace.h"
#include "rod/status.h"

/* B: blocks are handed out on cache lines. */
enum { LINE = 64 };

size_t rod_bulk_room(size_t bytes) { return (bytes + LINE - 1) / LINE * LINE; }

size_t rod_bulk_size(size_t bytes) { return rod_huge_size(bytes); }

int rod_bulk_init(rod_bulk *b, size_t bytes) {
  memset(b, 0, sizeof *b);
  const size_t size = rod_bulk_size(bytes);
  if (size == 0)
    return ROD_OK;
  unsigned char *base = rod_huge_map(size);
  if (!base)
    return ROD_ENOMEM;
  b->base = base;
  b->size = size;
  return ROD_OK;
}

void *rod_bulk_take(rod_bulk *b, size_t bytes) {
  const size_t room = rod_bulk_room(bytes);
  if (!b->base || room > b->size - b->used)
    return NULL;
  void *p = b->base + b->used;
  b->used += room;
  return p;
}

void rod_bulk_populate(rod_bulk *b, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  bytes = (bytes < b->used ? bytes : b->used) + page - 1;
  if (b->base && bytes >= page)
    madvise(b->base, bytes / page * page, MADV_POPULATE_WRITE);
#else
  (void)b;
  (void)bytes;
#endif
}

void rod_bulk_free(rod_bulk *b) {
  if (b->base)
    munmap(b->base, b->size);
  memset(b, 0, sizeof *b);
}
