/* The solvers' large work arrays (integrators/workspace.h): zeroed as
 * calloc's are; on cache lines, none overlapping another live one; the
 * mappings given back once all their arrays are freed (the process's
 * address space as before); small arrays and malloc's pointers through
 * malloc and free; a size that overflows refused; and the same under
 * two threads taking and freeing at once. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "integrators/workspace.h"
#include "testutil.h"

enum { BIG = 100000, COUNT = 8 };

static bool all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return false;
  return true;
}

START_TEST(zeroed_apart_and_given_back) {
  const size_t before = rod_test_address_space();
  unsigned char *a[COUNT];
  for (int k = 0; k < COUNT; k++) {
    ck_assert_ptr_nonnull(a[k] = rod_work_alloc(BIG, 1));
    ck_assert(all_zero(a[k], BIG));
    ck_assert_uint_eq((uintptr_t)a[k] % 64, 0);
    memset(a[k], 0xa5, BIG);
  }
  for (int k = 0; k < COUNT; k++) /* no two overlap */
    for (int j = 0; j < k; j++)
      ck_assert(a[k] >= a[j] + BIG || a[j] >= a[k] + BIG);
  if (rod_huge_pages()) /* one mapping of 4 MiB holds them */
    ck_assert_uint_ge(rod_test_address_space(), before + (4u << 20));
  for (int k = 0; k < COUNT; k++)
    rod_work_free(a[k]);
  ck_assert_uint_le(rod_test_address_space(), before);
  unsigned char *b = rod_work_alloc(3 * BIG, 1);
  ck_assert_ptr_nonnull(b);
  ck_assert(all_zero(b, 3 * BIG));
  rod_work_free(b);
  /* small arrays and malloc's pointers */
  double *s = rod_work_alloc(10, sizeof(double));
  ck_assert(all_zero((unsigned char *)s, 10 * sizeof(double)));
  rod_work_free(s);
  rod_work_free(malloc(BIG));
  rod_work_free(NULL);
  ck_assert_ptr_null(rod_work_alloc(SIZE_MAX / 2, 4));
}
END_TEST

static void *churn(void *arg) {
  const unsigned char mark = (unsigned char)(uintptr_t)arg;
  for (int round = 0; round < 200; round++) {
    unsigned char *p[4];
    for (int k = 0; k < 4; k++) {
      p[k] = rod_work_alloc(BIG + 4096 * (size_t)k, 1);
      if (!p[k] || !all_zero(p[k], BIG))
        return (void *)1;
      memset(p[k], mark, BIG);
    }
    for (int k = 0; k < 4; k++) {
      for (size_t i = 0; i < BIG; i += 997)
        if (p[k][i] != mark) /* another thread wrote into it */
          return (void *)1;
      rod_work_free(p[k]);
    }
  }
  return NULL;
}

START_TEST(two_threads_at_once) {
  pthread_t t[2];
  for (int k = 0; k < 2; k++)
    ck_assert_int_eq(
        pthread_create(&t[k], NULL, churn, (void *)(uintptr_t)(k + 1)), 0);
  for (int k = 0; k < 2; k++) {
    void *bad = NULL;
    pthread_join(t[k], &bad);
    ck_assert_ptr_null(bad);
  }
}
END_TEST

static Suite *workspace_suite(void) {
  Suite *s = suite_create("workspace");
  TCase *tc = tcase_create("arrays");
  tcase_add_test(tc, zeroed_apart_and_given_back);
  tcase_add_test(tc, two_threads_at_once);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(workspace_suite)
