/* The solvers' large work arrays (32 kB and more: modified shooting's
 * band matrices and work vectors, the predictors' fits) laid out in
 * shared mappings advised as transparent huge pages (2 MiB), where the
 * kernel has them. A 4 KiB page fault costs about 10 us on a virtual
 * machine; the first rod's `rodsim bench` took about 400 of them in these
 * arrays as their pages were first written, 4 ms of its 30, where one
 * huge page takes 0.2 ms. Smaller arrays, and all of them where the
 * kernel has no transparent huge pages (or under AddressSanitizer, which
 * watches malloc's), are calloc's. */
#ifndef ROD_WORKSPACE_H
#define ROD_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

/* count * size B, zeroed (as calloc; NULL when out of memory). Free with
 * rod_work_free. Thread-safe. */
void *rod_work_alloc(size_t count, size_t size);

/* Frees p from rod_work_alloc, or any pointer from malloc (NULL: none).
 * A mapping whose arrays are all freed is given back to the system (a
 * simulation's arrays are freed with it; making a huge page again costs
 * 0.2 ms). */
void rod_work_free(void *p);

/* bytes rounded up to whole huge pages (2 MiB). */
size_t rod_huge_size(size_t bytes);

/* A mapping of size B (a multiple of 2 MiB) on a huge page's boundary,
 * advised as huge pages (NULL when none); munmap frees it. */
void *rod_huge_map(size_t size);

/* Whether the kernel lays memory advised so out in huge pages:
 * transparent huge pages "always" or "madvise"
 * (/sys/kernel/mm/transparent_hugepage/enabled, read once). */
bool rod_huge_pages(void);

#endif
