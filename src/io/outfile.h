/* The files rodsim writes, kept from harming the user's other files
 * (docs/files.md, "Output files"):
 *
 *  - an output replaces only a file rodsim wrote before (recognised by the
 *    extended attribute user.rodsim it sets on every file it makes, or by
 *    a mark: the root attribute rodsim_version of an HDF5 file, a line of
 *    a text file), an empty file, or with force any regular file; never a
 *    file the command reads (the same device and inode);
 *  - a writer's lock of rodsim's own, PATH.lock (flock, whatever
 *    HDF5_USE_FILE_LOCKING says), is taken before anything is created or
 *    truncated: of two writers of one path one proceeds, the other is
 *    refused with the holder's pid;
 *  - a regular file is written as PATH.part, created with
 *    O_CREAT | O_EXCL (which never follows a symbolic link; a killed
 *    writer's PATH.part removed first, a fresh PATH.PID.K.part when
 *    anything else is there), and renamed over path at its commit; HDF5
 *    is handed the open file itself (/proc/self/fd/N);
 *  - a character device (/dev/null) is written in place, never removed; a
 *    FIFO, socket, block device or directory is refused; a symbolic link
 *    is written through, to its target;
 *  - only files this process created (the .part, the lock file) are ever
 *    removed, each checked by device and inode first, and a killed
 *    writer's PATH.part. */
#ifndef ROD_IO_OUTFILE_H
#define ROD_IO_OUTFILE_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>

#include "rod/scenario.h"
#include "rod/status.h"

/* How an XDMF description rodsim writes begins its second line (src/io/
 * xdmf.c writes it; an output check recognises rodsim's description by it). */
#define ROD_XDMF_MARK "<!-- rodsim: the rod of "

/* How a file rodsim wrote before is recognised. */
typedef enum {
  ROD_OUT_HDF5, /* an HDF5 file with the root attribute rodsim_version */
  ROD_OUT_TEXT, /* a text file one of whose first lines begins with mark
                   (NULL: none; the extended attribute alone) */
} rod_out_kind;

enum { ROD_OUT_MAX_INPUTS = 2 * ROD_MAX_LOADS + 8 };

typedef struct {
  rod_out_kind kind;
  const char *mark; /* ROD_OUT_TEXT: how a line of rodsim's file begins */
  const char *key;  /* names the output in messages: "output.file", "-o" */
  bool force;       /* replace a regular file rodsim did not write */
  int ninputs;      /* files the command reads: never replaced */
  const char *inputs[ROD_OUT_MAX_INPUTS];
} rod_out_rules;

typedef struct rod_outfile rod_outfile;

/* Add path (not NULL or "") to the inputs of r (beyond the room: ignored). */
void rod_out_add_input(rod_out_rules *r, const char *path);

/* The files a run of sc reads: the scenario and its data files. */
void rod_out_add_scenario_inputs(rod_out_rules *r, const rod_scenario *sc);

/* Take path's writer lock, check path against rules and create the file
 * to write (PATH.part, or path itself for a character device). ROD_EIO
 * when it cannot be written (a missing folder, no permission, another
 * writer: err names the holder's pid), ROD_EINVAL when the rules refuse
 * it; err = {path, rules->key, why}. */
int rod_outfile_open(const char *path, const rod_out_rules *rules,
                     rod_outfile **out, rod_error *err);

/* The checks of rod_outfile_open without taking the lock or creating
 * anything (a lock another writer holds now is refused): for a command
 * to refuse an output before long work (the open checks again). */
int rod_outfile_check(const char *path, const rod_out_rules *rules,
                      rod_error *err);

/* Another writer holds path's writer lock now. */
bool rod_outfile_busy(const char *path);

/* The name to open for writing now: /proc/self/fd/N of the created file
 * (the file itself, whatever happens to its name), else its name. */
const char *rod_outfile_name(const rod_outfile *o);

/* The name of the file on disk now: PATH.part (or the fresh name) until
 * the commit, then path. */
const char *rod_outfile_path_now(const rod_outfile *o);

/* The path written (through a symbolic link: its target). */
const char *rod_outfile_target(const rod_outfile *o);

/* H5Fcreate (truncating, with the property lists fcpl and fapl) of the
 * file created, by rod_outfile_name, checked to be that file (HDF5's
 * descriptor's device and inode); -1 (errno EEXIST) when it is not. */
hid_t rod_outfile_create_hdf5(const rod_outfile *o, hid_t fcpl, hid_t fapl);

/* True when the output is a device written as it is (no file made). */
bool rod_outfile_in_place(const rod_outfile *o);

/* 0 when the file created can take bytes: ENOSPC when its file system
 * has fewer free, EFBIG when the process's file size limit (RLIMIT_FSIZE)
 * is lower (0 when that cannot be told). */
int rod_outfile_room(const rod_outfile *o, double bytes);

/* True when fd is open on the file created (the same device and inode):
 * a check of what a library opened by rod_outfile_name. */
bool rod_outfile_is(const rod_outfile *o, int fd);

/* A stream writing the created file (from its start; fclose it before
 * the commit). NULL when out of memory. */
FILE *rod_outfile_stream(rod_outfile *o);

/* Rename the created file over path (once; nothing for one written in
 * place). ROD_EIO when it fails or the temporary name no longer holds the
 * file created (err says so). */
int rod_outfile_commit(rod_outfile *o, rod_error *err);

/* The file the commit renamed over, held open (O_PATH) so that its
 * blocks are freed when this descriptor is closed, not in the rename:
 * for the caller to close where it costs no one (the writer's thread).
 * -1 when none; then nothing more is held. */
int rod_outfile_take_replaced(rod_outfile *o);

/* Unlink path, its file held open (O_PATH) as rod_outfile_take_replaced
 * holds it: the descriptor to close; -1 when nothing is held, with errno
 * 0 when path was removed all the same, else why it was not. */
int rod_out_unlink_held(const char *path);

/* Release the lock and free o (the file replaced, if still held, is
 * closed). discard: remove the created file when it was not committed
 * (after a failure before anything worth keeping). NULL is a no-op. */
void rod_outfile_close(rod_outfile *o, bool discard);

/* From a signal handler: remove the created file if not committed, and
 * the lock file (async-signal-safe; o is not freed). */
void rod_outfile_discard_now(const rod_outfile *o);

#endif
