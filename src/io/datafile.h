/* Reading the files a user brings (scenarios, the scenario's data files,
 * tip CSVs, HDF5 inputs): only regular files (or standard input where a
 * command takes "-"), opened without blocking, read within a size and a
 * line length, so that a FIFO, a device such as /dev/zero or a huge file
 * is refused at once with one line naming it (docs/files.md). */
#ifndef ROD_IO_DATAFILE_H
#define ROD_IO_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rod/status.h"

/* Longest line of a text input (B, its newline included). */
#define ROD_DATA_MAX_LINE ((size_t)65536)
/* Largest scenario file (B). */
#define ROD_DATA_MAX_SCENARIO ((size_t)16 << 20)
/* Largest CSV table (B): a tip CSV or a scenario's data file. */
#define ROD_DATA_MAX_TABLE ((size_t)256 << 20)

/* Open path read-only without blocking (O_NONBLOCK, dropped once open) and
 * check that it is a regular file of at most max bytes (0: any size);
 * "-" is standard input (a copy of its descriptor) when allow_stdin.
 * *fd is the open descriptor. ROD_EIO when it cannot be opened (err says
 * why), ROD_EINVAL for anything but a regular file (a directory, a FIFO,
 * a device) or one over max; err names path. */
int rod_datafile_open(const char *path, bool allow_stdin, size_t max, int *fd,
                      rod_error *err);

/* The whole of path (rod_datafile_open) in a new buffer (*text, free() it,
 * NUL-terminated; *len bytes before the NUL), read to its end but never
 * past max bytes: ROD_EINVAL beyond, and for a line longer than
 * ROD_DATA_MAX_LINE or a NUL byte (not a text file), with err = {path,
 * "line N", what}. */
int rod_datafile_read(const char *path, bool allow_stdin, size_t max,
                      char **text, size_t *len, rod_error *err);

/* A stream over rod_datafile_read's text of path (the buffer freed by
 * fclose): for parsers that take a FILE. */
int rod_datafile_fopen(const char *path, bool allow_stdin, size_t max,
                       FILE **out, rod_error *err);

/* One line of f into buf (size bytes, at least ROD_DATA_MAX_LINE + 2):
 * 1 with the line (its newline kept) NUL-terminated, 0 at the end of the
 * stream, -1 for a line longer than ROD_DATA_MAX_LINE (the rest of it is
 * not read). For readers of a stream they did not open. */
int rod_datafile_line(FILE *f, char *buf, size_t size);

#endif
