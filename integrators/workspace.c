/* The solvers' large work arrays in huge pages (workspace.h): mappings of
 * 4 MiB or more on huge pages' boundaries, handed out from their start
 * (bump allocation: fresh pages, zero) and given back once all they
 * handed out is freed. */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "integrators/workspace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* B: arrays from here on go to a mapping; a mapping's least size; a huge
 * page; the mappings at most (then calloc's). */
enum {
  WORK_MIN = 32 << 10,
  REGION = 4 << 20,
  HUGE_PAGE = 2 << 20,
  MAX_REGIONS = 32,
  LINE = 64
};

typedef struct {
  unsigned char *base;
  size_t size;
  size_t used; /* B handed out */
  long live;   /* arrays handed out, not freed */
} region;

static region regions[MAX_REGIONS];
static int nregions;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

bool rod_huge_pages(void) {
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

size_t rod_huge_size(size_t bytes) {
  return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

void *rod_huge_map(size_t size) {
  /* one huge page more, the parts before and after the boundary given
   * back */
  unsigned char *map = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  unsigned char *base = (unsigned char *)(((uintptr_t)map + HUGE_PAGE - 1) &
                                          ~(uintptr_t)(HUGE_PAGE - 1));
  if (base > map)
    munmap(map, (size_t)(base - map));
  if (base + size < map + size + HUGE_PAGE)
    munmap(base + size, (size_t)(map + size + HUGE_PAGE - (base + size)));
#ifdef MADV_HUGEPAGE
  madvise(base, size, MADV_HUGEPAGE); /* advice: ordinary pages without */
#endif
  return base;
}

/* A new mapping of at least `room` B (under lock); NULL when none. */
static region *map_region(size_t room) {
  if (nregions == MAX_REGIONS)
    return NULL;
  const size_t size = rod_huge_size(room > REGION ? room : REGION);
  unsigned char *base = rod_huge_map(size);
  if (!base)
    return NULL;
  region *r = &regions[nregions++];
  *r = (region){.base = base, .size = size};
  return r;
}

void *rod_work_alloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return NULL;
  const size_t bytes = count * size;
#ifdef __SANITIZE_ADDRESS__
  const bool pooled = false;
#else
  const bool pooled = bytes >= WORK_MIN && rod_huge_pages();
#endif
  if (!pooled)
    return calloc(count, size);
  const size_t room = (bytes + LINE - 1) / LINE * LINE;
  pthread_mutex_lock(&lock);
  region *r = NULL;
  for (int k = 0; k < nregions && !r; k++)
    if (regions[k].size - regions[k].used >= room)
      r = &regions[k];
  if (!r)
    r = map_region(room);
  if (!r) {
    pthread_mutex_unlock(&lock);
    return calloc(count, size);
  }
  unsigned char *p = r->base + r->used;
  r->used += room;
  r->live++;
  pthread_mutex_unlock(&lock);
  return p;
}

void rod_work_free(void *p) {
  if (!p)
    return;
  const unsigned char *c = p;
  pthread_mutex_lock(&lock);
  for (int k = 0; k < nregions; k++) {
    region *r = &regions[k];
    if (c >= r->base && c < r->base + r->size) {
      if (--r->live == 0) { /* given back: a huge page is soon made */
        munmap(r->base, r->size);
        *r = regions[--nregions];
      }
      pthread_mutex_unlock(&lock);
      return;
    }
  }
  pthread_mutex_unlock(&lock);
  free(p);
}
