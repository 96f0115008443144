/* One mapping of huge pages for a writer's buffers (bulk.h). */
#define _GNU_SOURCE /* MADV_HUGEPAGE, MADV_POPULATE_WRITE */
#include "io/bulk.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rod/status.h"

/* B of a huge page on x86-64 and arm64 with 4 KiB pages: the boundary the
 * mapping starts on and the unit it grows by. */
enum { HUGE_PAGE = 2u << 20, LINE = 64 };

size_t rod_bulk_room(size_t bytes) { return (bytes + LINE - 1) / LINE * LINE; }

size_t rod_bulk_size(size_t bytes) {
  return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

bool rod_bulk_huge(void) {
  static atomic_int known; /* 0: not read yet, 1: no, 2: yes */
  int k = atomic_load(&known);
  if (k == 0) {
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (f) {
      if (!fgets(mode, sizeof mode, f))
        mode[0] = '\0';
      fclose(f);
    }
    k = strstr(mode, "[always]") || strstr(mode, "[madvise]") ? 2 : 1;
    atomic_store(&known, k);
  }
  return k == 2;
}

int rod_bulk_init(rod_bulk *b, size_t bytes) {
  memset(b, 0, sizeof *b);
  const size_t size = rod_bulk_size(bytes);
  if (size == 0)
    return ROD_OK;
  /* one huge page more, then the parts before and after the boundary
   * given back */
  unsigned char *map = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return ROD_ENOMEM;
  unsigned char *base = (unsigned char *)(((uintptr_t)map + HUGE_PAGE - 1) &
                                          ~(uintptr_t)(HUGE_PAGE - 1));
  if (base > map)
    munmap(map, (size_t)(base - map));
  if (base + size < map + size + HUGE_PAGE)
    munmap(base + size, (size_t)(map + size + HUGE_PAGE - (base + size)));
#ifdef MADV_HUGEPAGE
  madvise(base, size, MADV_HUGEPAGE); /* advice: ordinary pages without */
#endif
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
