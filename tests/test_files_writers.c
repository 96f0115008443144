/* Two writers of one file started at the same moment, with HDF5's file
 * locking and without it (as on network file systems), in every
 * interleaving: one complete file and one refusal, never a trampled or
 * lost file (docs/files.md). */
#include <fcntl.h>
#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "filesutil.h"

/* ---- writers of one file ------------------------------------------------ */

enum { AT_ONCE = 10 };

/* `rodsim static good.ini -o out` started by fork, waiting at the barrier
 * (until its write end closes), its stderr in dir/err.K.W; hold: a FIFO
 * the writer that takes the lock waits on (hold_lock.c). */
static pid_t start_writer(const int barrier[2], const char *out, int k, int w,
                          bool hdf5_locking, const char *hold) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid > 0)
    return pid;
  char c, err[600];
  close(barrier[1]);
  while (read(barrier[0], &c, 1) > 0)
    ;
  snprintf(err, sizeof err, "%s/err.%d.%d", dir, k, w);
  int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int null = open("/dev/null", O_WRONLY);
  if (fd < 0 || null < 0 || dup2(fd, 2) < 0 || dup2(null, 1) < 0 ||
      chdir(dir) != 0)
    _exit(99);
  if (hdf5_locking)
    unsetenv("HDF5_USE_FILE_LOCKING");
  else
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
  if (hold) {
    setenv("RODSIM_HOLD_FIFO", hold, 1);
    setenv("LD_PRELOAD", getenv("RODSIM_HOLD_LOCK_LIB"), 1);
  }
  const char *exe = getenv("RODSIM");
  execl(exe, exe, "static", "good.ini", "-o", out, (char *)NULL);
  _exit(98);
}

/* The file of a writer that exited 0: complete, one sample. */
static void expect_complete(const char *name) {
  char path[600];
  in_dir(path, sizeof path, name);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "%s does not open", name);
  hid_t a = H5Aopen(f, "status", H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  char *status = NULL;
  H5Aread(a, t, &status);
  ck_assert_msg(status && strcmp(status, "complete") == 0, "%s: %s", name,
                status ? status : "(none)");
  H5free_memory(status);
  H5Tclose(t);
  H5Aclose(a);
  hid_t ds = H5Dopen2(f, "/samples", H5P_DEFAULT);
  long long n = 0;
  H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n);
  H5Dclose(ds);
  H5Fclose(f);
  ck_assert_int_eq(n, 1);
}

/* The pair of writers of out: their exits in code, stderr in err. */
typedef struct {
  char out[32], fifo[600];
  pid_t pid[2];
  int code[2], exited;
  char err[2][1024];
} writer_pair;

/* Check a pair's outcome: each exits 0 or is refused (exit 2, one line)
 * naming the other's pid, which exits 0; the file is complete. held:
 * exactly one refusal. Returns the refusals. */
static int check_pair(writer_pair *p, bool held) {
  int refusals = 0;
  for (int w = 0; w < 2; w++) {
    ck_assert_msg(p->code[w] == 0 || p->code[w] == 2, "%s: writer exit %d: %s",
                  p->out, p->code[w], p->err[w]);
    if (p->code[w] != 2)
      continue;
    refusals++;
    char holder[64];
    snprintf(holder, sizeof holder, "(rodsim, pid %ld on ",
             (long)p->pid[1 - w]);
    ck_assert_msg(p->code[1 - w] == 0 && count_lines(p->err[w]) == 1 &&
                      strstr(p->err[w], "another process is writing") &&
                      strstr(p->err[w], holder),
                  "%s refused: %s (the other: exit %d)", p->out, p->err[w],
                  p->code[1 - w]);
  }
  ck_assert_msg(!held || refusals == 1, "%s: exits %d and %d (%s%s)", p->out,
                p->code[0], p->code[1], p->err[0], p->err[1]);
  expect_complete(p->out);
  return refusals;
}

/* count pairs of writers of one file each, the two of a pair started at
 * the same moment (AT_ONCE pairs together on their own files). held: the
 * first to take the lock holds it until the other has exited
 * (hold_lock.c): exactly one writes a complete file, the other exits 2
 * with one line naming the first's pid. Not held: any interleaving of the
 * two; a complete file, and each either exits 0 or is refused naming the
 * other. */
static void writer_pairs(int count, bool hdf5_locking, bool held) {
  write_scenario("good.ini", "");
  const double t0 = now();
  int refusals = 0;
  for (int round = 0; round < count / AT_ONCE; round++) {
    int barrier[2];
    ck_assert_int_eq(pipe(barrier), 0);
    writer_pair pairs[AT_ONCE];
    memset(pairs, 0, sizeof pairs);
    for (int k = 0; k < AT_ONCE; k++) {
      writer_pair *p = &pairs[k];
      snprintf(p->out, sizeof p->out, "p%d.h5", k);
      snprintf(p->fifo, sizeof p->fifo, "%s/hold%d", dir, k);
      if (held)
        ck_assert_int_eq(mkfifo(p->fifo, 0600), 0);
      for (int w = 0; w < 2; w++)
        p->pid[w] = start_writer(barrier, p->out, k, w, hdf5_locking,
                                 held ? p->fifo : NULL);
    }
    close(barrier[0]);
    close(barrier[1]); /* go */
    for (int left = 2 * AT_ONCE; left > 0; left--) {
      int ws;
      pid_t pid = waitpid(-1, &ws, 0);
      ck_assert_int_gt(pid, 0);
      for (int k = 0; k < AT_ONCE; k++)
        for (int w = 0; w < 2; w++) {
          writer_pair *p = &pairs[k];
          if (p->pid[w] != pid)
            continue;
          p->code[w] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
          if (p->exited++ == 0 && held) { /* let the holder go on */
            int f = open(p->fifo, O_WRONLY);
            ck_assert_int_ge(f, 0);
            close(f);
          }
        }
    }
    for (int k = 0; k < AT_ONCE; k++) {
      for (int w = 0; w < 2; w++) {
        char name[32], path[600];
        snprintf(name, sizeof name, "err.%d.%d", k, w);
        slurp(name, pairs[k].err[w], sizeof pairs[k].err[w]);
        in_dir(path, sizeof path, name);
        unlink(path);
      }
      if (held)
        unlink(pairs[k].fifo);
      refusals += check_pair(&pairs[k], held);
    }
  }
  const char *keep[AT_ONCE + 1] = {"good.ini"};
  char names[AT_ONCE][32];
  for (int k = 0; k < AT_ONCE; k++) {
    snprintf(names[k], sizeof names[k], "p%d.h5", k);
    keep[k + 1] = names[k];
  }
  expect_only(keep, AT_ONCE + 1);
  fprintf(stderr,
          "%d writer pairs, HDF5's lock %s, %s: %d complete files, %d "
          "refusals, %.1f s\n",
          count, hdf5_locking ? "on" : "off",
          held ? "the first holding its lock" : "any interleaving", count,
          refusals, now() - t0);
  if (held)
    ck_assert_int_eq(refusals, count);
}

/* 50 pairs of writers started together on one file each: always one
 * complete file and one refusal naming the holder, with HDF5's own file
 * lock and without it (HDF5_USE_FILE_LOCKING=FALSE, as on network file
 * systems). Before, both could fail leaving no file, or both exit 0 with
 * one run's results replaced; without HDF5's lock the second was never
 * refused. */
/* 50 pairs, 10 under the sanitizers and valgrind (each rodsim takes
 * seconds there; what they check is each process's memory). */
static int pairs(void) { return slowdown() > 1 ? 10 : 50; }

START_TEST(writer_pairs_with_hdf5_lock) { writer_pairs(pairs(), true, true); }
END_TEST
START_TEST(writer_pairs_without_hdf5_lock) {
  writer_pairs(pairs(), false, true);
}
END_TEST

/* The same pairs with nothing held: whatever the interleaving of the
 * two writers' checks and creates, a complete file, and a refusal only
 * while the other holds the lock. */
START_TEST(writer_pairs_any_interleaving) {
  if (slowdown() >= 10) /* valgrind: the held pairs cover the code */
    return;
  writer_pairs(10, false, false);
  writer_pairs(10, true, false);
}
END_TEST

static Suite *files_writers_suite(void) {
  Suite *s = suite_create("files_writers");
  TCase *tc = tcase_create("writers");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_set_timeout(tc, 240); /* 100 rodsim processes a test */
  tcase_add_test(tc, writer_pairs_with_hdf5_lock);
  tcase_add_test(tc, writer_pairs_without_hdf5_lock);
  tcase_add_test(tc, writer_pairs_any_interleaving);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(files_writers_suite)
