/* Preloaded (LD_PRELOAD) into a rodsim that a test kills: each write of
 * under 64 KiB at an offset (HDF5's metadata: object headers, chunk
 * indices, the superblock; not its chunks of samples) is held back 5 ms,
 * so that a flush lasts long enough for a SIGKILL to land inside it,
 * between two of its writes, often (a flush takes a millisecond or two
 * otherwise, a kill catches one in about 1 of 100). */
#undef _FILE_OFFSET_BITS /* pwrite and pwrite64 apart */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t at);

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) {
  static ssize_t (*next)(int, const void *, size_t, off_t);
  if (!next)
    *(void **)&next = dlsym(RTLD_NEXT, "pwrite64");
  if (n < 65536) {
    struct timespec hold = {0, 5000000};
    nanosleep(&hold, NULL);
  }
  return next(fd, buf, n, at);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at) {
  return pwrite64(fd, buf, n, at);
}
