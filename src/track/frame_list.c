/* The frames of a directory, in the order `rodsim track` takes them
 * (docs/files.md: byte-wise file-name order). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rod/track.h"

/* Names like the shell glob *.png matches: dot files are left out, which
 * also skips the "._frame.png" metadata files some copies leave behind. The
 * suffix may be in any case, as some cameras write FRAME.PNG. */
static bool is_frame_name(const char *name) {
  size_t n = strlen(name);
  return name[0] != '.' && n > 4 && strcasecmp(name + n - 4, ".png") == 0;
}

/* dir/name, without doubling a slash the user typed. */
static char *join(const char *dir, const char *name) {
  size_t nd = strlen(dir), size = nd + strlen(name) + 2;
  char *path = malloc(size);
  if (path)
    snprintf(path, size, "%s%s%s", dir, nd && dir[nd - 1] == '/' ? "" : "/",
             name);
  return path;
}

/* Directories named *.png are not frames; a path that cannot be stat'ed
 * stays in, so that reading it reports the problem with its name. */
static bool is_directory(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Every path has the same directory prefix, so this is the byte-wise order
 * of the file names. */
static int by_bytes(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int rod_frame_list(const char *dir, char ***paths, int *n, rod_error *err) {
  *paths = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return rod_error_set(err, ROD_EIO, dir, NULL, "cannot open directory (%s)",
                         strerror(errno));
  char **list = NULL;
  int count = 0, capacity = 0, st = ROD_OK;
  struct dirent *e;
  while (st == ROD_OK && (e = readdir(d))) {
    if (!is_frame_name(e->d_name))
      continue;
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      char **grown = realloc(list, (size_t)capacity * sizeof *grown);
      if (!grown) {
        st = ROD_ENOMEM;
        break;
      }
      list = grown;
    }
    if (!(list[count] = join(dir, e->d_name)))
      st = ROD_ENOMEM;
    else if (is_directory(list[count]))
      free(list[count]);
    else
      count++;
  }
  closedir(d);
  if (st != ROD_OK) {
    rod_frame_list_free(list, count);
    return rod_error_set(err, st, dir, NULL, "out of memory");
  }
  if (count > 1)
    qsort(list, (size_t)count, sizeof *list, by_bytes);
  *paths = list;
  *n = count;
  return ROD_OK;
}

void rod_frame_list_free(char **paths, int n) {
  if (!paths)
    return;
  for (int i = 0; i < n; i++)
    free(paths[i]);
  free(paths);
}
