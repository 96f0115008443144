/* rod_module_open (module.h): a module found beside librod or where it
 * is installed, opened, and its table checked. */
#define _GNU_SOURCE /* dladdr */
#include "core/module.h"

#include <dlfcn.h>
#include <errno.h> /* program_invocation_name */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

/* Open path as the module; its table, or NULL if it does not load or is
 * of another build (why says so), or is not there (its folder added to
 * why). */
static const void *open_at(const char *path, const char *symbol, int version,
                           unsigned size, char *why, size_t why_size) {
  if (access(path, F_OK) != 0) {
    size_t n = strlen(why);
    snprintf(why + n, why_size - n, "%s%.*s", n ? ", " : "not found in ",
             (int)(strrchr(path, '/') - path), path);
    return NULL;
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : path);
    return NULL;
  }
  const rod_module_head *m = dlsym(h, symbol);
  if (!m || m->version != version || m->size != size ||
      strcmp(m->library_version, ROD_VERSION) != 0) {
    snprintf(why, why_size, "%s is not the module of librod %s", path,
             ROD_VERSION);
    dlclose(h);
    return NULL;
  }
  return m;
}

/* The file that holds this code: librod, or the program that carries
 * librod's objects (dladdr names it as it was started, argv[0], which
 * may be a name found on PATH: /proc/self/exe instead). *program: which
 * of the two. */
static const char anchor; /* an address in that file */
static bool own_file(char *path, size_t size, bool *program) {
  Dl_info info;
  *program = false;
  if (!dladdr(&anchor, &info) || !info.dli_fname)
    return false;
  if (strcmp(info.dli_fname, program_invocation_name) == 0) {
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    if (n > 0) {
      path[n] = '\0';
      *program = true;
      return true;
    }
  }
  snprintf(path, size, "%s", info.dli_fname);
  return strchr(path, '/') != NULL;
}

/* dir (dir_len bytes) joined to rel, rel's leading "../" taken off dir,
 * then file: into path. */
static void join(char *path, size_t size, const char *dir, int dir_len,
                 const char *rel, const char *file) {
  while (strncmp(rel, "../", 3) == 0 && dir_len > 1) {
    int up = dir_len - 1;
    while (up > 0 && dir[up] != '/')
      up--;
    dir_len = up > 0 ? up : 1;
    rel += 3;
  }
  snprintf(path, size, "%.*s/%s%s%s", dir_len, dir, rel, *rel ? "/" : "", file);
}

const void *rod_module_open(const char *file, const char *symbol, int version,
                            unsigned size, char *why, size_t why_size) {
  char self[PATH_MAX], path[2 * PATH_MAX];
  const void *m;
  bool program;
  why[0] = '\0';
  if (own_file(self, sizeof self, &program)) {
    int dir = (int)(strrchr(self, '/') - self);
    /* for the program where the modules are installed from its folder;
     * beside it in rodsim/, beside it */
    const char *rel[] = {ROD_MODULE_FROM_BIN, "rodsim", ""};
    for (size_t i = program ? 0 : 1; i < sizeof rel / sizeof *rel; i++) {
      join(path, sizeof path, self, dir, rel[i], file);
      if ((m = open_at(path, symbol, version, size, why, why_size)) ||
          access(path, F_OK) == 0)
        return m;
    }
  }
  snprintf(path, sizeof path, "%s/%s", ROD_MODULE_DIR, file);
  return open_at(path, symbol, version, size, why, why_size);
}
