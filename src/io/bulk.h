/* One mapping for the buffers that live as long as a logger's writer (its
 * ring, its gather buffer, the deflater's): laid out in huge pages where
 * the kernel offers them (transparent huge pages, madvise mode), so that
 * the whole of it is made present by one page fault. A 4 KiB page fault
 * costs about 10 us on a virtual machine; the first rod's writer buffers
 * (1.2 MB) took about 300 of them, 3 ms of the run, where one 2 MiB page
 * takes 0.2 ms. Elsewhere the mapping has ordinary pages, as malloc's. */
#ifndef ROD_IO_BULK_H
#define ROD_IO_BULK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  unsigned char *base; /* NULL: none */
  size_t size;         /* B mapped */
  size_t used;         /* B handed out */
} rod_bulk;

/* A mapping of at least `bytes` B (rounded up to whole huge pages, on a
 * huge page's boundary). ROD_OK or ROD_ENOMEM. */
int rod_bulk_init(rod_bulk *b, size_t bytes);

/* `bytes` B of it, on a 64-B boundary (a cache line); NULL when it has
 * not that much left. */
void *rod_bulk_take(rod_bulk *b, size_t bytes);

/* The pages of its first `bytes` B handed out made present for writing in
 * one call (MADV_POPULATE_WRITE), where the kernel can; else they fault in
 * as they are written. With huge pages, the whole huge page. */
void rod_bulk_populate(rod_bulk *b, size_t bytes);

void rod_bulk_free(rod_bulk *b);

/* B that rod_bulk_take hands out for a request of `bytes` B. */
size_t rod_bulk_room(size_t bytes);

/* B that rod_bulk_init maps for `bytes` B (whole huge pages). */
size_t rod_bulk_size(size_t bytes);

#endif
