/* Tangent directions a shooting sweep carries (rod_shooting_set_active,
 * rod_mshoot_set_active): a list of state or unknown indices and, for each
 * index, its place in the list. Internal to bvp/. */
#ifndef ROD_BVP_ACTIVE_H
#define ROD_BVP_ACTIVE_H

#include <stdbool.h>
#include <string.h>

enum { ROD_ACTIVE_MAX = 64 };

typedef struct {
  int n;                    /* size of the full set */
  int count;                /* directions carried */
  int idx[ROD_ACTIVE_MAX];  /* their indices, increasing */
  int slot[ROD_ACTIVE_MAX]; /* place of index j in idx, -1 if not carried */
} rod_active;

/* All n directions. */
static inline void rod_active_all(rod_active *a, int n) {
  a->n = n;
  a->count = n;
  for (int j = 0; j < n; j++)
    a->idx[j] = a->slot[j] = j;
}

/* The listed directions (NULL or count <= 0: all); false when an index is
 * out of range or repeated (then all). */
static inline bool rod_active_set(rod_active *a, int n, const int *idx,
                                  int count) {
  rod_active_all(a, n);
  if (!idx || count <= 0)
    return true;
  for (int j = 0; j < n; j++)
    a->slot[j] = -1;
  for (int c = 0; c < count; c++) {
    int j = idx[c];
    if (j < 0 || j >= n || a->slot[j] >= 0 || (c > 0 && j < idx[c - 1])) {
      rod_active_all(a, n);
      return false;
    }
    a->idx[c] = j;
    a->slot[j] = c;
  }
  a->count = count;
  return true;
}

static inline bool rod_active_equal(const rod_active *a, const rod_active *b) {
  return a->n == b->n && a->count == b->count &&
         memcmp(a->idx, b->idx, (size_t)a->count * sizeof(int)) == 0;
}

#endif
