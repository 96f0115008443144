/* Output files that harm none of the user's files: the writer's lock, the
 * check of what a path holds, the temporary file and its commit
 * (outfile.h). */
#define _GNU_SOURCE /* renameat2 */
#include "io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

enum { NAME_MAX_BYTES = PATH_MAX + 48 };

/* Where a file was when it was checked: absent, or its device and inode. */
typedef struct {
  bool present;
  dev_t dev;
  ino_t ino;
} file_id;

struct rod_outfile {
  char path[PATH_MAX];       /* written to (a link's target) */
  char part[NAME_MAX_BYTES]; /* the created file's name until the commit */
  char lock[NAME_MAX_BYTES]; /* PATH.lock */
  char name[64];             /* /proc/self/fd/N, or "" */
  int part_fd, lock_fd;
  file_id part_id, lock_id;
  file_id checked; /* what path held when it was checked */
  rod_out_rules rules;
  bool in_place;         /* a character device, written as it is */
  atomic_bool committed; /* renamed over path (by the logger's writer
                            thread while another thread may ask for
                            rod_outfile_path_now) */
  int replaced_fd; /* the file the commit replaced, held (O_PATH), or -1 */
};

static bool same_id(const file_id *a, const struct stat *st) {
  return a->present && a->dev == st->st_dev && a->ino == st->st_ino;
}

static file_id id_of(const struct stat *st) {
  file_id id = {true, st->st_dev, st->st_ino};
  return id;
}

void rod_out_add_input(rod_out_rules *r, const char *path) {
  if (path && path[0] && r->ninputs < ROD_OUT_MAX_INPUTS)
    r->inputs[r->ninputs++] = path;
}

void rod_out_add_scenario_inputs(rod_out_rules *r, const rod_scenario *sc) {
  rod_out_add_input(r, sc->source);
  rod_out_add_input(r, sc->rod.precurvature_file);
  rod_out_add_input(r, sc->base.motion_file);
  for (int i = 0; i < sc->loads.count && i < ROD_MAX_LOADS; i++) {
    rod_out_add_input(r, sc->loads.item[i].force_file);
    rod_out_add_input(r, sc->loads.item[i].moment_file);
  }
}

static const char *key_of(const rod_out_rules *r) {
  return r->key ? r->key : "";
}

/* ---- what a path holds -------------------------------------------------- */

/* The first bytes of a regular file (not following a link, not waiting on
 * anything): *n of them in buf. */
static bool head_of(const char *path, char *buf, size_t size, size_t *n) {
  *n = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  while (ok && *n < size) {
    ssize_t r = read(fd, buf + *n, size - *n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    *n += (size_t)r;
  }
  close(fd);
  return ok;
}

/* An HDF5 file that rodsim wrote: the signature, then the root attribute
 * rodsim_version. */
static bool rodsim_hdf5(const char *path) {
  static const char signature[8] = {'\x89', 'H',  'D',    'F',
                                    '\r',   '\n', '\x1a', '\n'};
  char head[8];
  size_t n;
  if (!head_of(path, head, sizeof head, &n) || n < 8 ||
      memcmp(head, signature, 8) != 0)
    return false;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    return false;
  htri_t yes = H5Aexists(f, "rodsim_version");
  H5Fclose(f);
  return yes > 0;
}

/* A text file one of whose lines within its first 64 KiB begins with
 * mark. */
static bool rodsim_text(const char *path, const char *mark) {
  enum { HEAD = 65536 };
  char *buf = malloc(HEAD + 1);
  size_t n;
  bool yes = false;
  if (buf && mark && mark[0] && head_of(path, buf, HEAD, &n)) {
    const size_t m = strlen(mark);
    for (size_t i = 0; i + m <= n && !yes; i++)
      yes = (i == 0 || buf[i - 1] == '\n') && memcmp(buf + i, mark, m) == 0;
  }
  free(buf);
  return yes;
}

/* The extended attribute rodsim sets on every file it makes (where the
 * file system keeps them: ext4, xfs, btrfs, tmpfs), its value the kind. */
static const char xattr_name[] = "user.rodsim";

static bool rodsim_xattr(const char *path) {
  char value[64];
  return lgetxattr(path, xattr_name, value, sizeof value) > 0;
}

/* A file of the kind that is not regular, for the message. */
static const char *kind_of(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO (named pipe)"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISDIR(mode)  ? "a directory"
                          : "not a regular file";
}

/* Why path's folder cannot take a new file; NULL when it can. */
static const char *folder_problem(const char *path) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  struct stat st;
  if (stat(dir, &st) != 0)
    return "its folder does not exist";
  if (!S_ISDIR(st.st_mode))
    return "its folder is not a directory";
  if (access(dir, W_OK | X_OK) != 0)
    return "permission denied (its folder)";
  return NULL;
}

/* The regular file at o->path (st) may be replaced: not an input, and
 * empty, rodsim's, or forced. */
static int check_existing(const rod_outfile *o, const struct stat *st,
                          rod_error *err) {
  const rod_out_rules *r = &o->rules;
  for (int i = 0; i < r->ninputs; i++) {
    struct stat in;
    if (stat(r->inputs[i], &in) == 0 && in.st_dev == st->st_dev &&
        in.st_ino == st->st_ino)
      return rod_error_set(err, ROD_EINVAL, o->path, key_of(r),
                           "is %s, which this command reads: choose another "
                           "output",
                           r->inputs[i]);
  }
  if (access(o->path, W_OK) != 0)
    return rod_error_set(err, ROD_EIO, o->path, key_of(r), "permission denied");
  if (st->st_size == 0 || r->force)
    return ROD_OK;
  /* any file rodsim wrote: its xattr, its HDF5 attribute, its XDMF
   * description's mark, or the mark of this output */
  const bool ours = rodsim_xattr(o->path) || rodsim_hdf5(o->path) ||
                    rodsim_text(o->path, ROD_XDMF_MARK) ||
                    (r->kind == ROD_OUT_TEXT && rodsim_text(o->path, r->mark));
  if (ours)
    return ROD_OK;
  return rod_error_set(err, ROD_EINVAL, o->path, key_of(r),
                       "exists and is not a file rodsim wrote: rodsim "
                       "replaces only its own files (--force replaces it)");
}

/* Another program (not rodsim: HDF5's own lock) writes the HDF5 file at
 * path now. */
static bool hdf5_locked(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return busy;
}

/* Check what o->path holds now (under the lock), recording it. */
static int check_path(rod_outfile *o, rod_error *err) {
  struct stat st;
  o->checked.present = false;
  if (lstat(o->path, &st) != 0) {
    if (errno == ENOENT)
      return ROD_OK;
    return rod_error_set(err, ROD_EIO, o->path, key_of(&o->rules),
                         "cannot create the file: %s", strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) /* changed since it was resolved */
    return rod_error_set(err, ROD_EINVAL, o->path, key_of(&o->rules),
                         "is %s: rodsim writes a regular file or a character "
                         "device",
                         S_ISLNK(st.st_mode) ? "a symbolic link"
                                             : kind_of(st.st_mode));
  int c = check_existing(o, &st, err);
  if (c != ROD_OK)
    return c;
  if (o->rules.kind == ROD_OUT_HDF5 && hdf5_locked(o->path))
    return rod_error_set(err, ROD_EIO, o->path, key_of(&o->rules),
                         "another process is writing this file (HDF5 file "
                         "lock); choose another output");
  o->checked = id_of(&st);
  return ROD_OK;
}

/* Resolve path into o->path: a symbolic link to its target; a character
 * device written in place; a FIFO, socket, block device or directory
 * refused. */
static int resolve(rod_outfile *o, const char *path, rod_error *err) {
  const char *key = key_of(&o->rules);
  if (!path[0])
    return rod_error_set(err, ROD_EINVAL, "", key, "no file name");
  if (strlen(path) >= sizeof o->path)
    return rod_error_set(err, ROD_EINVAL, "", key,
                         "the file name is longer "
                         "than %d bytes",
                         PATH_MAX - 1);
  snprintf(o->path, sizeof o->path, "%s", path);
  struct stat ls, st;
  if (lstat(path, &ls) != 0)
    return errno == ENOENT
               ? ROD_OK
               : rod_error_set(err, ROD_EIO, path, key,
                               "cannot create the file: %s", strerror(errno));
  if (stat(path, &st) != 0)
    return rod_error_set(err, ROD_EINVAL, path, key,
                         "is a symbolic link to nothing (%s): rodsim does not "
                         "create a file where a link points",
                         strerror(errno));
  if (S_ISCHR(st.st_mode)) {
    o->in_place = true;
    return ROD_OK;
  }
  if (S_ISDIR(st.st_mode))
    return rod_error_set(err, ROD_EIO, path, key,
                         "cannot create the file: is a directory");
  if (!S_ISREG(st.st_mode))
    return rod_error_set(err, ROD_EINVAL, path, key,
                         "is %s: rodsim writes a regular file or a character "
                         "device",
                         kind_of(st.st_mode));
  if (S_ISLNK(ls.st_mode)) {
    char *real = realpath(path, NULL);
    if (!real || strlen(real) >= sizeof o->path) {
      free(real);
      return rod_error_set(err, ROD_EIO, path, key,
                           "cannot follow the symbolic link");
    }
    snprintf(o->path, sizeof o->path, "%s", real);
    free(real);
  }
  return ROD_OK;
}

/* ---- the writer's lock -------------------------------------------------- */

static const char lock_record[] = "rodsim writer lock: pid ";

/* The lock file's text: empty (a writer has just made it) or a record. */
static bool lock_file_ours(int fd, char *text, size_t size) {
  ssize_t n = pread(fd, text, size - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  return n == 0 || strncmp(text, lock_record, sizeof lock_record - 1) == 0;
}

/* "rodsim, pid N on HOST" of the holder of the lock open at fd; it writes
 * its record just after it takes the lock. */
static void holder_of(int fd, char *who, size_t size) {
  char text[256] = "";
  for (int i = 0; i < 50; i++) {
    if (lock_file_ours(fd, text, sizeof text) && text[0])
      break;
    struct timespec ts = {0, 4000000};
    nanosleep(&ts, NULL);
  }
  long pid = 0;
  char host[128] = "";
  if (sscanf(text, "rodsim writer lock: pid %ld on %127s", &pid, host) >= 1)
    snprintf(who, size, "rodsim, pid %ld%s%s", pid, host[0] ? " on " : "",
             host);
  else
    snprintf(who, size, "rodsim");
}

/* The refusal of a writer that meets o's lock (open at fd) held. */
static int refuse_held(const rod_outfile *o, int fd, rod_error *err) {
  char who[200];
  holder_of(fd, who, sizeof who);
  return rod_error_set(err, ROD_EIO, o->path, key_of(&o->rules),
                       "another process is writing this file (%s); choose "
                       "another output",
                       who);
}

/* PATH.lock open (close it) when another writer holds it now (a shared
 * flock on it, let go at once, is refused), else -1. */
static int held_lock(const char *path) {
  char lock[PATH_MAX + 8];
  if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
    return -1;
  int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1; /* none (a link or worse: the open says so) */
  struct stat st;
  char text[256];
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      lock_file_ours(fd, text, sizeof text) &&
      flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    return fd;
  close(fd);
  return -1;
}

bool rod_outfile_busy(const char *path) {
  int fd = path ? held_lock(path) : -1;
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* For a check: ROD_EIO when another writer holds o->path's lock now. */
static int check_lock_free(rod_outfile *o, rod_error *err) {
  int fd = held_lock(o->path);
  if (fd < 0)
    return ROD_OK;
  int c = refuse_held(o, fd, err);
  close(fd);
  return c;
}

static void write_record(int fd) {
  char host[128] = "", text[256];
  gethostname(host, sizeof host - 1);
  int n = snprintf(text, sizeof text, "%s%ld on %s\n", lock_record,
                   (long)getpid(), host[0] ? host : "?");
  if (pwrite(fd, text, (size_t)n, 0) == n && ftruncate(fd, n) != 0)
    (void)0; /* the record only names the holder in others' messages */
}

/* Take o->path's writer lock, PATH.lock: flock on a file of rodsim's own,
 * checked to still be the one under that name once held (a holder
 * removes it before it lets go). */
static int take_lock(rod_outfile *o, rod_error *err) {
  const char *key = key_of(&o->rules);
  snprintf(o->lock, sizeof o->lock, "%s.lock", o->path);
  for (int attempt = 0; attempt < 100; attempt++) {
    bool created = true;
    int fd =
        open(o->lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {
      created = false;
      fd = open(o->lock, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT)
        continue; /* removed by its holder meanwhile */
    }
    if (fd < 0)
      return rod_error_set(
          err, errno == ELOOP ? ROD_EINVAL : ROD_EIO, o->path, key,
          "cannot take the writer's lock %s (%s)", o->lock,
          errno == ELOOP ? "a symbolic link" : strerror(errno));
    struct stat st;
    char text[256];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (!created && !lock_file_ours(fd, text, sizeof text))) {
      close(fd);
      return rod_error_set(err, ROD_EINVAL, o->path, key,
                           "%s exists and is not rodsim's lock file: remove "
                           "it or choose another output",
                           o->lock);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      const int c = e == EWOULDBLOCK ? refuse_held(o, fd, err) : ROD_OK;
      close(fd); /* (made by us, it is another's now: theirs to remove) */
      if (c != ROD_OK)
        return c;
      return rod_error_set(err, ROD_EIO, o->path, key, "cannot lock %s (%s)",
                           o->lock, strerror(e));
    }
    struct stat now;
    if (stat(o->lock, &now) != 0 || now.st_dev != st.st_dev ||
        now.st_ino != st.st_ino) {
      close(fd); /* its holder removed it as we took it: again */
      continue;
    }
    write_record(fd);
    o->lock_fd = fd;
    o->lock_id = id_of(&st);
    return ROD_OK;
  }
  return rod_error_set(err, ROD_EIO, o->path, key,
                       "cannot take the writer's lock %s: it keeps changing",
                       o->lock);
}

/* Remove name if it is still the file id (a file of this process). */
static void remove_ours(const char *name, const file_id *id) {
  struct stat st;
  if (id->present && lstat(name, &st) == 0 && same_id(id, &st))
    unlink(name);
}

/* ---- the created file --------------------------------------------------- */

/* A killed writer's PATH.part: a regular file rodsim made (its xattr, or
 * what it holds) or an empty one (killed as it made it), found under the
 * lock, which no live writer holds. */
static bool stale_part(const rod_outfile *o, const char *part) {
  struct stat st;
  return lstat(part, &st) == 0 && S_ISREG(st.st_mode) &&
         (st.st_size == 0 || rodsim_xattr(part) ||
          (o->rules.kind == ROD_OUT_HDF5 && rodsim_hdf5(part)) ||
          (o->rules.kind == ROD_OUT_TEXT && rodsim_text(part, o->rules.mark)));
}

/* Create PATH.part (a killed writer's file there removed first), or a
 * fresh PATH.PID.K.part when that name holds anything else (planted):
 * O_EXCL never follows a symbolic link nor opens an existing file. */
static int create_part(rod_outfile *o, rod_error *err) {
  int fd = -1;
  snprintf(o->part, sizeof o->part, "%s.part", o->path);
  if (stale_part(o, o->part))
    unlink(o->part);
  for (int k = 0; k < 100 && fd < 0; k++) {
    if (k == 0)
      snprintf(o->part, sizeof o->part, "%s.part", o->path);
    else
      snprintf(o->part, sizeof o->part, "%s.%ld.%d.part", o->path,
               (long)getpid(), k);
    fd =
        open(o->part, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    const int e = errno;
    if (fd >= 0)
      close(fd);
    return rod_error_set(err, ROD_EIO, o->path, key_of(&o->rules),
                         "cannot create the file %s (%s)", o->part,
                         strerror(e));
  }
  o->part_fd = fd;
  o->part_id = id_of(&st);
  const char *kind = o->rules.kind == ROD_OUT_HDF5 ? "hdf5" : "text";
  fsetxattr(fd, xattr_name, kind, strlen(kind), 0); /* where kept */
  /* the file itself under a name nobody can change */
  char name[64];
  struct stat via;
  snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
  if (stat(name, &via) == 0 && same_id(&o->part_id, &via))
    snprintf(o->name, sizeof o->name, "%s", name);
  return ROD_OK;
}

/* A character device, opened as it is for writing. */
static int open_in_place(rod_outfile *o, rod_error *err) {
  int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
    const int e = fd < 0 ? errno : EINVAL;
    if (fd >= 0)
      close(fd);
    return rod_error_set(err, ROD_EIO, o->path, key_of(&o->rules),
                         "cannot create the file: %s", strerror(e));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  o->part_fd = fd;
  o->part_id = id_of(&st);
  snprintf(o->part, sizeof o->part, "%s", o->path);
  return ROD_OK;
}

/* A new o for path under rules, resolved (resolve) and, unless written in
 * place, its folder checked: *out NULL on failure. lock: also take the
 * writer's lock, else (a check) refuse a lock another holds; then what
 * path holds. */
static int prepare(const char *path, const rod_out_rules *rules, bool lock,
                   rod_outfile **out, rod_error *err) {
  rod_outfile *o = *out = calloc(1, sizeof *o);
  if (!o)
    return rod_error_set(err, ROD_ENOMEM, path, rules->key, "out of memory");
  o->rules = *rules;
  o->part_fd = o->lock_fd = o->replaced_fd = -1;
  atomic_init(&o->committed, false);
  int st = resolve(o, path ? path : "", err);
  if (st == ROD_OK && !o->in_place) {
    const char *problem = folder_problem(o->path);
    if (problem)
      st = rod_error_set(err, ROD_EIO, o->path, key_of(rules),
                         "cannot create the file: %s", problem);
    if (st == ROD_OK)
      st = lock ? take_lock(o, err) : check_lock_free(o, err);
    if (st == ROD_OK)
      st = check_path(o, err);
  }
  if (st != ROD_OK) {
    rod_outfile_close(o, true);
    *out = NULL;
  }
  return st;
}

int rod_outfile_open(const char *path, const rod_out_rules *rules,
                     rod_outfile **out, rod_error *err) {
  rod_outfile *o;
  int st = prepare(path, rules, true, &o, err);
  if (st == ROD_OK)
    st = o->in_place ? open_in_place(o, err) : create_part(o, err);
  if (st != ROD_OK)
    rod_outfile_close(o, true);
  *out = st == ROD_OK ? o : NULL;
  return st;
}

int rod_outfile_check(const char *path, const rod_out_rules *rules,
                      rod_error *err) {
  rod_outfile *o;
  int st = prepare(path, rules, false, &o, err);
  rod_outfile_close(o, false);
  return st;
}

const char *rod_outfile_name(const rod_outfile *o) {
  return o->name[0] ? o->name : o->part;
}

const char *rod_outfile_path_now(const rod_outfile *o) {
  return o->committed ? o->path : o->part;
}

const char *rod_outfile_target(const rod_outfile *o) { return o->path; }

bool rod_outfile_in_place(const rod_outfile *o) { return o->in_place; }

int rod_outfile_room(const rod_outfile *o, double bytes) {
  struct statvfs fs;
  if (fstatvfs(o->part_fd, &fs) == 0 &&
      (double)fs.f_bavail * (double)fs.f_frsize < bytes)
    return ENOSPC;
  struct rlimit lim;
  if (!o->in_place && getrlimit(RLIMIT_FSIZE, &lim) == 0 &&
      lim.rlim_cur != RLIM_INFINITY && (double)lim.rlim_cur < bytes)
    return EFBIG;
  return 0;
}

bool rod_outfile_is(const rod_outfile *o, int fd) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && same_id(&o->part_id, &st);
}

hid_t rod_outfile_create_hdf5(const rod_outfile *o, hid_t fcpl, hid_t fapl) {
  hid_t f = H5Fcreate(rod_outfile_name(o), H5F_ACC_TRUNC, fcpl, fapl);
  /* HDF5 opens the new, empty file with O_TRUNC. On ext4 a truncation to
   * size 0 marks the file to have all its delayed allocations flushed at
   * its next close (auto_da_alloc, for programs that replace a file by
   * truncating it), which made H5Fclose start the writeback of the whole
   * file: 0.5 to 4 ms at the close of the weight release. Closing another
   * open file description of it now, with nothing yet to flush, clears
   * the mark: the file is written back as any new file is. */
  if (f >= 0) {
    const int again = open(rod_outfile_name(o), O_RDONLY | O_CLOEXEC);
    if (again >= 0)
      close(again);
  }
  void *handle = NULL;
  if (f >= 0 && (H5Fget_vfd_handle(f, fapl, &handle) < 0 || !handle ||
                 !rod_outfile_is(o, *(int *)handle))) {
    H5Fclose(f);
    errno = EEXIST;
    return -1;
  }
  return f;
}

FILE *rod_outfile_stream(rod_outfile *o) {
  int fd = dup(o->part_fd);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f)
    close(fd);
  return f;
}

/* A descriptor that keeps path's file (not a link's target) from being
 * freed while it is open, whatever its permissions; -1 where the system
 * has no O_PATH (the file is then freed as it is replaced). */
static int hold(const char *path) {
#ifdef O_PATH
  return open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
#else
  (void)path;
  return -1;
#endif
}

int rod_outfile_commit(rod_outfile *o, rod_error *err) {
  if (o->in_place || o->committed)
    return ROD_OK;
  const char *key = key_of(&o->rules);
  struct stat st;
  if (lstat(o->part, &st) != 0 || !same_id(&o->part_id, &st))
    return rod_error_set(err, ROD_EIO, o->path, key,
                         "%s is no longer the file rodsim made (removed or "
                         "replaced): not moved into place",
                         o->part);
  /* path may have changed in the run's time (another program ignores the
   * lock): check it again unless it is what was checked */
  const bool present = lstat(o->path, &st) == 0;
  if (present != o->checked.present ||
      (present && !same_id(&o->checked, &st))) {
    int c = check_path(o, err);
    if (c != ROD_OK)
      return c;
  }
  /* the file replaced is held open, so that the rename does not free its
   * blocks: that waits for the disk's discard, about 1 ms a megabyte
   * here, and falls to whoever closes it (rod_outfile_take_replaced) */
  if (o->checked.present && o->replaced_fd < 0)
    o->replaced_fd = hold(o->path);
  int r = o->checked.present ? rename(o->part, o->path)
                             : renameat2(AT_FDCWD, o->part, AT_FDCWD, o->path,
                                         RENAME_NOREPLACE);
  if (r != 0 && errno == EINVAL && !o->checked.present) /* no NOREPLACE */
    r = rename(o->part, o->path);
  if (r != 0)
    return rod_error_set(err, ROD_EIO, o->path, key,
                         "cannot move %s into place (%s)", o->part,
                         strerror(errno));
  o->committed = true;
  return ROD_OK;
}

int rod_outfile_take_replaced(rod_outfile *o) {
  const int fd = o ? o->replaced_fd : -1;
  if (o)
    o->replaced_fd = -1;
  return fd;
}

int rod_out_unlink_held(const char *path) {
  const int fd = hold(path);
  if (unlink(path) != 0) {
    const int e = errno;
    if (fd >= 0)
      close(fd);
    errno = e;
    return -1;
  }
  errno = 0; /* removed, held or not */
  return fd;
}

void rod_outfile_discard_now(const rod_outfile *o) {
  if (!o)
    return;
  if (!o->in_place && !o->committed)
    remove_ours(o->part, &o->part_id);
  remove_ours(o->lock, &o->lock_id);
}

void rod_outfile_close(rod_outfile *o, bool discard) {
  if (!o)
    return;
  if (discard && !o->in_place && !o->committed)
    remove_ours(o->part, &o->part_id);
  /* removed while held: a writer that opened it meanwhile sees the name
   * gone once it holds it, and starts again */
  remove_ours(o->lock, &o->lock_id);
  if (o->lock_fd >= 0)
    close(o->lock_fd);
  if (o->part_fd >= 0)
    close(o->part_fd);
  if (o->replaced_fd >= 0)
    close(o->replaced_fd);
  free(o);
}
